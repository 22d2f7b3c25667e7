import { ValidationError } from "../errors.js";
import { describe, isBytes, isDateValue } from "../expression/assert-bindable.js";
import type { ColumnKind, ColumnMeta } from "../schema/column-meta.js";
import { isUuid } from "./is-uuid.js";

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const NUMERIC = /^-?\d+(\.\d+)?$/;

type Check = (value: unknown, column: ColumnMeta) => string | undefined;

const isString: Check = (v) => (typeof v === "string" ? undefined : "a string");

const checks: Record<ColumnKind, Check> = {
  text: isString,
  varchar: (v, c) =>
    typeof v !== "string" ? "a string" : c.length !== undefined && codePoints(v) > c.length ? `at most ${c.length} characters` : undefined,
  uuid: (v) => (typeof v === "string" && isUuid(v) ? undefined : "a uuid string"),
  enum: (v, c) =>
    typeof v === "string" && c.enumValues?.includes(v) ? undefined : `one of ${c.enumValues?.map((e) => JSON.stringify(e)).join(", ")}`,
  integer: (v) => (typeof v === "number" && Number.isSafeInteger(v) ? undefined : "a safe integer number"),
  bigint: (v) => (typeof v === "bigint" || (typeof v === "number" && Number.isSafeInteger(v)) ? undefined : "a bigint"),
  real: (v) => (typeof v === "number" && Number.isFinite(v) ? undefined : "a finite number"),
  numeric: (v) =>
    (typeof v === "string" && NUMERIC.test(v)) || typeof v === "bigint" || (typeof v === "number" && Number.isFinite(v))
      ? undefined
      : "a decimal string or number",
  boolean: (v) => (typeof v === "boolean" ? undefined : "a boolean"),
  datetime: (v) => (isDateValue(v) ? undefined : "a valid Date"),
  date: (v) => (typeof v === "string" && DATE.test(v) ? undefined : "a YYYY-MM-DD string"),
  json: (v) => (isJson(v, 0) ? undefined : "a JSON value (plain objects, arrays, strings, finite numbers, booleans, null)"),
  bytes: (v) => (isBytes(v) ? undefined : "a Uint8Array or Buffer"),
};

function isJson(value: unknown, depth: number): boolean {
  if (depth > 100) return false;
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object": {
      if (value === null) return true;
      if (Array.isArray(value)) return value.every((v) => isJson(v, depth + 1));
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      // Symbol and non-enumerable keys would vanish in JSON.stringify without a word.
      if (Reflect.ownKeys(value).length !== Object.keys(value).length) return false;
      return Object.values(value).every((v) => isJson(v, depth + 1));
    }
    default:
      return false;
  }
}

function characters(text: string): string {
  const count = codePoints(text);
  return count === 1 ? "1 character" : `${count} characters`;
}

/** Characters as the databases count them in varchar(n): code points, so an emoji is one, not two UTF-16 units. */
function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Throws ValidationError unless `value` fits the column (null only where the column allows it). */
export function checkValue(column: ColumnMeta, value: unknown, where: string, allowNull = !column.notNull): void {
  if (value === null) {
    if (allowNull) return;
    throw new ValidationError(`${where}: ${column.field} is NOT NULL and cannot be null`);
  }
  const expected = checks[column.kind](value, column);
  if (expected !== undefined) {
    throw new ValidationError(
      `${where}: ${column.field} expects ${expected}, got ${describe(value)}${typeof value === "string" ? ` of ${characters(value)}` : ""}`,
    );
  }
}
