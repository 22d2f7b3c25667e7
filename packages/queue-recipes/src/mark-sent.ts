import type { Executor, ModelClass } from "tempest-db-js";
import { sql } from "tempest-db-js";
import { fencedDelete } from "./fenced-delete.js";
import type { SettleResult } from "./fenced-update.js";
import { constantSet, fencedUpdate } from "./fenced-update.js";
import type { QueueOptions } from "./queue-options.js";
import { onSentOf } from "./queue-options.js";
import { queueTable } from "./queue-table.js";

/**
 * Marks claimed messages `sent` — only those still held by this claim (see `fencedUpdate`). With
 * `onSent: "delete"` it deletes them instead, fenced the same way (see `fencedDelete`).
 */
export function markSent(
  db: Executor,
  model: ModelClass<any>,
  claims: readonly object[],
  options: QueueOptions = {},
): Promise<SettleResult> {
  const q = queueTable(model, options);
  let onSent: "mark" | "delete";
  try {
    onSent = onSentOf(options, "markSent");
  } catch (error) {
    return Promise.reject(error);
  }
  if (onSent === "delete") return fencedDelete(db, q, claims as Record<string, unknown>[]);
  const set = constantSet(q, "sentSet", () => ({ [q.f.status]: q.s.sent, [q.f.updatedAt]: sql.now() }));
  return fencedUpdate(db, q, claims as Record<string, unknown>[], set);
}
