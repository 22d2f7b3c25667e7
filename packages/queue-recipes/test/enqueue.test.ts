import type { Engine } from "tempest-db-js";
import { dropTable, select } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, enqueue, ensureQueueSchema } from "../src/index.js";
import { freshQueue, rowsOf } from "./support/fresh-queue.js";
import { Outbound as GuideOutbound } from "./support/guide-model.js";
import { engineFor, targets } from "./support/targets.js";

describe.each(targets)("enqueue on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 8);
  });
  afterAll(async () => {
    await engine.close();
  });

  it("works with the guide's Outbound model as written", async () => {
    await engine.execute(dropTable(GuideOutbound, { ifExists: true })).rowsAffected();
    await ensureQueueSchema(engine, GuideOutbound);
    await ensureQueueSchema(engine, GuideOutbound); // idempotent: IF NOT EXISTS throughout
    const first = await enqueue(engine, GuideOutbound, { consumer: "billing", idempotencyKey: "order-1" });
    const again = await enqueue(engine, GuideOutbound, { consumer: "billing", idempotencyKey: "order-1" });
    expect(first.inserted).toHaveLength(1);
    expect(again.inserted).toHaveLength(0);
    expect(again.duplicates).toEqual([
      { index: 0, id: first.inserted[0]?.id, message: { consumer: "billing", idempotencyKey: "order-1" } },
    ]);
    const [claimed] = await claimBatch(engine, GuideOutbound, { size: 5 });
    expect(claimed).toMatchObject({ id: first.inserted[0]?.id, status: "sending", attempts: 1 });
  });

  it("reports inserted and duplicate messages, in-batch repeats included, and never dedups rows without a key", async () => {
    const { Outbound } = await freshQueue(engine, "enqueue_report");
    await enqueue(engine, Outbound, { consumer: "a", idempotencyKey: "k1" });
    const result = await enqueue(engine, Outbound, [
      { consumer: "a", idempotencyKey: "k1" }, // repeat of an earlier call
      { consumer: "a", idempotencyKey: "k2" },
      { consumer: "a", idempotencyKey: "k2" }, // repeat within this call
      { consumer: "b", idempotencyKey: "k1" }, // same key, other consumer: a different message
      { consumer: "a", idempotencyKey: null },
      { consumer: "a" },
      { consumer: "a", idempotencyKey: null },
    ]);
    expect(result.inserted.map((m) => m.index)).toEqual([1, 3, 4, 5, 6]);
    expect(result.duplicates.map((m) => m.index)).toEqual([0, 2]);
    expect(result.duplicates[1]?.id).toBe(result.inserted[0]?.id);
    const rows = await rowsOf(engine, Outbound);
    expect(rows).toHaveLength(6);
    expect(rows.filter((r) => r.idempotencyKey === null)).toHaveLength(3);
    expect(rows.every((r) => r.status === "queued" && r.attempts === 0 && r.updatedAt instanceof Date)).toBe(true);
  });

  it("enqueues atomically with the caller's transaction: a rollback leaves no message", async () => {
    const { Outbound } = await freshQueue(engine, "enqueue_tx");
    await expect(
      engine.transaction(async (tx) => {
        await enqueue(tx, Outbound, { consumer: "orders", idempotencyKey: "order-7" });
        throw new Error("the business write failed");
      }),
    ).rejects.toThrow("the business write failed");
    expect(await rowsOf(engine, Outbound)).toEqual([]);
    const committed = await engine.transaction((tx) => enqueue(tx, Outbound, { consumer: "orders", idempotencyKey: "order-7" }));
    expect(committed.inserted).toHaveLength(1);
    expect(await rowsOf(engine, Outbound)).toHaveLength(1);
  });

  it("leaves one row when concurrent enqueues race with one key", async () => {
    const { Outbound } = await freshQueue(engine, "enqueue_race");
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        enqueue(engine, Outbound, [
          { consumer: "race", idempotencyKey: "same" },
          { consumer: "race", idempotencyKey: `own-${i}` },
        ]),
      ),
    );
    const winners = results.filter((r) => r.inserted.some((m) => m.message.idempotencyKey === "same"));
    expect(winners).toHaveLength(1);
    expect(results.flatMap((r) => r.duplicates).every((d) => d.id === winners[0]?.inserted[0]?.id)).toBe(true);
    const rows = await engine.execute(select(Outbound).where({ idempotencyKey: "same" })).all();
    expect(rows).toHaveLength(1);
    expect(await rowsOf(engine, Outbound)).toHaveLength(9);
  });

  it("schedules with delaySeconds on the database clock and keeps a message's own nextAttemptAt", async () => {
    const { Outbound } = await freshQueue(engine, "enqueue_delay");
    await enqueue(engine, Outbound, { consumer: "later" }, { delaySeconds: 3600 });
    await enqueue(engine, Outbound, { consumer: "past", nextAttemptAt: new Date(Date.UTC(2020, 0, 1)) });
    const claimed = await claimBatch(engine, Outbound, { size: 10 });
    expect(claimed.map((r) => r.consumer)).toEqual(["past"]);
    expect(claimed[0]?.nextAttemptAt.toISOString()).toBe("2020-01-01T00:00:00.000Z");
  });

  it("inserts large batches in chunks under the parameter limit", async () => {
    const { Outbound } = await freshQueue(engine, "enqueue_large");
    const messages = Array.from({ length: 1500 }, (_, i) => ({ consumer: "bulk", idempotencyKey: `k${i % 1000}` }));
    const result = await enqueue(engine, Outbound, messages);
    expect(result.inserted).toHaveLength(1000);
    expect(result.duplicates).toHaveLength(500);
    expect(result.duplicates.every((d) => d.id !== undefined)).toBe(true);
  });
});
