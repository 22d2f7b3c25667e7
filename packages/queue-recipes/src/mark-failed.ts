import type { Executor, ModelClass } from "tempest-db-js";
import { sql } from "tempest-db-js";
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
  return fencedUpdate(db, q, claims as Record<string, unknown>[], (group) => ({
    [q.f.status]: q.s.failed,
    [q.f.updatedAt]: sql.now(),
    ...failureSet(q, group, options.errorOf),
  }));
}
