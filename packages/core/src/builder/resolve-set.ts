import { expressionNode } from "../ast/expression.js";
import type { Assignment } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import { describe } from "../expression/assert-bindable.js";
import { placeAt } from "../expression/placeholder.js";
import type { TableMeta } from "../schema/table-meta.js";
import { columnOf } from "../schema/table-meta.js";
import { resolveValue } from "./resolve-value.js";
import { refuseWindowValue } from "./window-rules.js";

export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The field names of a record. Symbol keys and non-enumerable properties are refused rather than
 * skipped: a condition or a value the caller wrote must never vanish without a word.
 */
export function fieldNames(record: object, where: string): string[] {
  const names = Object.keys(record);
  // The same test as Reflect.ownKeys(record).length !== names.length, at half the cost on the hot path.
  if (Object.getOwnPropertyNames(record).length !== names.length || Object.getOwnPropertySymbols(record).length !== 0) {
    throw new ValidationError(`${where}: the object has symbol or non-enumerable keys, which would be ignored; use plain string keys`);
  }
  return names;
}

/**
 * `{ field: value | expression }` into assignments; unknown fields and unfit values are refused.
 * `where` describes the call for error messages; a function is asked only when there is an error.
 */
export function resolveSet(table: TableMeta, input: unknown, where: string | (() => string)): Assignment[] {
  try {
    // A quiet first pass, as in resolveWhere: the description is only needed to word an error.
    return resolveAssignments(table, input, "");
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    return resolveAssignments(table, input, typeof where === "string" ? where : where());
  }
}

function resolveAssignments(table: TableMeta, input: unknown, where: string): Assignment[] {
  if (!isPlainRecord(input)) throw new ValidationError(`${where}: expects an object of field values, got ${describe(input)}`);
  const assignments: Assignment[] = [];
  for (const field of fieldNames(input, where)) {
    const column = columnOf(table, field, where);
    // undefined is refused by resolveValue, not skipped: a field that silently does not change hides a bug.
    const value = input[field];
    const node = expressionNode(value);
    if (node?.kind === "excluded") columnOf(table, node.field, `${where}: sql.excluded`);
    if (node !== undefined) refuseWindowValue(node, where || `set ${field}`);
    const placed = node === undefined ? resolveValue(column, value, where) : placeAt(node, column, where, !column.notNull);
    assignments.push(Object.freeze({ column, value: placed }));
  }
  return assignments;
}

/** `next` is the caller's fresh array from resolveSet: frozen in place, not copied. */
export function mergeAssignments(previous: readonly Assignment[], next: Assignment[]): readonly Assignment[] {
  // The first set(): its fields are an object's own keys, so already distinct.
  if (previous.length === 0) return Object.freeze(next);
  const byField = new Map(previous.map((a) => [a.column.field, a]));
  for (const a of next) byField.set(a.column.field, a);
  return Object.freeze([...byField.values()]);
}
