import type { Index, ModelClass } from "tempest-db-js";
import { index, uniqueIndex } from "tempest-db-js";
import type { QueueOptions } from "./queue-options.js";
import { queueTable } from "./queue-table.js";

/**
 * The indexes the recipes rely on, for a model's `static indexes` (or created by
 * `ensureQueueSchema`):
 * - `<table>_due`: (status, nextAttemptAt) — the claim is a range scan in due order, no sort;
 * - `<table>_idempotency`: unique (consumer, idempotencyKey) where the key is not null — the arbiter
 *   of idempotent enqueues. Where the dialect has no partial indexes the predicate is dropped, which
 *   enforces the same rule because NULL keys never collide;
 * - `<table>_lease`: (status, updatedAt) — finding expired claims without a scan.
 */
export function queueIndexes(model: ModelClass<any>, options: QueueOptions = {}): Index<any>[] {
  const { meta, f } = queueTable(model, options);
  const t = meta.name;
  return [
    index<any>(`${t}_due`, [f.status, f.nextAttemptAt]),
    uniqueIndex<any>(`${t}_idempotency`, [f.consumer, f.idempotencyKey]).where({ [f.idempotencyKey]: { isNull: false } }),
    index<any>(`${t}_lease`, [f.status, f.updatedAt]),
  ];
}
