import type { Engine } from "tempest-db-js";
import { op, select, sql, update, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, enqueue, markFailed, markSent, purgeSettled, runRetention, work } from "../src/index.js";
import { countBy, freshDeadLetterQueue } from "./support/fresh-queue.js";
import { engineFor, targets } from "./support/targets.js";

describe.each(targets)("retention on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 6);
  });
  afterAll(async () => {
    await engine.close();
  });

  /** n settled messages (sent, then `failed` for `dead` of them), settled a day ago. */
  async function settledYesterday(Outbound: Awaited<ReturnType<typeof freshDeadLetterQueue>>["Outbound"], n: number, dead = 0) {
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: n }, (_, i) => ({ consumer: "old", idempotencyKey: `old${i}` })),
    );
    const claimed = await claimBatch(engine, Outbound, { size: n });
    await markSent(engine, Outbound, claimed.slice(dead));
    await markFailed(engine, Outbound, claimed.slice(0, dead));
    await engine
      .execute(
        update(Outbound)
          .set({ updatedAt: sql.nowPlusSeconds(-86_400) })
          .where({ consumer: "old" }),
      )
      .rowsAffected();
  }

  it("purges sent and dead messages past the limit, in batches, stopping at limit or on a signal", async () => {
    const { Outbound } = await freshDeadLetterQueue(engine, "ret_purge");
    await settledYesterday(Outbound, 30, 6);
    await enqueue(engine, Outbound, { consumer: "new" });
    expect(await purgeSettled(engine, Outbound, { olderThanSeconds: 3600, batchSize: 4, limit: 10 })).toBe(10);
    const stopped = new AbortController();
    stopped.abort();
    expect(await purgeSettled(engine, Outbound, { olderThanSeconds: 3600, signal: stopped.signal })).toBe(0);
    expect(await purgeSettled(engine, Outbound, { olderThanSeconds: 3600, batchSize: 4 })).toBe(14);
    // The dead ones only when asked; the queued one never.
    expect(countBy(await engine.execute(select(Outbound, ["status"])).all(), (r) => r.status)).toEqual({ failed: 6, queued: 1 });
    expect(await purgeSettled(engine, Outbound, { olderThanSeconds: 3600, include: ["sent", "failed"] })).toBe(6);
    await expect(purgeSettled(engine, Outbound, { olderThanSeconds: 3600, include: ["queued" as never] })).rejects.toThrow(ValidationError);
  });

  it("purgers running side by side delete each row once, without errors", async () => {
    const { Outbound } = await freshDeadLetterQueue(engine, "ret_parallel");
    await settledYesterday(Outbound, 200);
    const counts = await Promise.all([1, 2, 3].map(() => purgeSettled(engine, Outbound, { olderThanSeconds: 3600, batchSize: 7 })));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(200);
    expect(await engine.execute(select(Outbound, ["id"])).all()).toEqual([]);
  });

  it("runs inside work(): old settled messages are purged while new ones are delivered", async () => {
    const { Outbound } = await freshDeadLetterQueue(engine, "ret_work");
    await settledYesterday(Outbound, 40, 5);
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 20 }, (_, i) => ({ consumer: "live", idempotencyKey: `live${i}` })),
    );
    const stop = new AbortController();
    let delivered = 0;
    const errors: unknown[] = [];
    const worker = work(engine, Outbound, () => void delivered++, {
      signal: stop.signal,
      pollIntervalMs: 50,
      listen: false,
      onError: (error) => errors.push(error),
      retention: { olderThanSeconds: 3600, include: ["sent", "failed"], batchSize: 8, everySeconds: 0.05 },
    });
    for (let i = 0; i < 200; i++) {
      const left = await engine.execute(select(Outbound, ["id"]).where({ consumer: "old" })).all();
      if (left.length === 0 && delivered === 20) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    stop.abort();
    const totals = await worker;
    expect(errors).toEqual([]);
    expect(totals.sent).toBe(20);
    // The old ones are gone; the ones just delivered are recent and stay.
    expect(countBy(await engine.execute(select(Outbound, ["consumer", "status"])).all(), (r) => `${r.consumer}:${r.status}`)).toEqual({
      "live:sent": 20,
    });
  });

  it("runs on its own with runRetention until its signal aborts", async () => {
    const { Outbound } = await freshDeadLetterQueue(engine, "ret_alone");
    await settledYesterday(Outbound, 12);
    const stop = new AbortController();
    const purges: number[] = [];
    const total = await runRetention(engine, Outbound, {
      olderThanSeconds: 3600,
      batchSize: 5,
      everySeconds: 0.02,
      signal: stop.signal,
      onPurge: (deleted) => {
        purges.push(deleted);
        if (purges.length === 2) stop.abort();
      },
    });
    expect(total).toBe(12);
    expect(purges).toEqual([12, 0]);
    await expect(runRetention(engine, Outbound, { olderThanSeconds: -1 })).rejects.toThrow(ValidationError);
    expect(await engine.execute(select(Outbound, ["id"]).where({ id: op.isNull(false) })).all()).toEqual([]);
  });
});
