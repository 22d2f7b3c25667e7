import type { ModelClass, TableMeta } from "tempest-db-js";
import { tableMeta, ValidationError } from "tempest-db-js";
import type { QueueFields, QueueOptions, QueueStatuses } from "./queue-options.js";
import { defaultFields, defaultStatuses } from "./queue-options.js";

/** A model read as a queue: the resolved field names, status values and notification channel. */
export interface QueueTable {
  readonly model: ModelClass<any>;
  readonly meta: TableMeta;
  readonly f: QueueFields;
  readonly s: QueueStatuses;
  readonly channel: string;
}

const cache = new WeakMap<object, Map<string, QueueTable>>();

/** Resolves (and caches) the queue view of a model, failing early on a field the model lacks. */
export function queueTable(model: ModelClass<any>, options: QueueOptions = {}): QueueTable {
  // The defaults, by far the usual case, skip serializing the options (recipes look this up per batch).
  const key =
    options.fields === undefined && options.statuses === undefined && options.channel === undefined
      ? ""
      : JSON.stringify([options.fields ?? {}, options.statuses ?? {}, options.channel ?? ""]);
  let byOptions = cache.get(model);
  const cached = byOptions?.get(key);
  if (cached) return cached;
  const meta = tableMeta(model);
  const f: QueueFields = Object.freeze({ ...defaultFields, ...options.fields });
  for (const [role, field] of Object.entries(f)) {
    if (!meta.byField.has(field)) {
      throw new ValidationError(
        `${model.name || meta.name} has no field "${field}" for the queue's ${role}; map it with { fields: { ${role}: "yourField" } }`,
      );
    }
  }
  const s: QueueStatuses = Object.freeze({ ...defaultStatuses, ...options.statuses });
  const status = meta.byField.get(f.status);
  for (const value of Object.values(s)) {
    if (status?.enumValues && !status.enumValues.includes(value)) {
      throw new ValidationError(`${model.name || meta.name}.${f.status} has no value "${value}"; map it with { statuses: { ... } }`);
    }
  }
  const resolved: QueueTable = Object.freeze({ model, meta, f, s, channel: options.channel ?? `queue_${meta.name}` });
  if (!byOptions) {
    byOptions = new Map();
    cache.set(model, byOptions);
  }
  byOptions.set(key, resolved);
  return resolved;
}
