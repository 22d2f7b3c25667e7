import type { Executor } from "tempest-db-js";
import { op, select, update } from "tempest-db-js";
import { chunk } from "./chunk.js";
import type { QueueTable } from "./queue-table.js";
import { retryStatement } from "./retry-statement.js";

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
 * `set` gives the assignments per group of claims; an object instead is the same for every claim
 * and every call (made once per queue table, see `cachedStatement`): its UPDATE ... SET is then
 * built once too, and only the fence's WHERE is built per call.
 */
export async function fencedUpdate(
  db: Executor,
  q: QueueTable,
  claims: readonly Record<string, unknown>[],
  set: Readonly<Record<string, unknown>> | ((group: readonly Record<string, unknown>[]) => Record<string, unknown>),
  lost?: Record<string, unknown>[],
  perClaim = false,
): Promise<SettleResult> {
  const byToken = new Map<unknown, Record<string, unknown>[]>();
  for (const claim of claims) {
    const token = claim[q.fence];
    const group = byToken.get(token);
    if (group) group.push(claim);
    else byToken.set(token, [claim]);
  }
  // perClaim: assignments that differ per claim and cannot travel in a CASE (a json value).
  const perStatement = perClaim ? 1 : Math.max(1, Math.floor(db.capabilities.maxParams / 3) - 8);
  let applied = 0;
  for (const [token, group] of byToken) {
    for (const part of chunk(group, perStatement)) {
      const where = { [q.f.id]: op.in(part.map((c) => c[q.f.id])), [q.f.status]: q.s.sending, [q.fence]: token };
      const statement = (typeof set === "function" ? update(q.model).set(set(part) as any) : updateSetting(q, set)).where(where as any);
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

const settingOnce = new WeakMap<object, ReturnType<typeof update>>();

/** `UPDATE <queue table> SET <set>`, built once per constant assignments object (builders are immutable). */
function updateSetting(q: QueueTable, set: Readonly<Record<string, unknown>>) {
  let statement = settingOnce.get(set);
  if (statement === undefined) settingOnce.set(set, (statement = update(q.model).set(set as any)));
  return statement;
}
