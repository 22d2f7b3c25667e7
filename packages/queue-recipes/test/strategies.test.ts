import type { DialectCapabilities } from "tempest-db-js";
import { insert, select, sql, update } from "tempest-db-js";
import { describe, expect, it } from "vitest";
import { claimBatch, claimPlan, drain, enqueue, reclaimExpired } from "../src/index.js";
import { degradedEngine } from "./support/degraded-engine.js";
import { freshQueue } from "./support/fresh-queue.js";
import { targets } from "./support/targets.js";

/** Capability sets a weaker database would report; each forces another branch of the recipes. */
const variants: [string, Partial<DialectCapabilities>][] = [
  ["no RETURNING on insert (enqueue reads its ids back)", { returningInsert: false }],
  ["no conflict target (enqueue skips any duplicate key)", { conflictTarget: false, conflictTargetWhere: false }],
  ["no LIMIT in a subquery (two-step claim with RETURNING)", { limitInSubquery: false }],
  ["no LIMIT in a subquery nor RETURNING on update (two-step claim, rows read back)", { limitInSubquery: false, returningUpdate: false }],
  ["no SKIP LOCKED (claimers wait for each other's locks)", { skipLocked: false }],
];

describe.each(targets)("every strategy on $name", (target) => {
  it.each(variants)("%s", async (name, without) => {
    const engine = degradedEngine(target, without);
    try {
      const { Outbound, Delivery } = await freshQueue(engine, `strategy_${variants.findIndex(([n]) => n === name)}`);
      const plan = claimPlan(engine);
      expect(plan.strategy).toBe(engine.capabilities.limitInSubquery && engine.capabilities.returningUpdate ? "single" : "two-step");

      const first = await enqueue(engine, Outbound, [
        { consumer: "a", idempotencyKey: "k" },
        { consumer: "a", idempotencyKey: "k" },
        { consumer: "a" },
      ]);
      expect([first.inserted.map((m) => m.index), first.duplicates.map((m) => m.index)]).toEqual([[0, 2], [1]]);
      expect(first.duplicates[0]?.id).toBe(first.inserted[0]?.id);
      const messages = Array.from({ length: 300 }, (_, i) => ({ consumer: "b", idempotencyKey: `b${i % 250}` }));
      const second = await enqueue(engine, Outbound, messages);
      expect([second.inserted.length, second.duplicates.length]).toEqual([250, 50]);

      // Concurrent claimers still get disjoint batches within the size, oldest first.
      const sizes: number[] = [];
      const claimed = new Set<string>();
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let round = 0; round < 5; round++) {
            const batch = await claimBatch(engine, Outbound, { size: 7 });
            sizes.push(batch.length);
            for (const row of batch) {
              expect(claimed.has(row.id)).toBe(false);
              expect(row.status).toBe("sending");
              claimed.add(row.id);
            }
          }
        }),
      );
      expect(Math.max(...sizes)).toBeLessThanOrEqual(7);
      expect(claimed.size).toBe(sizes.reduce((a, b) => a + b, 0));

      // The claims above were abandoned on purpose: age them past a lease so the reclaim hands them back.
      await engine
        .execute(
          update(Outbound)
            .set({ updatedAt: sql.nowPlusSeconds(-3600) })
            .where({ status: "sending" }),
        )
        .rowsAffected();
      expect(await reclaimExpired(engine, Outbound, { leaseSeconds: 60 })).toBe(claimed.size);
      const result = await drain(
        engine,
        Outbound,
        async (m) => {
          await engine.execute(insert(Delivery).values({ messageId: m.id, worker: "w" })).rowsAffected();
        },
        { batchSize: 10, concurrency: 3 },
      );
      expect(result.sent).toBe(252);
      const deliveries = await engine.execute(select(Delivery, ["messageId"])).all();
      expect(new Set(deliveries.map((d) => d.messageId)).size).toBe(252);
      expect(deliveries).toHaveLength(252);
    } finally {
      await engine.close();
    }
  });
});
