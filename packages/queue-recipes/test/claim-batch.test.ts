import type { Engine } from "tempest-db-js";
import { insert, op, select, sql, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, claimPlan, enqueue } from "../src/index.js";
import { freshQueue } from "./support/fresh-queue.js";
import { engineFor, targets } from "./support/targets.js";

describe.each(targets)("claimBatch on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 8);
  });
  afterAll(async () => {
    await engine.close();
  });

  it("a bad size is refused naming the rule, never the value", async () => {
    const { Outbound } = await freshQueue(engine, "claim_bad_size");
    for (const size of [0, -7, 2.5, 2 ** 60, Number.NaN, "31337" as unknown as number]) {
      const error = await claimBatch(engine, Outbound, { size }).catch((e: unknown) => e);
      expect((error as Error).name).toBe("ValidationError");
      expect((error as Error).message).toMatch(
        /^claimBatch: size must be a positive integer, got (an integer out of range|a fractional number|NaN|a string)$/,
      );
    }
  });

  it("claims only due, queued rows, oldest first, at most size, incrementing attempts in SQL", async () => {
    const { Outbound } = await freshQueue(engine, "claim_due");
    const base = Date.UTC(2024, 0, 1);
    const rows = [3, 1, 4, 2, 5].map((n) => ({
      id: crypto.randomUUID(),
      consumer: `c${n}`,
      status: "queued" as const,
      attempts: n,
      nextAttemptAt: new Date(base + n * 1000),
    }));
    await engine.execute(insert(Outbound).values(rows)).rowsAffected();
    await engine
      .execute(
        insert(Outbound).values({ id: crypto.randomUUID(), consumer: "future", status: "queued", nextAttemptAt: sql.nowPlusSeconds(600) }),
      )
      .rowsAffected();
    await engine
      .execute(insert(Outbound).values({ id: crypto.randomUUID(), consumer: "sent", status: "sent", nextAttemptAt: new Date(base) }))
      .rowsAffected();

    const first = await claimBatch(engine, Outbound, { size: 3 });
    expect(first.map((r) => r.consumer)).toEqual(["c1", "c2", "c3"]);
    expect(first.map((r) => r.attempts)).toEqual([2, 3, 4]);
    expect(first.every((r) => r.status === "sending" && r.updatedAt instanceof Date)).toBe(true);
    const second = await claimBatch(engine, Outbound, { size: 3 });
    expect(second.map((r) => r.consumer)).toEqual(["c4", "c5"]);
    expect(await claimBatch(engine, Outbound, { size: 3 })).toEqual([]);
  });

  it("filters by consumer", async () => {
    const { Outbound } = await freshQueue(engine, "claim_consumer");
    await enqueue(engine, Outbound, [{ consumer: "a" }, { consumer: "b" }, { consumer: "c" }]);
    const claimed = await claimBatch(engine, Outbound, { size: 10, consumer: ["a", "c"] });
    expect(claimed.map((r) => r.consumer).sort()).toEqual(["a", "c"]);
  });

  it("chooses its strategy from capabilities", () => {
    const plan = claimPlan(engine);
    const caps = engine.capabilities;
    expect(plan.strategy).toBe(caps.limitInSubquery && caps.returningUpdate ? "single" : "two-step");
    expect(plan.lock === undefined).toBe(!caps.rowLocks);
    expect(plan.transaction).toBe(plan.strategy === "two-step" || !caps.rowLocks);
  });

  it("never hands out more than size, nor one row twice, under heavy concurrency", async () => {
    const { Outbound } = await freshQueue(engine, "claim_concurrent");
    const total = 2000;
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: total }, (_, i) => ({ consumer: `c${i % 7}` })),
    );
    const size = 5;
    const claims: number[] = [];
    const seen = new Map<string, number>();
    // Sixteen claimers on sixteen connections (SQLite: one connection, taking turns).
    const crowd = engineFor(target, 16);
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (;;) {
          const batch = await claimBatch(crowd, Outbound, { size });
          if (batch.length === 0) return;
          claims.push(batch.length);
          for (const row of batch) seen.set(row.id, (seen.get(row.id) ?? 0) + 1);
        }
      }),
    );
    await crowd.close();
    expect(Math.max(...claims)).toBeLessThanOrEqual(size);
    expect(seen.size).toBe(total);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    const sending = await engine.execute(select(Outbound, ["attempts"]).where({ status: "sending" })).all();
    expect(sending).toHaveLength(total);
    expect(sending.every((r) => r.attempts === 1)).toBe(true);
  });

  it("keeps attempts exact when claims and requeues interleave (no read-modify-write in JavaScript)", async () => {
    const { Outbound } = await freshQueue(engine, "claim_attempts");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 40 }, () => ({ consumer: "x" })),
    );
    let claimsMade = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let round = 0; round < 10; round++) {
          const batch = await claimBatch(engine, Outbound, { size: 3 });
          claimsMade += batch.length;
          if (batch.length === 0) continue;
          await engine
            .execute(
              update(Outbound)
                .set({ status: "queued" })
                .where({ id: op.in(batch.map((r) => r.id)), status: "sending" }),
            )
            .rowsAffected();
        }
      }),
    );
    const rows = await engine.execute(select(Outbound, ["attempts"])).all();
    expect(rows.reduce((sum, r) => sum + r.attempts, 0)).toBe(claimsMade);
  });
});
