import { and, op, ValidationError } from "tempest-db-js";
import type { QueueTable } from "./queue-table.js";
import { valueKind } from "./value-kind.js";

/**
 * Which messages an operator's verb acts on, besides the status the verb itself requires. Every
 * field is a value (bound as a parameter, compared by the recipes' own operators), so a filter
 * taken from a request body can never become an operator, a column or SQL text.
 */
export interface MessageFilter {
  /** Only these messages. */
  readonly ids?: readonly (string | number | bigint)[];
  /** Only these consumers' messages. */
  readonly consumer?: string | readonly string[];
  /** Only messages whose `lastError` contains this text, matched as itself (not as a LIKE pattern). Needs the `lastError` column. */
  readonly errorContains?: string;
  /** Only messages whose status last changed (`updatedAt`) at or after this time. */
  readonly since?: Date;
  /** Only messages whose status last changed (`updatedAt`) before this time. */
  readonly until?: Date;
}

const KEYS = new Set(["ids", "consumer", "errorContains", "since", "until"]);

/** The filter as a where input for the queue table, after checking every value's type. */
export function filterCondition(q: QueueTable, filter: MessageFilter, verb: string): unknown[] {
  if (typeof filter !== "object" || filter === null || Array.isArray(filter))
    throw new ValidationError(`${verb}: the filter must be an object, got ${valueKind(filter)}`);
  for (const key of Object.keys(filter)) {
    // An unknown key is most likely a typo that would otherwise widen the verb to every message.
    if (!KEYS.has(key)) throw new ValidationError(`${verb}: unknown filter field "${key.slice(0, 40)}"`);
  }
  const parts: unknown[] = [];
  const { ids, consumer, errorContains, since, until } = filter;
  if (ids !== undefined) {
    if (!Array.isArray(ids)) throw new ValidationError(`${verb}: ids must be an array, got ${valueKind(ids)}`);
    ids.forEach((id, i) => {
      if (typeof id !== "string" && typeof id !== "number" && typeof id !== "bigint")
        throw new ValidationError(`${verb}: ids[${i}] must be a string or a number, got ${valueKind(id)}`);
    });
    parts.push({ [q.f.id]: op.in(ids) });
  }
  if (consumer !== undefined) {
    const list = typeof consumer === "string" ? [consumer] : consumer;
    if (!Array.isArray(list) || list.some((c) => typeof c !== "string"))
      throw new ValidationError(`${verb}: consumer must be a string or an array of strings`);
    parts.push({ [q.f.consumer]: op.in(list) });
  }
  if (errorContains !== undefined) {
    if (typeof errorContains !== "string")
      throw new ValidationError(`${verb}: errorContains must be a string, got ${valueKind(errorContains)}`);
    if (!q.has.lastError)
      throw new ValidationError(`${verb}: errorContains needs the ${q.f.lastError} column (add it with withQueueFeatures and a migration)`);
    parts.push({ [q.f.lastError]: op.contains(errorContains) });
  }
  if (since !== undefined) parts.push({ [q.f.updatedAt]: op.gte(date(since, "since", verb)) });
  if (until !== undefined) parts.push({ [q.f.updatedAt]: op.lt(date(until, "until", verb)) });
  return parts;
}

function date(value: unknown, name: string, verb: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime()))
    throw new ValidationError(`${verb}: ${name} must be a valid Date, got ${value instanceof Date ? "an invalid Date" : valueKind(value)}`);
  return value;
}

/** `and()` of where inputs (one needs none). */
export function allOf(parts: readonly unknown[]): unknown {
  return parts.length === 1 ? parts[0] : and(...(parts as never[]));
}
