import type { ColumnMeta, Executor, InferModel, ModelClass, PlaceholderKind } from "tempest-db-js";
import { cte, deleteFrom, exists, op, or, prepare, select, sql, UnsupportedFeatureError, update, ValidationError } from "tempest-db-js";
import type { ClaimOptions, ClaimPlan } from "./claim-batch.js";
import { candidates, claimBatch, claimPlan, claimSet, sortDue } from "./claim-batch.js";
import type { SettleResult } from "./fenced-update.js";
import { groupByToken } from "./fenced-update.js";
import type { QueueOptions } from "./queue-options.js";
import { onSentOf } from "./queue-options.js";
import type { QueueTable } from "./queue-table.js";
import { queueTable } from "./queue-table.js";
import { retryStatement } from "./retry-statement.js";
import { cachedPrepared } from "./statement-cache.js";
import { valueKind } from "./value-kind.js";

export interface SettleAndClaimResult<M extends ModelClass<any>> {
  /** What the settlement did: rows marked `sent` (or deleted), and claims that were no longer this worker's (stale). */
  readonly settled: SettleResult;
  /** The next batch, as `claimBatch` returns it (oldest first, with the new fence values). */
  readonly claimed: InferModel<M>[];
}

/**
 * Refuses, before anything is sent, a fused cycle that cannot be one statement: the dialect needs
 * data-modifying CTEs and a claim that is one locking UPDATE (PostgreSQL); the claim must be the
 * plain one (a priority walk or a fair claim takes several statements by design).
 */
export function checkFusable(
  db: Pick<Executor, "capabilities" | "dialectName">,
  q: QueueTable,
  options: ClaimOptions,
  where: string,
): void {
  const plan = claimPlan(db);
  if (!db.capabilities.dataModifyingCtes || plan.strategy !== "single" || plan.transaction) {
    throw new UnsupportedFeatureError(
      db.dialectName,
      `${where}: a fused settle-and-claim cycle (a data-modifying CTE with a locking claim in one statement)`,
      "Use the two-statement cycle — drain()/work() without { fused: true }, or markSent() then claimBatch() — which is as safe and, on an in-process or single-round-trip driver, as fast.",
    );
  }
  onSentOf(options as QueueOptions, where);
  if (options.perConsumer !== undefined)
    throw new ValidationError(
      `${where}: fused does not combine with perConsumer (a fair claim is two statements by design); drop one of them`,
    );
  if (q.has.priority)
    throw new ValidationError(
      `${where}: fused does not combine with a priority column (the claim walks the priorities present, one statement each); drain without { fused: true }`,
    );
}

/**
 * Marks `sent` (or, with `onSent: "delete"`, deletes) the claims delivered successfully and claims the next batch, in ONE statement and
 * so one round trip (PostgreSQL):
 *
 * ```sql
 * WITH settled AS (UPDATE queue SET status = 'sent', ... WHERE id = ANY($ids) AND status = 'sending' AND fence = $token RETURNING id),
 *      settled_count AS (SELECT count(*) AS n FROM settled),
 *      claimed AS (UPDATE queue SET status = 'sending', fence = fence + 1, ... WHERE id = ANY(ARRAY(
 *        SELECT id FROM queue WHERE <due> ORDER BY next_attempt_at LIMIT $size FOR UPDATE SKIP LOCKED)) RETURNING *)
 * SELECT ... FROM settled_count s LEFT JOIN claimed c ON c.id IS NOT NULL
 *   WHERE EXISTS (SELECT count(*) FROM claimed)
 * ```
 *
 * Every part of one statement reads the same snapshot: the claim sees the rows being settled as
 * `sending`, and so cannot take them, whatever the settlement makes of them; the two UPDATEs touch
 * disjoint rows. The always-true `WHERE EXISTS (SELECT count(*) FROM claimed)` is evaluated once,
 * before the join reads the settlement, so the claim runs first, on a fresh snapshot. Run second, it
 * saw as queued every row other workers had claimed since the statement began (the settlement can
 * wait on a row lock), and its `FOR UPDATE` locked each such row's new version before rechecking it
 * and dropping it, holding that lock to commit: the claiming worker's next settlement then waited
 * for this statement's commit. Under 4 pgbench clients that was 121-246 lock waits of 9-13 ms per
 * 2,000 statements (BENCHMARKS.md, "Round 3, point 5, why the fused cycle is slow"). The settlement
 * is fenced exactly as `markSent`'s (status `sending` and the claim's token), and the claim is
 * `claimBatch`'s (same candidates, same assignments, SKIP LOCKED). With `onSent: "delete"` the
 * settlement is `DELETE FROM queue WHERE id = ANY($ids) AND status = 'sending' AND fence = $token
 * RETURNING id`, fenced the same way as `fencedDelete`. Failed deliveries are not settled
 * here: requeue / markFailed them first, with their backoff and error.
 *
 * MySQL/MariaDB and SQLite have no writes inside WITH: refused with an `UnsupportedFeatureError`
 * naming the way out (markSent then claimBatch). So are a priority column and `perConsumer`, whose
 * claims are several statements.
 */
export async function settleAndClaim<M extends ModelClass<any>>(
  db: Executor,
  model: M,
  sent: readonly object[],
  options: ClaimOptions,
): Promise<SettleAndClaimResult<M>> {
  const size = options.size;
  if (!Number.isSafeInteger(size) || size < 1)
    throw new ValidationError(`settleAndClaim: size must be a positive integer, got ${valueKind(size)}`);
  const q = queueTable(model, options);
  checkFusable(db, q, options, "settleAndClaim");
  if (sent.length === 0) return { settled: { applied: 0, stale: 0 }, claimed: await claimBatch(db, model, options) };
  const groups = groupByToken(q, sent as readonly Record<string, unknown>[]);
  const statement = fusedStatement(db, q, claimPlan(db), groups.size, options);
  const values: Record<string, unknown> = {};
  let i = 0;
  for (const [token, claims] of groups) {
    values[`ids${i}`] = claims.map((claim) => claim[q.f.id]);
    values[`token${i++}`] = token;
  }
  const rows = (await retryStatement(db, () => statement.execute(values as never, db).all())) as {
    s: { n: number };
    c: Record<string, unknown> | null;
  }[];
  const applied = Number(rows[0]?.s.n ?? 0);
  const claimed: Record<string, unknown>[] = [];
  for (const row of rows) if (row.c !== null) claimed.push(row.c);
  return { settled: { applied, stale: sent.length - applied }, claimed: sortDue(q, claimed) as InferModel<M>[] };
}

/**
 * The fused statement for `groups` token values, prepared once per engine and shape (queue table,
 * lock, size, consumers, number of token groups): a batch binds its ids (one array per group,
 * `id = ANY($ids)`) and tokens, and skips building and compiling.
 */
function fusedStatement(db: Executor, q: QueueTable, plan: ClaimPlan, groups: number, options: ClaimOptions) {
  const lock = plan.lock === undefined ? "none" : plan.lock.skipLocked ? "skip" : "wait";
  const consumer = options.consumer === undefined ? "" : JSON.stringify(options.consumer);
  const onSent = onSentOf(options as QueueOptions, "settleAndClaim");
  return cachedPrepared(db.engineKey, q, `fused:${onSent}:${lock}:${options.size}:${consumer}:${groups}`, () => {
    const spec: Record<string, PlaceholderKind> = {};
    const idKind = (q.meta.byField.get(q.f.id) as ColumnMeta).kind;
    const fenceKind = (q.meta.byField.get(q.fence) as ColumnMeta).kind;
    for (let i = 0; i < groups; i++) {
      spec[`ids${i}`] = `${idKind}[]`;
      spec[`token${i}`] = fenceKind;
    }
    return prepare(db, spec, (p) => {
      const fence = Array.from({ length: groups }, (_, i) => ({ [q.f.id]: op.in(p[`ids${i}`] as any), [q.fence]: p[`token${i}`] }));
      // A batch of fresh messages shares one token: one `id = ANY($ids) AND fence = $token`.
      const fenced = fence.length === 1 ? fence[0] : or(...(fence as [Record<string, unknown>, ...Record<string, unknown>[]]));
      const sending = { [q.f.status]: q.s.sending };
      const settling: any =
        onSent === "delete" ? deleteFrom(q.model) : update(q.model).set({ [q.f.status]: q.s.sent, [q.f.updatedAt]: sql.now() } as any);
      const settlement = settling.where(sending).where(fenced).returning([q.f.id]);
      const settled = cte("tempest_settled", settlement as any);
      const counted = cte(
        "tempest_settled_count",
        select(settled as any).columns((h: any) => ({ n: h.count() })),
      );
      const claimed = cte(
        "tempest_claimed",
        update(q.model)
          .set(claimSet(q) as any)
          .where({ [q.f.id]: op.in(candidates(q, plan, options, undefined).asSubquery(q.f.id as any)) } as any)
          .returning(),
      );
      // Claim first: `EXISTS (SELECT count(*) FROM tempest_claimed)` is always true (an aggregate
      // returns one row) and is evaluated once, before the join reads the settlement (doc comment above).
      const claimFirst = exists((select(claimed as any) as any).columns((h: any) => ({ k: h.count() })));
      return (select(counted as any, "s") as any).leftJoin(claimed, "c", { [`c.${q.f.id}`]: op.isNull(false) }).where(claimFirst);
    });
  });
}
