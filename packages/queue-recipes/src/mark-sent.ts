import type { Executor, ModelClass } from "tempest-db-js";
import { sql } from "tempest-db-js";
import type { SettleResult } from "./fenced-update.js";
import { fencedUpdate } from "./fenced-update.js";
import type { QueueOptions } from "./queue-options.js";
import { queueTable } from "./queue-table.js";

/** Marks claimed messages `sent` — only those still held by this claim (see `fencedUpdate`). */
export function markSent(
  db: Executor,
  model: ModelClass<any>,
  claims: readonly object[],
  options: QueueOptions = {},
): Promise<SettleResult> {
  const q = queueTable(model, options);
  return fencedUpdate(db, q, claims as Record<string, unknown>[], () => ({ [q.f.status]: q.s.sent, [q.f.updatedAt]: sql.now() }));
}
