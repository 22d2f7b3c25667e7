import type { Index, ModelClass } from "tempest-db-js";
import { index, op, uniqueIndex } from "tempest-db-js";
import type { QueueOptions } from "./queue-options.js";
import { defaultFields } from "./queue-options.js";

/** Whether the model declares a field, read from an instance: the model's metadata may not exist yet (see below). */
function declares(model: ModelClass<any>, field: string): boolean {
  return Object.hasOwn(new (model as unknown as new () => object)(), field);
}

/**
 * The indexes the recipes rely on, for a model's `static indexes` (or created by
 * `ensureQueueSchema`):
 * - `<table>_due`: (status, nextAttemptAt) — the claim is a range scan in due order, no sort;
 * - `<table>_idempotency`: unique (consumer, idempotencyKey) where the key is not null — the arbiter
 *   of idempotent enqueues. Where the dialect has no partial indexes the predicate is dropped, which
 *   enforces the same rule because NULL keys never collide;
 * - `<table>_lease`: (status, updatedAt) — finding expired claims without a scan;
 * - `<table>_priority`, where the model has a priority: (status, priority, nextAttemptAt) — the
 *   claim reads each priority's due messages as one range, so messages of a higher priority that
 *   are not due yet are never read past.
 */
export function queueIndexes(model: ModelClass<any>, options: QueueOptions = {}): Index<any>[] {
  // Reads only the statics and the options, never the model's metadata: this runs inside the
  // model's own `static indexes = queueIndexes(Model)`, before the class is complete, and reading
  // (and caching) its metadata then would record a table without these very indexes.
  const f = { ...defaultFields, ...options.fields };
  const t = model.tablename;
  return [
    index<any>(`${t}_due`, [f.status, f.nextAttemptAt]),
    uniqueIndex<any>(`${t}_idempotency`, [f.consumer, f.idempotencyKey]).where({ [f.idempotencyKey]: op.isNull(false) }),
    index<any>(`${t}_lease`, [f.status, f.updatedAt]),
    ...(declares(model, f.priority) ? [index<any>(`${t}_priority`, [f.status, f.priority, f.nextAttemptAt])] : []),
  ];
}
