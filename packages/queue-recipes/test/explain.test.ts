import type { Engine } from "tempest-db-js";
import { createEngine, op, select, sql, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, enqueue, reclaimExpired } from "../src/index.js";
import { explainers, inline } from "./support/explain-plans.js";
import { freshQueue } from "./support/fresh-queue.js";
import { targets } from "./support/targets.js";

describe.each(targets)("claims use indexes on $name", (target) => {
  let engine: Engine;
  const statements: { sql: string; params: readonly unknown[] }[] = [];
  beforeAll(() => {
    engine = createEngine(target.url, { logParams: true, onQuery: (e) => statements.push({ sql: e.sql, params: e.params ?? [] }) });
  });
  afterAll(async () => {
    await engine.close();
  });

  it("claims and reclaims without scanning a table of 20 000 rows", async () => {
    const { Outbound } = await freshQueue(engine, "explain");
    const explainer = explainers[target.name];
    for (let i = 0; i < 20; i++) {
      await enqueue(
        engine,
        Outbound,
        Array.from({ length: 1000 }, (_, j) => ({ consumer: `c${j % 10}`, idempotencyKey: `k${i}-${j}` })),
      );
    }
    // A realistic table: most messages long sent, a few waiting, a few in flight.
    await engine
      .execute(
        update(Outbound)
          .set({ status: "sent" })
          .where({ idempotencyKey: op.notIn(Array.from({ length: 200 }, (_, j) => `k0-${j}`)) }),
      )
      .rowsAffected();
    await engine.execute(sql.raw(explainer.analyze(Outbound.tablename))).all();

    statements.length = 0;
    const claimed = await claimBatch(engine, Outbound, { size: 10 });
    expect(claimed).toHaveLength(10);
    await reclaimExpired(engine, Outbound, { leaseSeconds: 60 });
    const planned = statements.filter((s) => /^(SELECT|UPDATE)/i.test(s.sql) && !/^SELECT .* WHERE .*"?id"?` ?IN/i.test(s.sql));
    expect(planned.length).toBeGreaterThanOrEqual(2);
    for (const statement of planned) {
      const rows = await engine.execute(sql.raw(explainer.prefix + inline(statement.sql, statement.params))).all();
      const plan = JSON.stringify(rows);
      expect(plan.length).toBeGreaterThan(2);
      if (process.env.SHOW_PLANS) process.stdout.write(`${plan}\n`);
      expect(explainer.fullScan(plan, Outbound.tablename), `${statement.sql}\n${plan}`).toBe(false);
    }
    const remaining = await engine.execute(select(Outbound, ["id"]).where({ status: "queued" })).all();
    expect(remaining).toHaveLength(190);
  });
});
