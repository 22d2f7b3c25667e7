import type { Engine } from "tempest-db-js";
import { createEngine, op, select, sql, update, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, enqueue, markFailed, markSent, purgeSettled } from "../src/index.js";
import { countBy, freshQueue } from "./support/fresh-queue.js";
import { engineFor, targets } from "./support/targets.js";

describe.each(targets)("purgeSettled on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 2);
  });
  afterAll(async () => {
    await engine.close();
  });

  it("deletes old sent rows in batches, keeping recent, failed and unsettled ones", async () => {
    const { Outbound } = await freshQueue(engine, "purge");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 30 }, (_, i) => ({ consumer: "p", idempotencyKey: `k${i}` })),
    );
    const claimed = await claimBatch(engine, Outbound, { size: 25 });
    await markSent(engine, Outbound, claimed.slice(0, 20));
    await markFailed(engine, Outbound, claimed.slice(20, 25));
    // 15 of the sent rows and all failed ones settled a day ago.
    const old = [...claimed.slice(0, 15), ...claimed.slice(20, 25)].map((r) => r.id);
    await engine
      .execute(
        update(Outbound)
          .set({ updatedAt: sql.nowPlusSeconds(-86_400) })
          .where({ id: op.in(old) }),
      )
      .rowsAffected();

    expect(await purgeSettled(engine, Outbound, { olderThanSeconds: 3600, batchSize: 4 })).toBe(15);
    const left = countBy(await engine.execute(select(Outbound, ["status"])).all(), (r) => r.status);
    expect(left).toEqual({ sent: 5, failed: 5, queued: 5 });

    expect(await purgeSettled(engine, Outbound, { olderThanSeconds: 3600, include: ["failed"] })).toBe(5);
    // A purged key may be enqueued again.
    const again = await enqueue(engine, Outbound, { consumer: "p", idempotencyKey: claimed[0]?.idempotencyKey ?? null });
    expect(again.inserted).toHaveLength(1);
  });

  it("halves a batch that took longer than maxBatchMs, and pauses pauseMs between batches", async () => {
    const deletes: number[] = [];
    const watched = createEngine(target.url, {
      poolSize: 2,
      onQuery: (event) => {
        if (/^\s*delete/i.test(event.sql)) deletes.push(event.rowCount);
      },
    });
    try {
      const { Outbound } = await freshQueue(watched, "purge_adaptive");
      const settleOld = async (n: number) => {
        await enqueue(
          watched,
          Outbound,
          Array.from({ length: n }, () => ({ consumer: "p" })),
        );
        await markSent(watched, Outbound, await claimBatch(watched, Outbound, { size: n }));
        await watched
          .execute(
            update(Outbound)
              .set({ updatedAt: sql.nowPlusSeconds(-86_400) })
              .allRows(),
          )
          .rowsAffected();
      };
      // Every batch takes longer than a nanosecond: 16, then halved to the floor of 10 rows.
      await settleOld(40);
      expect(await purgeSettled(watched, Outbound, { olderThanSeconds: 3600, batchSize: 16, maxBatchMs: 1e-6 })).toBe(40);
      expect(deletes).toEqual([16, 10, 10, 4]);
      // No batch takes a day: they stay at batchSize. With a pause of 100 ms after each of the three batches.
      deletes.length = 0;
      await settleOld(40);
      const started = performance.now();
      expect(await purgeSettled(watched, Outbound, { olderThanSeconds: 3600, batchSize: 16, maxBatchMs: 86_400_000, pauseMs: 100 })).toBe(
        40,
      );
      expect(performance.now() - started).toBeGreaterThanOrEqual(200);
      expect(deletes).toEqual([16, 16, 8]);
      for (const bad of [{ maxBatchMs: 0 }, { maxBatchMs: Number.NaN }, { pauseMs: -1 }, { pauseMs: Number.POSITIVE_INFINITY }]) {
        await expect(purgeSettled(watched, Outbound, { olderThanSeconds: 1, ...bad })).rejects.toThrow(ValidationError);
      }
    } finally {
      await watched.close();
    }
  });
});
