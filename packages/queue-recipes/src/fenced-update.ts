import type { Executor } from "tempest-db-js";
import { op, select, update } from "tempest-db-js";
import { chunk } from "./chunk.js";
import type { QueueTable } from "./queue-table.js";
import { retryStatement } from "./retry-statement.js";
import { cachedStatement } from "./statement-cache.js";

/** What a fenced update did: rows changed, and claims that were no longer this worker's. */
export interface SettleResult {
  readonly applied: number;
  readonly stale: number;
}

/**
 * Updates claimed rows only while they are still the claim this worker holds: status `sending`
 * and the fence value (`claimToken`, or `attempts` without one) the claim returned. A reclaimed row
 * (queued again, or claimed anew with a higher token) does not match, so a worker that outlived its
 * lease changes nothing. Claims sharing a token value go in one statement; a batch usually needs one.
 *
 * With `perClaim`, each claim is a statement of its own (for values a CASE cannot carry).
 *
 * With `lost`, the claims that did not match are collected there (read back where the UPDATE has
 * no RETURNING), for a heartbeat that must tell which deliveries to stop.
 *
 * `set` gives the assignments per group of claims, or is an `UPDATE ... SET` the same for every
 * claim and every call (`constantSet`, built once per queue table): then only the fence's WHERE is
 * built per call.
 */
export async function fencedUpdate(
  db: Executor,
  q: QueueTable,
  claims: readonly Record<string, unknown>[],
  set: ConstantSet | ((group: readonly Record<string, unknown>[]) => Record<string, unknown>),
  lost?: Record<string, unknown>[],
  perClaim = false,
): Promise<SettleResult> {
  const byToken = groupByToken(q, claims);
  // perClaim: assignments that differ per claim and cannot travel in a CASE (a json value).
  const perStatement = perClaim ? 1 : Math.max(1, Math.floor(db.capabilities.maxParams / 3) - 8);
  let applied = 0;
  for (const [token, group] of byToken) {
    for (const part of chunk(group, perStatement)) {
      const where = { [q.f.id]: op.in(part.map((c) => c[q.f.id])), [q.f.status]: q.s.sending, [q.fence]: token };
      const statement = (typeof set === "function" ? update(q.model).set(set(part) as any) : set).where(where as any);
      if (!lost) {
        applied += await retryStatement(db, () => db.execute(statement).rowsAffected());
        continue;
      }
      let kept: Set<unknown>;
      if (db.capabilities.returningUpdate) {
        const rows = await retryStatement(db, () => db.execute(statement.returning([q.f.id] as any)).all());
        kept = new Set(rows.map((r) => (r as Record<string, unknown>)[q.f.id]));
      } else {
        const count = await retryStatement(db, () => db.execute(statement).rowsAffected());
        if (count === part.length) kept = new Set(part.map((c) => c[q.f.id]));
        else {
          // Read back which rows still carry this claim (only this claim could have written them).
          const rows = await db.execute(select(q.model, [q.f.id] as any).where(where as any)).all();
          kept = new Set(rows.map((r) => (r as Record<string, unknown>)[q.f.id]));
        }
      }
      applied += kept.size;
      for (const c of part) if (!kept.has(c[q.f.id])) lost.push(c);
    }
  }
  return { applied, stale: claims.length - applied };
}

/** The claims grouped by the fence value (claim token) they carry: a batch of fresh messages is one group. */
export function groupByToken<C extends Record<string, unknown>>(q: QueueTable, claims: readonly C[]): Map<unknown, C[]> {
  const groups = new Map<unknown, C[]>();
  for (const claim of claims) {
    const group = groups.get(claim[q.fence]);
    if (group) group.push(claim);
    else groups.set(claim[q.fence], [claim]);
  }
  return groups;
}

/** An `UPDATE <queue table> SET ...` whose assignments never change: see `constantSet`. */
export type ConstantSet = ReturnType<typeof update>;

/** `UPDATE <queue table> SET <assignments>`, built once per queue table and `key` (builders are immutable). */
export function constantSet(q: QueueTable, key: string, assignments: () => Record<string, unknown>): ConstantSet {
  return cachedStatement(q, key, () => update(q.model).set(assignments() as any) as ConstantSet);
}
