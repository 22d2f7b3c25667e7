import type { Executor, ModelClass } from "tempest-db-js";
import { dueAt } from "./due-at.js";
import { filterCondition } from "./message-filter.js";
import type { OperatorResult } from "./operator-batches.js";
import { changeInBatches, notifyDue } from "./operator-batches.js";
import type { DueOptions, MessageId, VerbOptions } from "./operator-verb.js";
import { filterOf, requireFilter } from "./operator-verb.js";
import { queueTable } from "./queue-table.js";

export interface RescheduleOptions extends VerbOptions, DueOptions {}

/**
 * Sets a new due time (`nextAttemptAt`) on queued messages: `at`, or `delaySeconds` from now on the
 * database clock. Only messages still `queued` when the statement runs are moved, never one being
 * delivered. Earlier or later both work: an urgent message can be made due now. Returns what changed.
 */
export async function reschedule<M extends ModelClass<any>>(
  db: Executor,
  model: M,
  options: RescheduleOptions,
): Promise<OperatorResult<MessageId<M>>> {
  const verb = "reschedule";
  const q = queueTable(model, options);
  const filter = filterOf(options, verb, ["at", "delaySeconds"]);
  requireFilter(filter, verb);
  const where = [{ [q.f.status]: q.s.queued }, ...filterCondition(q, filter, verb)];
  const set = { [q.f.nextAttemptAt]: dueAt(options, verb, true) };
  const result = await changeInBatches(db, q, { where, set, leaves: false }, options, verb);
  await notifyDue(db, q, result.count);
  return result as OperatorResult<MessageId<M>>;
}
