import type { Executor, ModelClass } from "tempest-db-js";
import { sql, update, ValidationError } from "tempest-db-js";
import type { QueueOptions } from "./queue-options.js";
import { queueTable } from "./queue-table.js";
import { retryStatement } from "./retry-statement.js";

export interface ReclaimOptions extends QueueOptions {
  /** A claim older than this many seconds (by `updatedAt`, on the database clock) is presumed dead. */
  readonly leaseSeconds: number;
}

/**
 * Puts messages left in `sending` past their lease — their worker crashed, hung or lost its
 * connection — back to `queued`, due at once. `attempts` is left as it is: the next claim adds one,
 * so the old worker's fencing token no longer matches and its late completion changes nothing.
 * Returns how many messages were reclaimed.
 */
export async function reclaimExpired(db: Executor, model: ModelClass<any>, options: ReclaimOptions): Promise<number> {
  const { leaseSeconds } = options;
  if (typeof leaseSeconds !== "number" || !(leaseSeconds >= 0))
    throw new ValidationError("reclaimExpired: leaseSeconds must be a number ≥ 0");
  const q = queueTable(model, options);
  const statement = update(q.model)
    .set({ [q.f.status]: q.s.queued, [q.f.nextAttemptAt]: sql.now(), [q.f.updatedAt]: sql.now() } as any)
    .where({ [q.f.status]: q.s.sending, [q.f.updatedAt]: { lt: sql.nowPlusSeconds(-leaseSeconds) } } as any);
  return retryStatement(db, () => db.execute(statement).rowsAffected());
}
