import type { Expression } from "../ast/expression.js";
import { ValidationError } from "../errors.js";
import { describe } from "../expression/assert-bindable.js";
import type { Subquery } from "./subquery.js";

const OPERATOR = Symbol.for("tempest-db-js.operator");

/** The operator names of the where language. */
export type OperatorName = "eq" | "ne" | "lt" | "lte" | "gt" | "gte" | "in" | "notIn" | "isNull" | "between" | "like" | "ilike";

declare const operatorBrand: unique symbol;

/**
 * One operator of the where language made by an `op` helper, for a field of value type `T`. Unlike
 * a `{ ne: ... }` object, no parsed JSON can produce one: its brand is a non-enumerable symbol on
 * the prototype, so a spread, a JSON round trip or a structured clone of it is a plain object.
 */
export interface Operator<T = unknown> {
  readonly op: OperatorName;
  readonly operand: unknown;
  /** Phantom: the field value type the operator compares against. */
  readonly __operatorType?: T;
  /** Type-only twin of the runtime brand: an object literal shaped like an operator does not compile. */
  readonly [operatorBrand]: true;
}

class BrandedOperator {
  readonly op: OperatorName;
  readonly operand: unknown;

  constructor(op: OperatorName, operand: unknown) {
    this.op = op;
    this.operand = operand;
    Object.freeze(this);
  }

  static {
    Object.defineProperty(this.prototype, OPERATOR, { value: true });
  }
}

function make<T>(op: OperatorName, operand: unknown): Operator<T> {
  return new BrandedOperator(op, operand) as unknown as Operator<T>;
}

/** True only for what an `op` helper made (of this or another copy of the package). */
export function isOperator(value: unknown): value is Operator {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto === BrandedOperator.prototype) return true;
  // As for expressions: a plain object or an array never carries the brand, whatever its own keys say.
  if (proto === Object.prototype || proto === null || proto === Array.prototype) return false;
  return (value as Record<symbol, unknown>)[OPERATOR] === true;
}

/** A comparison helper: a value of the field's type, or an expression (which fits any field). */
interface Compare {
  (value: Expression<any>): Operator<never>;
  <T>(value: T): Operator<T>;
}

function compare(name: OperatorName): Compare {
  return ((value: unknown) => make(name, value)) as Compare;
}

/**
 * The where language's operators as values a request body cannot forge. `op.eq(value)` compares for
 * equality and never reads `value` as an operator: a `{ "ne": "x" }` from JSON is refused as a value
 * of the wrong type, and `null` is refused (write `op.isNull()`).
 */
export const op = {
  /** `= value`; the value is never read as an operator, and null is refused. */
  eq: compare("eq"),
  /** `<> value`; null is refused (write `op.isNull(false)`). */
  ne: compare("ne"),
  lt: compare("lt"),
  lte: compare("lte"),
  gt: compare("gt"),
  gte: compare("gte"),
  /**
   * `IN (...)`: an empty list matches nothing. In a prepared statement, a list placeholder
   * (`"uuid[]"`, ...) stands for the whole list: one array parameter (PostgreSQL).
   */
  in: <T>(values: readonly T[] | Subquery<T> | Expression<readonly T[]>): Operator<T> => make("in", values),
  /** `NOT IN (...)`: an empty list matches every row. */
  notIn: <T>(values: readonly T[] | Subquery<T> | Expression<readonly T[]>): Operator<T> => make("notIn", values),
  /** `IS NULL`, or `IS NOT NULL` with `false`. */
  isNull: (isNull = true): Operator<never> => make("isNull", isNull),
  between: <T>(low: T | Expression<any>, high: T | Expression<any>): Operator<T> => make("between", [low, high]),
  like: (pattern: string | Expression<any>): Operator<string> => make("like", pattern),
  /** Case-insensitive `like` (PostgreSQL ILIKE; lower() LIKE lower() elsewhere). */
  ilike: (pattern: string | Expression<any>): Operator<string> => make("ilike", pattern),
  /**
   * The field holds `text` (`LIKE '%text%'` with `text`'s `%`, `_` and `\` escaped): user text is
   * matched as itself, never as a pattern. `{ ignoreCase: true }` folds A-Z as `ilike` does.
   */
  contains: literalLike("%", "%"),
  /** The field starts with `text`, matched as itself (see contains). */
  startsWith: literalLike("", "%"),
  /** The field ends with `text`, matched as itself (see contains). */
  endsWith: literalLike("%", ""),
};

export interface LiteralLikeOptions {
  /** Fold the letters A-Z (and no others), as `ilike` does. */
  readonly ignoreCase?: boolean;
}

function literalLike(before: string, after: string): (text: string, options?: LiteralLikeOptions) => Operator<string> {
  return (text, options) => make(options?.ignoreCase === true ? "ilike" : "like", `${before}${escapeLike(text)}${after}`);
}

/**
 * `text` with LIKE's wildcards `%` and `_` and the escape character `\` escaped, so that inside a
 * pattern it matches only itself, on every dialect: `op.like(\`${escapeLike(prefix)}%\`)`.
 */
export function escapeLike(text: string): string {
  if (typeof text !== "string")
    throw new ValidationError(`escapeLike / op.contains / startsWith / endsWith take a string, got ${describe(text)}`);
  return text.replace(/[\\%_]/g, "\\$&");
}
