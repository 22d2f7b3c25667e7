import type { Engine, ModelClass } from "tempest-db-js";
import { createEngine, formatLiteral, op, select, sql, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, claimPlan, enqueue, reclaimExpired } from "../src/index.js";
import { freshQueue, freshTokenQueue } from "./support/fresh-queue.js";
import { targets } from "./support/targets.js";

/**
 * The recipes build their counters with the typed builders (`fn.add(col(...), fn.lit(1))`), no SQL
 * text. Their statements must stay the ones the guide and the benches were measured with: the same
 * text as the `sql.expr` form they replaced, hence the same plan. The old form is built here as it
 * was, and both are compared: text, then each server's EXPLAIN of it with the same values.
 */
const explain: Record<string, (statement: string) => string> = {
  PostgreSQL: (s) => `EXPLAIN (COSTS OFF) ${s}`,
  MySQL: (s) => `EXPLAIN FORMAT=JSON ${s}`,
  SQLite: (s) => `EXPLAIN QUERY PLAN ${s}`,
};

function inline(statement: string, params: readonly unknown[]): string {
  let i = 0;
  return statement.replace(/\$(\d+)|\?/g, (_, n: string | undefined) => formatLiteral(params[n ? Number(n) - 1 : i++], false));
}

/** The claim as the recipes wrote it with `sql.expr` before the typed builders (main at 66effa0). */
function oldClaim(engine: Engine, model: ModelClass<any>, fence: string, ids: readonly unknown[] | undefined) {
  const set = { status: "sending", [fence]: sql.expr`${sql.ref(fence)} + 1`, updatedAt: sql.now() };
  const candidates = select(model, ["id"] as any)
    .where({ status: "queued", nextAttemptAt: op.lte(sql.nowPlusSeconds(0.001)) } as any)
    .orderBy("nextAttemptAt" as any)
    .limit(10);
  const plan = claimPlan(engine);
  const locked = plan.lock ? candidates.forUpdate(plan.lock) : candidates;
  if (ids !== undefined) {
    return update(model)
      .set(set as any)
      .where({ id: op.in(ids as unknown[]) } as any);
  }
  return update(model)
    .set(set as any)
    .where({ id: op.in(locked.asSubquery("id" as any)) } as any)
    .returning();
}

describe.each(targets)("the claim's SQL and plan on $name", (target) => {
  let engine: Engine;
  const seen: { sql: string; params: readonly unknown[] }[] = [];
  beforeAll(() => {
    engine = createEngine(target.url, { logParams: true, onQuery: (e) => seen.push({ sql: e.sql, params: e.params ?? [] }) });
  });
  afterAll(async () => {
    await engine.close();
  });

  for (const [label, fresh, fence] of [
    ["the guide's model (attempts is the fence)", freshQueue, "attempts"],
    ["with a claim token", freshTokenQueue, "claimToken"],
  ] as const) {
    it(`${label}: same text and same plan as the sql.expr claim`, async () => {
      const { Outbound } = await fresh(engine, fence === "attempts" ? "claimsql" : "claimsql_token");
      await enqueue(
        engine,
        Outbound,
        Array.from({ length: 300 }, (_, i) => ({ consumer: `c${i % 3}`, idempotencyKey: `k${i}` })),
      );
      seen.length = 0;
      const claimed = await claimBatch(engine, Outbound, { size: 10 });
      expect(claimed).toHaveLength(10);
      for (const row of claimed) expect(row[fence as "attempts"]).toBe(1);
      const claim = seen.find((s) => s.sql.startsWith("UPDATE"));
      expect(claim).toBeDefined();
      const single = claimPlan(engine).strategy === "single";
      const old = engine.compile(oldClaim(engine, Outbound, fence, single ? undefined : claimed.map((r) => r.id)));
      expect(claim?.sql).toBe(old.sql);
      const quoted =
        target.name === "MySQL"
          ? `\`${fence === "attempts" ? "attempts" : "claim_token"}\``
          : `"${fence === "attempts" ? "attempts" : "claim_token"}"`;
      expect(claim?.sql).toContain(`${quoted} = ${quoted} + 1`);

      // The plans, with the values of the claim just run (the old statement's are the same values).
      expect(old.params).toEqual(claim?.params);
      const planOf = async (text: string) =>
        JSON.stringify(await engine.transaction(async (tx) => tx.execute(sql.raw(explain[target.name]?.(text) ?? "")).all()));
      const fresh2 = await planOf(inline(claim?.sql ?? "", claim?.params ?? []));
      expect(fresh2.length).toBeGreaterThan(2);
      expect(fresh2).toBe(await planOf(inline(old.sql, old.params)));

      if (fence === "claimToken") {
        // The reclaim advances the token with the same builders: `"claim_token" + 1` too.
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen.length = 0;
        await reclaimExpired(engine, Outbound, { leaseSeconds: 0 });
        const reclaim = seen.find((s) => s.sql.startsWith("UPDATE"));
        expect(reclaim?.sql).toContain(`${quoted} = ${quoted} + 1`);
        const rows = await engine.execute(select(Outbound).where({ id: op.in(claimed.map((r) => r.id)) } as any)).all();
        for (const row of rows as Record<string, unknown>[]) expect([row.status, row.claimToken, row.attempts]).toEqual(["queued", 2, 0]);
      }
    });
  }
});
