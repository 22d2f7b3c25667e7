import type { Executor } from "tempest-db-js";
import { op, update } from "tempest-db-js";
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
 * and the `attempts` value the claim returned. A reclaimed row (queued again, or claimed anew with
 * a higher attempts) does not match, so a worker that outlived its lease changes nothing. Claims
 * sharing an attempts value go in one statement; a batch usually needs one.
 */
export async function fencedUpdate(
  db: Executor,
  q: QueueTable,
  claims: readonly Record<string, unknown>[],
  set: (group: readonly Record<string, unknown>[]) => Record<string, unknown>,
): Promise<SettleResult> {
  const byAttempts = new Map<unknown, Record<string, unknown>[]>();
  for (const claim of claims) {
    const attempts = claim[q.f.attempts];
    const group = byAttempts.get(attempts);
    if (group) group.push(claim);
    else byAttempts.set(attempts, [claim]);
  }
  const perStatement = Math.max(1, Math.floor(db.capabilities.maxParams / 3) - 8);
  let applied = 0;
  for (const [attempts, group] of byAttempts) {
    for (const part of chunk(group, perStatement)) {
      const statement = update(q.model)
        .set(set(part) as any)
        .where({ [q.f.id]: op.in(part.map((c) => c[q.f.id])), [q.f.status]: q.s.sending, [q.f.attempts]: attempts } as any);
      applied += await retryStatement(db, () => db.execute(statement).rowsAffected());
    }
  }
  return { applied, stale: claims.length - applied };
}
