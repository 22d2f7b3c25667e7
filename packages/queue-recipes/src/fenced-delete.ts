import type { Executor } from "tempest-db-js";
import { deleteFrom, op } from "tempest-db-js";
import { chunk } from "./chunk.js";
import type { SettleResult } from "./fenced-update.js";
import type { QueueTable } from "./queue-table.js";
import { retryStatement } from "./retry-statement.js";

/**
 * Deletes claimed rows only while they are still the claim this worker holds — status `sending` and
 * the fence value the claim returned, the same condition as `fencedUpdate` — so a worker that outlived
 * its lease deletes nothing another worker now holds. Claims sharing a token go in one statement.
 */
export async function fencedDelete(db: Executor, q: QueueTable, claims: readonly Record<string, unknown>[]): Promise<SettleResult> {
  const byToken = new Map<unknown, unknown[]>();
  for (const claim of claims) {
    const token = claim[q.fence];
    const ids = byToken.get(token);
    if (ids) ids.push(claim[q.f.id]);
    else byToken.set(token, [claim[q.f.id]]);
  }
  const perStatement = Math.max(1, db.capabilities.maxParams - 8);
  let applied = 0;
  for (const [token, ids] of byToken) {
    for (const part of chunk(ids, perStatement)) {
      const statement = deleteFrom(q.model).where({ [q.f.id]: op.in(part), [q.f.status]: q.s.sending, [q.fence]: token } as any);
      applied += await retryStatement(db, () => db.execute(statement).rowsAffected());
    }
  }
  return { applied, stale: claims.length - applied };
}
