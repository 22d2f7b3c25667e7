import type { ColumnMeta } from "../schema/column-meta.js";
import { checkValue } from "./check-value.js";
import { isUuid } from "./is-uuid.js";

/**
 * How a bulk insert tests a column's cells (acceptKind): the usual kinds by a one-line test, written
 * once here twice over — as `fits` for the general path, and as source text (`inlineTest`) for the
 * row reader generated per field list — and OTHER by the column's valueAccepter.
 */
export const OTHER = 0;
export const TEXT = 1;
export const INTEGER = 2;
export const REAL = 3;
export const BOOLEAN = 4;

export function acceptKind(column: ColumnMeta): number {
  switch (column.kind) {
    case "text":
      return TEXT;
    case "integer":
      return INTEGER;
    case "real":
      return REAL;
    case "boolean":
      return BOOLEAN;
    default:
      return OTHER;
  }
}

/**
 * True when `value` is a non-null value the column takes, exactly as strict as checkValue; false for
 * null, undefined, objects and misfits, which take the full path (that also words the error).
 * `accept` is valueAccepter(column), asked only for OTHER.
 */
export function fits(kind: number, accept: (value: unknown) => boolean, value: unknown): boolean {
  switch (kind) {
    case TEXT:
      return typeof value === "string";
    case INTEGER:
      // An integer in the 32-bit range (what an integer column holds on every dialect).
      return typeof value === "number" && (value | 0) === value;
    case REAL:
      return Number.isFinite(value);
    case BOOLEAN:
      return typeof value === "boolean";
    default:
      return typeof value !== "object" && value !== undefined && accept(value);
  }
}

/**
 * `fits` as JavaScript source over the variable `v`, for generated code; `accept` is the source of an
 * expression for valueAccepter(column), used only for OTHER.
 */
export function inlineTest(kind: number, v: string, accept: string): string {
  switch (kind) {
    case TEXT:
      return `typeof ${v} === "string"`;
    case INTEGER:
      return `(typeof ${v} === "number" && (${v} | 0) === ${v})`;
    case REAL:
      return `Number.isFinite(${v})`;
    case BOOLEAN:
      return `typeof ${v} === "boolean"`;
    default:
      return `typeof ${v} !== "object" && ${v} !== undefined && ${accept}(${v})`;
  }
}

const accepters = new WeakMap<ColumnMeta, (value: unknown) => boolean>();

/**
 * A predicate for the column's non-null values, exactly as strict as checkValue, made once per
 * column: a bulk insert asks it for the kinds `fits` does not test itself (OTHER), and goes through
 * checkValue (which words the error) only when it says no.
 */
export function valueAccepter(column: ColumnMeta): (value: unknown) => boolean {
  let accepts = accepters.get(column);
  if (accepts === undefined) {
    accepts = makeAccepter(column);
    accepters.set(column, accepts);
  }
  return accepts;
}

function makeAccepter(column: ColumnMeta): (value: unknown) => boolean {
  if (column.kind === "uuid") return (v) => typeof v === "string" && isUuid(v);
  return (v) => {
    if (v === null) return false;
    try {
      checkValue(column, v, "");
      return true;
    } catch {
      return false;
    }
  };
}
