import type { Executor, ModelClass } from "tempest-db-js";
import { op, or, sql } from "tempest-db-js";
import { DEAD_REASONS } from "./dead-reasons.js";
import { dueAt } from "./due-at.js";
import { filterCondition } from "./message-filter.js";
import type { OperatorResult } from "./operator-batches.js";
import { changeInBatches, notifyDue } from "./operator-batches.js";
import type { DueOptions, MessageId, VerbOptions } from "./operator-verb.js";
import { filterOf } from "./operator-verb.js";
import { queueTable } from "./queue-table.js";

export interface RetryFailedOptions extends VerbOptions, DueOptions {
  /** Also bring back messages an operator cancelled (default false: a cancel stays a cancel). */
  readonly includeCancelled?: boolean;
}

/**
 * Puts failed (dead-lettered) messages back in the queue — all of them, or those the filter names —
 * due at once (or at `at`, or after `delaySeconds`), in batches. With a claim token each gets a
 * fresh budget of `maxAttempts` (and of `maxReclaims` with the dead-letter columns); without one
 * `attempts` is also the fence and never goes back, so such a message gets one more delivery
 * before it fails again. Its `lastError` and `attemptHistory` are kept. Returns what changed.
 */
export async function retryFailed<M extends ModelClass<any>>(
  db: Executor,
  model: M,
  options: RetryFailedOptions = {},
): Promise<OperatorResult<MessageId<M>>> {
  const verb = "retryFailed";
  const q = queueTable(model, options);
  const where = [
    { [q.f.status]: q.s.failed },
    ...filterCondition(q, filterOf(options, verb, ["at", "delaySeconds", "includeCancelled"]), verb),
  ];
  if (q.has.deadReason && options.includeCancelled !== true) {
    where.push(or({ [q.f.deadReason]: op.isNull() }, { [q.f.deadReason]: op.ne(DEAD_REASONS.cancelled) }));
  }
  const set: Record<string, unknown> = {
    [q.f.status]: q.s.queued,
    [q.f.nextAttemptAt]: dueAt(options, verb),
    [q.f.updatedAt]: sql.now(),
  };
  // A reset fence could match a claim from before the failure: only the token, which never goes back, allows it.
  if (q.has.claimToken) set[q.f.attempts] = 0;
  if (q.has.reclaims) set[q.f.reclaims] = 0;
  if (q.has.deadReason) set[q.f.deadReason] = null;
  const result = await changeInBatches(db, q, { where, set, leaves: true }, options, verb);
  await notifyDue(db, q, result.count);
  return result as OperatorResult<MessageId<M>>;
}
