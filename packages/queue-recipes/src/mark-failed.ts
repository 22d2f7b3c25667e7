import type { Executor, ModelClass } from "tempest-db-js";
import { sql } from "tempest-db-js";
import { DEAD_REASONS } from "./dead-reasons.js";
import { failureSet } from "./failure-set.js";
import type { SettleResult } from "./fenced-update.js";
import { fencedUpdate } from "./fenced-update.js";
import type { QueueOptions } from "./queue-options.js";
import { queueTable } from "./queue-table.js";

export interface MarkFailedOptions extends QueueOptions {
  /**
   * The error each claim failed with, recorded in `lastError` / `lastErrorAt` where the table has
   * them. (With a claim token, marking failed counts one more failure in `attempts`.)
   */
  readonly errorOf?: (claim: object) => unknown;
}

/** Marks claimed messages `failed` for good — only those still held by this claim. */
export function markFailed(
  db: Executor,
  model: ModelClass<any>,
  claims: readonly object[],
  options: MarkFailedOptions = {},
): Promise<SettleResult> {
  const q = queueTable(model, options);
  return fencedUpdate(
    db,
    q,
    claims as Record<string, unknown>[],
    (group) => ({
      [q.f.status]: q.s.failed,
      [q.f.updatedAt]: sql.now(),
      ...failureSet(q, group, options.errorOf),
      // Dead for having failed (as opposed to a poison message's lease expiries, or a cancel).
      ...(q.has.deadReason ? { [q.f.deadReason]: DEAD_REASONS.failed } : {}),
    }),
    undefined,
    // Each message has a history of its own, and a json value cannot be chosen in a CASE.
    q.has.attemptHistory,
  );
}
