import type { Executor, ModelClass } from "tempest-db-js";
import { sql, ValidationError } from "tempest-db-js";
import { DEAD_REASONS } from "./dead-reasons.js";
import { errorText } from "./failure-set.js";
import { filterCondition } from "./message-filter.js";
import type { OperatorResult } from "./operator-batches.js";
import { changeInBatches } from "./operator-batches.js";
import type { MessageId, VerbOptions } from "./operator-verb.js";
import { filterOf, requireFilter } from "./operator-verb.js";
import { queueTable } from "./queue-table.js";
import { valueKind } from "./value-kind.js";

export interface CancelQueuedOptions extends VerbOptions {
  /** Why, kept in `lastError` as `cancelled: <reason>` where the table has the column. */
  readonly reason?: string;
}

/**
 * Cancels queued messages: they go to the dead-letter state (`failed`, `deadReason` "cancelled"),
 * are never claimed, and `retryFailed` leaves them alone unless asked. Only a message that is
 * `queued` when the statement runs is cancelled — never one a worker holds (`sending`), which is
 * left to finish, nor one already settled: the status is the fence, re-checked under the row's lock.
 * Needs the `deadReason` column (the dead-letter feature): without it a cancelled message could
 * not be told from a failed one, and a later retry of the failed would deliver it.
 */
export async function cancelQueued<M extends ModelClass<any>>(
  db: Executor,
  model: M,
  options: CancelQueuedOptions,
): Promise<OperatorResult<MessageId<M>>> {
  const verb = "cancelQueued";
  const q = queueTable(model, options);
  if (!q.has.deadReason)
    throw new ValidationError(
      `${verb}: needs the ${q.f.deadReason} column to tell a cancelled message from a failed one; add the dead-letter columns with withQueueFeatures(Model) and a migration`,
    );
  const filter = filterOf(options, verb, ["reason"]);
  requireFilter(filter, verb);
  const where = [{ [q.f.status]: q.s.queued }, ...filterCondition(q, filter, verb)];
  const set: Record<string, unknown> = {
    [q.f.status]: q.s.failed,
    [q.f.deadReason]: DEAD_REASONS.cancelled,
    [q.f.updatedAt]: sql.now(),
  };
  if (options.reason !== undefined) {
    if (typeof options.reason !== "string") throw new ValidationError(`${verb}: reason must be a string, got ${valueKind(options.reason)}`);
    if (q.has.lastError) set[q.f.lastError] = errorText(`cancelled: ${options.reason}`);
  }
  return (await changeInBatches(db, q, { where, set, leaves: true }, options, verb)) as OperatorResult<MessageId<M>>;
}
