import type { ModelClass, TableMeta } from "tempest-db-js";
import { tableMeta, ValidationError } from "tempest-db-js";
import type { OptionalField, QueueFields, QueueOptions, QueueStatuses } from "./queue-options.js";
import { defaultFields, defaultStatuses, optionalFields } from "./queue-options.js";

/** A model read as a queue: the resolved field names, status values and notification channel. */
export interface QueueTable {
  readonly model: ModelClass<any>;
  readonly meta: TableMeta;
  /** Field names; an optional field the model lacks is still named here, but see `has`. */
  readonly f: QueueFields;
  readonly s: QueueStatuses;
  readonly channel: string;
  /** The optional fields the model has (each switches a feature on). */
  readonly has: Readonly<Record<OptionalField, boolean>>;
  /** The field settlements and heartbeats are fenced by: `claimToken` where the model has it, else `attempts`. */
  readonly fence: string;
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
  const optional = new Set<string>(optionalFields);
  const has = {} as Record<OptionalField, boolean>;
  for (const [role, field] of Object.entries(f)) {
    const present = meta.byField.has(field);
    if (optional.has(role)) {
      // An optional field is used when the model has it; one named explicitly must exist.
      if (!present && options.fields?.[role as OptionalField] !== undefined) {
        throw new ValidationError(`${model.name || meta.name} has no field "${field}" for the queue's ${role}`);
      }
      has[role as OptionalField] = present;
      continue;
    }
    if (!present) {
      throw new ValidationError(
        `${model.name || meta.name} has no field "${field}" for the queue's ${role}; map it with { fields: { ${role}: "yourField" } }`,
      );
    }
  }
  const priority = has.priority ? meta.byField.get(f.priority) : undefined;
  if (priority && (priority.kind !== "integer" || !priority.notNull)) {
    // A NULL priority would sort first on some databases and last on others, and the claim walks the
    // priorities present with `priority > previous`, which never reaches NULL.
    throw new ValidationError(`${model.name || meta.name}.${f.priority}: the queue's priority must be column.integer().notNull()`);
  }
  const s: QueueStatuses = Object.freeze({ ...defaultStatuses, ...options.statuses });
  const status = meta.byField.get(f.status);
  for (const value of Object.values(s)) {
    if (status?.enumValues && !status.enumValues.includes(value)) {
      throw new ValidationError(`${model.name || meta.name}.${f.status} has no value "${value}"; map it with { statuses: { ... } }`);
    }
  }
  const resolved: QueueTable = Object.freeze({
    model,
    meta,
    f,
    s,
    channel: options.channel ?? `queue_${meta.name}`,
    has: Object.freeze(has),
    fence: has.claimToken ? f.claimToken : f.attempts,
  });
  if (!byOptions) {
    byOptions = new Map();
    cache.set(model, byOptions);
  }
  byOptions.set(key, resolved);
  return resolved;
}
