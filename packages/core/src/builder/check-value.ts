import { ValidationError } from "../errors.js";
import { describe, isBytes, isDateValue } from "../expression/assert-bindable.js";
import type { ColumnKind, ColumnMeta } from "../schema/column-meta.js";
import { isUuid } from "./is-uuid.js";

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const NUMERIC = /^-?\d+(\.\d+)?$/;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** What an unconstrained numeric holds on every dialect: MySQL stores it as decimal(65, 30). */
const FREE_INT_DIGITS = 35;
const FREE_SCALE = 30;

function inYearRange(year: number): boolean {
  return year >= 1 && year <= 9999;
}

/** `YYYY-MM-DD` naming a day that exists (no 2023-02-30, no month 13, no year 0). */
function isCalendarDate(text: string): boolean {
  const year = Number(text.slice(0, 4));
  const month = Number(text.slice(5, 7));
  const day = Number(text.slice(8, 10));
  if (!inYearRange(year) || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return day <= days;
}

/**
 * A decimal within the column's precision and scale: numeric(p, s) takes at most p - s digits
 * before the point and s after it (PostgreSQL and MySQL would refuse or round the rest, SQLite
 * stored it as it came); an unconstrained numeric at most 35 and 30.
 */
function checkNumeric(value: unknown, column: ColumnMeta): string | undefined {
  const text =
    typeof value === "string"
      ? value
      : typeof value === "bigint"
        ? value.toString()
        : typeof value === "number" && Number.isFinite(value)
          ? String(value)
          : undefined;
  if (text === undefined || !NUMERIC.test(text)) return "a decimal string or number";
  const point = text.indexOf(".");
  const whole = (point < 0 ? text : text.slice(0, point)).replace(/^-?0*/, "");
  const fraction = point < 0 ? "" : text.slice(point + 1).replace(/0+$/, "");
  const scale = column.precision === undefined ? FREE_SCALE : (column.scale ?? 0);
  const wholeDigits = column.precision === undefined ? FREE_INT_DIGITS : column.precision - scale;
  if (whole.length > wholeDigits || fraction.length > scale) {
    return column.precision === undefined
      ? `a decimal with at most ${FREE_INT_DIGITS} digits before the point and ${FREE_SCALE} after it (an unconstrained numeric)`
      : `a decimal with at most ${wholeDigits} digits before the point and ${scale} after it (numeric(${column.precision}, ${scale}))`;
  }
  return undefined;
}

type Check = (value: unknown, column: ColumnMeta) => string | undefined;

const isString: Check = (v) => (typeof v === "string" ? undefined : "a string");

const checks: Record<ColumnKind, Check> = {
  text: isString,
  varchar: (v, c) =>
    typeof v !== "string" ? "a string" : c.length !== undefined && codePoints(v) > c.length ? `at most ${c.length} characters` : undefined,
  uuid: (v) => (typeof v === "string" && isUuid(v) ? undefined : "a uuid string"),
  enum: (v, c) =>
    typeof v === "string" && c.enumValues?.includes(v) ? undefined : `one of ${c.enumValues?.map((e) => JSON.stringify(e)).join(", ")}`,
  integer: (v) =>
    !(typeof v === "number" && Number.isSafeInteger(v))
      ? "a safe integer number"
      : v < INT32_MIN || v > INT32_MAX
        ? "an integer number from -2147483648 to 2147483647 (the column is 32-bit)"
        : undefined,
  bigint: (v) =>
    !(typeof v === "bigint" || (typeof v === "number" && Number.isSafeInteger(v)))
      ? "a bigint"
      : v < INT64_MIN || v > INT64_MAX
        ? "a bigint from -(2n ** 63n) to 2n ** 63n - 1n (the column is 64-bit)"
        : undefined,
  real: (v) => (typeof v === "number" && Number.isFinite(v) ? undefined : "a finite number"),
  numeric: checkNumeric,
  boolean: (v) => (typeof v === "boolean" ? undefined : "a boolean"),
  // Year 0 (1 BC) included: every dialect stores it, and ISO-8601 text sorts it first.
  datetime: (v) => {
    if (!isDateValue(v)) return "a valid Date";
    const year = v.getUTCFullYear();
    return year >= 0 && year <= 9999 ? undefined : "a Date in the years 0 to 9999 (UTC)";
  },
  date: (v) =>
    !(typeof v === "string" && DATE.test(v))
      ? "a YYYY-MM-DD string"
      : isCalendarDate(v)
        ? undefined
        : "a YYYY-MM-DD string naming a day that exists, in the years 1 to 9999",
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
