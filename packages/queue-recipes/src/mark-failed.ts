import type { Executor, ModelClass } from "tempest-db-js";
import { sql } from "tempest-db-js";
import type { SettleResult } from "./fenced-update.js";
import { fencedUpdate } from "./fenced-update.js";
import type { QueueOptions } from "./queue-options.js";
import { queueTable } from "./queue-table.js";

/** Marks claimed messages `failed` for good — only those still held by this claim. */
export function markFailed(
  db: Executor,
  model: ModelClass<any>,
  claims: readonly object[],
  options: QueueOptions = {},
): Promise<SettleResult> {
  const q = queueTable(model, options);
  return fencedUpdate(db, q, claims as Record<string, unknown>[], () => ({ [q.f.status]: q.s.failed, [q.f.updatedAt]: sql.now() }));
}
