import type { Engine } from "tempest-db-js";
import { select, sql, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, drain, enqueue, markSent, reclaimExpired, requeue } from "../src/index.js";
import { freshQueue, freshTokenQueue } from "./support/fresh-queue.js";
import { engineFor, targets } from "./support/targets.js";

describe.each(targets)("claim token and failure counts on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 4);
  });
  afterAll(async () => {
    await engine.close();
  });

  async function age(model: Parameters<typeof select>[0]) {
    await engine
      .execute(
        update(model as any)
          .set({ updatedAt: sql.nowPlusSeconds(-3600) } as any)
          .allRows(),
      )
      .rowsAffected();
  }

  it("fences by the token; a reclaim advances it and is not an attempt against maxAttempts", async () => {
    const { Outbound } = await freshTokenQueue(engine, "token_reclaim");
    await enqueue(engine, Outbound, { consumer: "x" });
    const [first] = await claimBatch(engine, Outbound, { size: 1 });
    expect(first).toMatchObject({ status: "sending", claimToken: 1, attempts: 0 });
    await age(Outbound);
    expect(await reclaimExpired(engine, Outbound, { leaseSeconds: 60 })).toBe(1);
    expect(await engine.execute(select(Outbound)).one()).toMatchObject({ status: "queued", claimToken: 2, attempts: 0 });
    // The dead claim's late completion changes nothing, before and after the next claim.
    expect(await markSent(engine, Outbound, first ? [first] : [])).toEqual({ applied: 0, stale: 1 });
    const delivered: number[] = [];
    const result = await drain(engine, Outbound, (_m, { attempt }) => void delivered.push(attempt), { maxAttempts: 1 });
    expect(result).toMatchObject({ sent: 1, failed: 0 });
    expect(delivered).toEqual([1]);
    expect(await engine.execute(select(Outbound)).one()).toMatchObject({ status: "sent", claimToken: 3, attempts: 0 });
    expect(await markSent(engine, Outbound, first ? [first] : [])).toEqual({ applied: 0, stale: 1 });
  });

  it("without a token column (the guide's model) a reclaim still counts, as before", async () => {
    const { Outbound } = await freshQueue(engine, "token_none");
    await enqueue(engine, Outbound, { consumer: "x" });
    await claimBatch(engine, Outbound, { size: 1 });
    await age(Outbound);
    expect(await reclaimExpired(engine, Outbound, { leaseSeconds: 60 })).toBe(1);
    const result = await drain(engine, Outbound, () => undefined, { maxAttempts: 1 });
    expect(result).toMatchObject({ sent: 0, failed: 1 });
  });

  it("counts failed deliveries in attempts and records the last error's text and time", async () => {
    const { Outbound } = await freshTokenQueue(engine, "token_errors");
    await enqueue(engine, Outbound, { consumer: "x" });
    const attempts: number[] = [];
    const result = await drain(
      engine,
      Outbound,
      (_m, { attempt }) => {
        attempts.push(attempt);
        throw new TypeError(`receiver said no (${attempt})`);
      },
      { maxAttempts: 3, backoff: () => 0 },
    );
    expect(result).toMatchObject({ sent: 0, retried: 2, failed: 1 });
    expect(attempts).toEqual([1, 2, 3]);
    const row = await engine.execute(select(Outbound)).one();
    expect(row).toMatchObject({ status: "failed", attempts: 3, claimToken: 3, lastError: "TypeError: receiver said no (3)" });
    expect(row.lastErrorAt).toBeInstanceOf(Date);
  });

  it("records each message's own error in one statement", async () => {
    const { Outbound } = await freshTokenQueue(engine, "token_case");
    await enqueue(engine, Outbound, [{ consumer: "a" }, { consumer: "b" }, { consumer: "c" }]);
    const claims = await claimBatch(engine, Outbound, { size: 3 });
    const texts = new Map(claims.map((c) => [c, `failed ${c.consumer}`]));
    expect(await requeue(engine, Outbound, claims, { backoff: () => 60, errorOf: (c) => new Error(texts.get(c as never)) })).toEqual({
      applied: 3,
      stale: 0,
    });
    const rows = await engine.execute(select(Outbound, ["consumer", "status", "attempts", "lastError"]).orderBy("consumer")).all();
    expect(rows).toEqual([
      { consumer: "a", status: "queued", attempts: 1, lastError: "Error: failed a" },
      { consumer: "b", status: "queued", attempts: 1, lastError: "Error: failed b" },
      { consumer: "c", status: "queued", attempts: 1, lastError: "Error: failed c" },
    ]);
  });

  it("treats a returned Error as a failure and any other returned value as delivered", async () => {
    const { Outbound } = await freshTokenQueue(engine, "token_returns");
    await enqueue(engine, Outbound, [
      { consumer: "returns-error" },
      { consumer: "resolves-error" },
      { consumer: "returns-42" },
      { consumer: "resolves-string" },
    ]);
    const result = await drain(
      engine,
      Outbound,
      (message) => {
        switch (message.consumer) {
          case "returns-error":
            return new Error("returned, not thrown");
          case "resolves-error":
            return Promise.resolve(new RangeError("resolved, not rejected"));
          case "returns-42":
            return 42;
          default:
            return Promise.resolve("ok");
        }
      },
      { maxAttempts: 1 },
    );
    expect(result).toMatchObject({ sent: 2, failed: 2 });
    const rows = await engine.execute(select(Outbound, ["consumer", "status", "lastError"]).orderBy("consumer")).all();
    expect(rows).toEqual([
      { consumer: "resolves-error", status: "failed", lastError: "RangeError: resolved, not rejected" },
      { consumer: "resolves-string", status: "sent", lastError: null },
      { consumer: "returns-42", status: "sent", lastError: null },
      { consumer: "returns-error", status: "failed", lastError: "Error: returned, not thrown" },
    ]);
  });
});
