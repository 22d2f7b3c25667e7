import type { Executor, ModelClass } from "tempest-db-js";
import { deleteFrom, op, select, sql, ValidationError } from "tempest-db-js";
import type { QueueOptions } from "./queue-options.js";
import { queueTable } from "./queue-table.js";
import { retryStatement } from "./retry-statement.js";

export interface PurgeOptions extends QueueOptions {
  /** Only rows settled (by `updatedAt`) at least this many seconds ago. */
  readonly olderThanSeconds: number;
  /** Which settled states to delete (default: only `sent`; failed rows are usually kept for inspection). */
  readonly include?: readonly ("sent" | "failed")[];
  /** Rows per DELETE, so that a large purge never holds many locks at once (default 1000). */
  readonly batchSize?: number;
}

/**
 * Deletes settled messages older than a cutoff, in batches, and returns how many. Keeping the table
 * to what is in flight keeps the claim's index small. A deduplicated key becomes usable again once
 * its row is purged: keep rows at least as long as producers may retry.
 */
export async function purgeSettled(db: Executor, model: ModelClass<any>, options: PurgeOptions): Promise<number> {
  const { olderThanSeconds } = options;
  if (typeof olderThanSeconds !== "number" || !(olderThanSeconds >= 0))
    throw new ValidationError("purgeSettled: olderThanSeconds must be a number ≥ 0");
  const q = queueTable(model, options);
  const statuses = (options.include ?? ["sent"]).map((s) => q.s[s]);
  const batchSize = options.batchSize ?? 1000;
  // Ids first, then a DELETE by id: portable (no LIMIT in a subquery on MySQL), and each DELETE
  // touches only rows already chosen through the (status, updatedAt) index.
  const candidates = select(q.model, [q.f.id] as any)
    .where({ [q.f.status]: op.in(statuses), [q.f.updatedAt]: op.lt(sql.nowPlusSeconds(-olderThanSeconds)) } as any)
    .limit(batchSize);
  let total = 0;
  for (;;) {
    const ids = ((await db.execute(candidates).all()) as Record<string, unknown>[]).map((r) => r[q.f.id]);
    if (ids.length === 0) return total;
    const statement = deleteFrom(q.model).where({ [q.f.id]: op.in(ids), [q.f.status]: op.in(statuses) } as any);
    total += await retryStatement(db, () => db.execute(statement).rowsAffected());
    if (ids.length < batchSize) return total;
  }
}
