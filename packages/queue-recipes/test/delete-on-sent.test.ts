import type { Engine } from "tempest-db-js";
import { select, UnsupportedFeatureError, update, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { QueueOptions } from "../src/index.js";
import { claimBatch, drain, enqueue, markSent, purgeSettled, retryFailed, work } from "../src/index.js";
import { countBy, freshDeadLetterQueue, freshQueue, rowsOf } from "./support/fresh-queue.js";
import { engineFor, targets } from "./support/targets.js";

/** Delete-on-settle: `onSent: "delete"` deletes a delivered message's row instead of marking it `sent`. */
describe.each(targets)("onSent: delete on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 6);
  });
  afterAll(async () => {
    await engine.close();
  });

  const queue: QueueOptions = { onSent: "delete" };

  it("deletes delivered rows; failed ones stay dead for the operator's verbs, retried ones stay queued", async () => {
    const { Outbound } = await freshDeadLetterQueue(engine, "del_drain");
    await enqueue(
      engine,
      Outbound,
      ["ok", "ok", "ok", "dead", "retry"].map((consumer, i) => ({ consumer, idempotencyKey: `k${i}` })),
    );
    // The "dead" one is on its last attempt (maxAttempts 2), the "retry" one on its first.
    await engine.execute(update(Outbound).set({ attempts: 1 }).where({ consumer: "dead" })).rowsAffected();
    const result = await drain(
      engine,
      Outbound,
      (m) => {
        if (m.consumer !== "ok") throw new Error(`refused ${m.consumer}`);
      },
      { ...queue, batchSize: 10, maxAttempts: 2, backoff: () => 3600 },
    );
    expect(result).toMatchObject({ sent: 3, retried: 1, failed: 1, stale: 0 });
    const rows = await rowsOf(engine, Outbound);
    expect(countBy(rows, (r) => `${r.consumer}:${r.status}`)).toEqual({ "dead:failed": 1, "retry:queued": 1 });
    expect(rows.map((r) => r.lastError ?? "").every((e) => e.includes("refused"))).toBe(true);
    // Retention finds no sent row to purge, and keeps the dead one unless asked for "failed".
    expect(await purgeSettled(engine, Outbound, { olderThanSeconds: 0 })).toBe(0);
    expect(await rowsOf(engine, Outbound)).toHaveLength(2);
    // The dead message is retried by the operator's verb, which takes the same options object, and deleted once delivered.
    expect((await retryFailed(engine, Outbound, { ...queue, consumer: "dead" })).count).toBe(1);
    expect((await drain(engine, Outbound, () => {}, { ...queue })).sent).toBe(1);
    expect(countBy(await rowsOf(engine, Outbound), (r) => `${r.consumer}:${r.status}`)).toEqual({ "retry:queued": 1 });
  });

  it("is fenced like markSent: a claim that was taken back deletes nothing", async () => {
    const { Outbound } = await freshQueue(engine, "del_fence");
    await enqueue(engine, Outbound, [{ consumer: "a" }, { consumer: "a" }]);
    const claims = await claimBatch(engine, Outbound, { size: 2 });
    expect(claims).toHaveLength(2);
    // The first claim's lease ran out and another worker claimed it again (attempts, the fence, moved on).
    const [lost, kept] = claims as [(typeof claims)[number], (typeof claims)[number]];
    await engine
      .execute(
        update(Outbound)
          .set({ attempts: lost.attempts + 1 })
          .where({ id: lost.id }),
      )
      .rowsAffected();
    expect(await markSent(engine, Outbound, claims, queue)).toEqual({ applied: 1, stale: 1 });
    const left = await engine.execute(select(Outbound, ["id", "status"])).all();
    expect(left).toEqual([{ id: lost.id, status: "sending" }]);
    expect(kept.id).not.toBe(lost.id);
  });

  it("frees the idempotency key at once: the same key enqueues a new message (with mark, a duplicate)", async () => {
    for (const onSent of ["delete", "mark"] as const) {
      const { Outbound } = await freshQueue(engine, `del_key_${onSent}`);
      const first = await enqueue(engine, Outbound, { consumer: "mail", idempotencyKey: "reset:42" });
      expect(first.inserted).toHaveLength(1);
      expect((await drain(engine, Outbound, () => {}, { onSent })).sent).toBe(1);
      const again = await enqueue(engine, Outbound, { consumer: "mail", idempotencyKey: "reset:42" });
      if (onSent === "delete") {
        expect(again.inserted).toHaveLength(1);
        expect(again.inserted[0]?.id).not.toBe(first.inserted[0]?.id);
      } else {
        expect(again).toMatchObject({ inserted: [], duplicates: [{ id: first.inserted[0]?.id }] });
      }
    }
  });

  it("work() takes it per call, with retention running beside it", async () => {
    const { Outbound } = await freshQueue(engine, "del_work");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 30 }, () => ({ consumer: "w" })),
    );
    const stop = new AbortController();
    let delivered = 0;
    const errors: unknown[] = [];
    const worker = work(engine, Outbound, () => void delivered++, {
      ...queue,
      signal: stop.signal,
      batchSize: 7,
      pollIntervalMs: 20,
      listen: false,
      onError: (error) => errors.push(error),
      retention: { olderThanSeconds: 0, everySeconds: 0.02 },
    });
    for (let i = 0; i < 300 && delivered < 30; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort();
    expect((await worker).sent).toBe(30);
    expect(errors).toEqual([]);
    expect(await rowsOf(engine, Outbound)).toEqual([]);
  });

  it("settles by deleting in the fused cycle on PostgreSQL; the others refuse the cycle by name", async () => {
    const { Outbound } = await freshQueue(engine, "del_fused");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 5 }, (_, i) => ({ consumer: `c${i}` })),
    );
    const fused = drain(engine, Outbound, () => {}, { ...queue, fused: true, batchSize: 2 });
    if (target.name === "PostgreSQL") {
      expect((await fused).sent).toBe(5);
      expect(await rowsOf(engine, Outbound)).toEqual([]);
      return;
    }
    await expect(fused).rejects.toThrow(UnsupportedFeatureError);
    expect(countBy(await rowsOf(engine, Outbound), (r) => r.status)).toEqual({ queued: 5 });
  });

  it("refuses an unknown value by name", async () => {
    const { Outbound } = await freshQueue(engine, "del_bad");
    await enqueue(engine, Outbound, { consumer: "a" });
    const claims = await claimBatch(engine, Outbound, { size: 1 });
    await expect(markSent(engine, Outbound, claims, { onSent: "drop" as never })).rejects.toThrow(ValidationError);
    await expect(markSent(engine, Outbound, claims, { onSent: "drop" as never })).rejects.toThrow(/onSent is "mark" or "delete"/);
    expect(await engine.execute(select(Outbound, ["status"])).all()).toEqual([{ status: "sending" }]);
  });
});
