import type { Engine } from "tempest-db-js";
import { op, select, sql, update } from "tempest-db-js";
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
});
