import type { Engine } from "tempest-db-js";
import { op, select, sql, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, enqueue, markFailed, markSent, reclaimExpired, requeue } from "../src/index.js";
import { freshQueue } from "./support/fresh-queue.js";
import type { OutboundModel } from "./support/models.js";
import { engineFor, targets } from "./support/targets.js";

describe.each(targets)("leases on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 4);
  });
  afterAll(async () => {
    await engine.close();
  });

  /** Ages a claim as if its worker had gone quiet an hour ago (the lease clock is updatedAt). */
  async function expire(model: OutboundModel, ids: string[]) {
    await engine
      .execute(
        update(model)
          .set({ updatedAt: sql.nowPlusSeconds(-3600) })
          .where({ id: op.in(ids) }),
      )
      .rowsAffected();
  }

  it("reclaims only claims older than the lease, keeping attempts as they are", async () => {
    const { Outbound } = await freshQueue(engine, "lease_reclaim");
    await enqueue(engine, Outbound, [{ consumer: "old" }, { consumer: "fresh" }]);
    const claimed = await claimBatch(engine, Outbound, { size: 2 });
    await expire(
      Outbound,
      claimed.filter((r) => r.consumer === "old").map((r) => r.id),
    );
    expect(await reclaimExpired(engine, Outbound, { leaseSeconds: 60 })).toBe(1);
    const rows = await engine.execute(select(Outbound).orderBy("consumer")).all();
    expect(rows.map((r) => [r.consumer, r.status, r.attempts])).toEqual([
      ["fresh", "sending", 1],
      ["old", "queued", 1],
    ]);
    const again = await claimBatch(engine, Outbound, { size: 2 });
    expect(again.map((r) => [r.consumer, r.attempts])).toEqual([["old", 2]]);
  });

  it("skips an expired claim another transaction holds instead of waiting for it", async () => {
    const { Outbound } = await freshQueue(engine, "lease_locked");
    await enqueue(engine, Outbound, [{ consumer: "held" }, { consumer: "free" }]);
    const claimed = await claimBatch(engine, Outbound, { size: 2 });
    await expire(
      Outbound,
      claimed.map((r) => r.id),
    );
    const held = claimed.find((r) => r.consumer === "held");
    if (!held) throw new Error("nothing claimed");
    let reclaimedMeanwhile = -1;
    await engine.transaction(async (tx) => {
      if (engine.capabilities.rowLocks) await tx.execute(select(Outbound, ["id"]).where({ id: held.id }).forUpdate()).all();
      // Where rows can be locked, the reclaim runs beside the lock on another connection and skips the held row.
      if (engine.capabilities.rowLocks) reclaimedMeanwhile = await reclaimExpired(engine, Outbound, { leaseSeconds: 60 });
    });
    if (engine.capabilities.rowLocks) expect(reclaimedMeanwhile).toBe(1);
    // Once the lock is gone the held row is reclaimed too.
    expect(await reclaimExpired(engine, Outbound, { leaseSeconds: 60 })).toBe(engine.capabilities.rowLocks ? 1 : 2);
    const rows = await engine.execute(select(Outbound, ["consumer", "status"]).orderBy("consumer")).all();
    expect(rows).toEqual([
      { consumer: "free", status: "queued" },
      { consumer: "held", status: "queued" },
    ]);
  });

  it("makes a stale completion after a reclaim change nothing", async () => {
    const { Outbound } = await freshQueue(engine, "lease_stale");
    await enqueue(engine, Outbound, { consumer: "x" });
    const [slow] = await claimBatch(engine, Outbound, { size: 1 });
    if (!slow) throw new Error("nothing claimed");
    await expire(Outbound, [slow.id]);
    expect(await reclaimExpired(engine, Outbound, { leaseSeconds: 60 })).toBe(1);

    // Between the reclaim and the next claim: the old worker's settlements find a queued row.
    expect(await markSent(engine, Outbound, [slow])).toEqual({ applied: 0, stale: 1 });
    expect(await engine.execute(select(Outbound)).one()).toMatchObject({ status: "queued", attempts: 1 });

    const [fresh] = await claimBatch(engine, Outbound, { size: 1 });
    expect(fresh).toMatchObject({ id: slow.id, attempts: 2 });
    // After the new claim: the old worker's sent, retry and fail are all fenced out.
    expect(await markSent(engine, Outbound, [slow])).toEqual({ applied: 0, stale: 1 });
    expect(await requeue(engine, Outbound, [slow], { backoff: () => 999 })).toEqual({ applied: 0, stale: 1 });
    expect(await markFailed(engine, Outbound, [slow])).toEqual({ applied: 0, stale: 1 });
    const before = await engine.execute(select(Outbound)).one();
    expect(before).toMatchObject({ status: "sending", attempts: 2 });
    expect(before.updatedAt?.getTime()).toBe(fresh?.updatedAt?.getTime());

    // The current claim settles normally.
    expect(await markSent(engine, Outbound, fresh ? [fresh] : [])).toEqual({ applied: 1, stale: 0 });
    expect(await engine.execute(select(Outbound)).one()).toMatchObject({ status: "sent", attempts: 2 });
  });

  it("leaves sent and failed rows alone however old they are", async () => {
    const { Outbound } = await freshQueue(engine, "lease_final");
    await enqueue(engine, Outbound, [{ consumer: "a" }, { consumer: "b" }]);
    const [a, b] = await claimBatch(engine, Outbound, { size: 2 });
    await markSent(engine, Outbound, a ? [a] : []);
    await markFailed(engine, Outbound, b ? [b] : []);
    await engine
      .execute(
        update(Outbound)
          .set({ updatedAt: sql.nowPlusSeconds(-86400) })
          .allRows(),
      )
      .rowsAffected();
    expect(await reclaimExpired(engine, Outbound, { leaseSeconds: 1 })).toBe(0);
    const statuses = (await engine.execute(select(Outbound, ["status"])).all()).map((r) => r.status).sort();
    expect(statuses).toEqual(["failed", "sent"]);
  });
});
