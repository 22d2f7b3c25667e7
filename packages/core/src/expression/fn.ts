import type { DatetimeField, IntervalUnit, TruncUnit } from "../ast/datetime-node.js";
import type { Expression } from "../ast/expression.js";
import { brandExpression } from "../ast/expression.js";
import { sourceColumnNode } from "../ast/value-node.js";
import { resolveWhere } from "../builder/resolve-where.js";
import type { ColumnKind } from "../schema/column-meta.js";
import type { ModelClass } from "../schema/model.js";
import { columnOf, tableMeta } from "../schema/table-meta.js";
import type {
  AnyOperand,
  Arithmetic,
  ArithmeticCheck,
  CaseExpression,
  CastKind,
  CoalesceOf,
  DatetimeOf,
  DatetimeOperand,
  ExtremeOf,
  FieldKind,
  IntegerOperand,
  JsOf,
  KindOf,
  NullOf,
  NumberOperand,
  RefExpression,
  SameFamily,
  TextOf,
  TextOperand,
  ValueOf,
} from "../types/expression-types.js";
import type { FieldOf } from "../types/model-types.js";
import { expressionBuilders } from "./expression-builders.js";

/** Options of an aggregate over an expression. */
export interface ExpressionAggregateOptions<C = unknown> {
  /** Only the rows this condition keeps are aggregated (written as a CASE inside the call). */
  readonly filter?: C;
  readonly distinct?: boolean;
}

/** SUM / AVG of a kind: a number, or an exact decimal string over numeric values; null over no rows. */
export type SumOfKind<X> = Expression<
  (KindOf<X> extends "numeric" ? string : number) | null,
  KindOf<X> extends "numeric" ? "numeric" : "real"
>;

/**
 * The typed expression builders (docs/expressions.md), used wherever a value goes: `.columns()`,
 * `.where()`, `.orderBy()`, `.groupBy()`, `.set()`, `.values()`. Operands are expressions (`col`,
 * `ref`, `q.ref`, other builders) or JavaScript numbers, bigints, booleans, Dates and null, each bound
 * as a parameter of the kind its neighbours need; a string is a value only through `fn.val`.
 */
export interface ExpressionFunctions<C = unknown> {
  /** A bound value; a string is a text, and `kind` states any other kind (`fn.val("1.50", "numeric")`). */
  val<V extends string | number | bigint | boolean | Date>(value: V): Expression<V extends string ? string : ValueOf<V>, KindOf<V>>;
  val<K extends ColumnKind>(value: JsOf<K> | null, kind: K): Expression<JsOf<K> | null, K>;
  /**
   * An integer constant written into the SQL text (`fn.add(col(Job, "attempts"), fn.lit(1))` is
   * `"attempts" + 1`), not bound: a safe integer (kind integer) or a 64-bit bigint (kind bigint).
   * For the program's constants; a value that varies is `fn.val`, one statement for every value.
   */
  lit<V extends number | bigint>(value: V): Expression<V extends bigint ? bigint : number, V extends bigint ? "bigint" : "integer">;
  /** Integers add in 64 bits; a real beside any number makes a real; a numeric beside integers stays exact. */
  add<A extends NumberOperand, B extends NumberOperand>(a: A, b: B & ArithmeticCheck<A, B>): Arithmetic<A, B>;
  sub<A extends NumberOperand, B extends NumberOperand>(a: A, b: B & ArithmeticCheck<A, B>): Arithmetic<A, B>;
  mul<A extends NumberOperand, B extends NumberOperand>(a: A, b: B & ArithmeticCheck<A, B>): Arithmetic<A, B>;
  /** Integers: the quotient truncated toward zero. Any kind: NULL when the divisor is zero. */
  div<A extends NumberOperand, B extends NumberOperand>(a: A, b: B & ArithmeticCheck<A, B>): Arithmetic<A, B, null>;
  /** The remainder of integers, with the sign of the dividend; NULL when the divisor is zero. */
  mod<A extends NumberOperand, B extends NumberOperand>(a: A, b: B & ArithmeticCheck<A, B>): Arithmetic<A, B, null>;
  neg<A extends NumberOperand>(a: A): Arithmetic<A, A>;
  /** The first argument that is not NULL; null only when every argument may be. */
  coalesce<const A extends readonly AnyOperand[]>(...args: A): CoalesceOf<A>;
  /** NULL when `a` equals `b`, else `a`. */
  nullif<A extends AnyOperand, B extends AnyOperand>(a: A, b: B & SameFamily<A, B>): Expression<ValueOf<A> | null, KindOf<A>>;
  /** The largest of numbers, datetimes or dates; NULL when any argument is NULL (on every database). */
  greatest<const A extends readonly AnyOperand[]>(...args: A): ExtremeOf<A>;
  least<const A extends readonly AnyOperand[]>(...args: A): ExtremeOf<A>;
  /** `CASE WHEN condition THEN value ... [ELSE value] END`: chain `.when(c, v)`, end with `.else(v)` or leave ELSE NULL. */
  case<V extends AnyOperand>(condition: C, then: V): CaseExpression<NonNullable<ValueOf<V>>, KindOf<V>>;
  /** A value converted to another kind: into integers truncated toward zero; integers, dates and texts to text. */
  cast<A extends AnyOperand, K extends CastKind>(a: A, kind: K): Expression<JsOf<K> | NullOf<A>, K>;
  eq<A extends AnyOperand, B extends AnyOperand>(a: A, b: B & SameFamily<A, B>): Expression<boolean | NullOf<A> | NullOf<B>, "boolean">;
  ne<A extends AnyOperand, B extends AnyOperand>(a: A, b: B & SameFamily<A, B>): Expression<boolean | NullOf<A> | NullOf<B>, "boolean">;
  lt<A extends AnyOperand, B extends AnyOperand>(a: A, b: B & SameFamily<A, B>): Expression<boolean | NullOf<A> | NullOf<B>, "boolean">;
  lte<A extends AnyOperand, B extends AnyOperand>(a: A, b: B & SameFamily<A, B>): Expression<boolean | NullOf<A> | NullOf<B>, "boolean">;
  gt<A extends AnyOperand, B extends AnyOperand>(a: A, b: B & SameFamily<A, B>): Expression<boolean | NullOf<A> | NullOf<B>, "boolean">;
  gte<A extends AnyOperand, B extends AnyOperand>(a: A, b: B & SameFamily<A, B>): Expression<boolean | NullOf<A> | NullOf<B>, "boolean">;
  /** The letters A-Z made a-z; every other character as it is (é, ß, Σ stay), on every database. */
  lower<A extends TextOperand>(a: A): TextOf<A>;
  /** The letters a-z made A-Z; every other character as it is. */
  upper<A extends TextOperand>(a: A): TextOf<A>;
  /** Spaces (U+0020) removed from both ends; tabs, newlines and other blanks stay. */
  trim<A extends TextOperand>(a: A): TextOf<A>;
  /** Spaces removed from the start. */
  ltrim<A extends TextOperand>(a: A): TextOf<A>;
  /** Spaces removed from the end. */
  rtrim<A extends TextOperand>(a: A): TextOf<A>;
  /** The number of characters (Unicode code points, as `[...text].length`), not bytes. */
  length<A extends TextOperand>(a: A): Expression<number | NullOf<A>, "integer">;
  /** The texts joined; NULL when any of them is NULL (on every database). */
  concat<const A extends readonly TextOperand[]>(...args: A): Expression<string | NullOf<A[number]>, "text">;
  /** `length` characters (code points) from the 1-based position `start`, or to the end; both bound integers. */
  substring<A extends TextOperand>(a: A, start: number, length?: number): TextOf<A>;
  /** The database's current time (as `sql.now()`), typed as a datetime operand. */
  now(): Expression<Date, "datetime">;
  /**
   * Sends `payload` to the LISTEN `channel` (`capabilities.listenNotify`; PostgreSQL's `pg_notify`)
   * each time it is computed, delivered when the transaction commits (a statement alone: when it
   * ends); true. Identical notifications of one transaction are delivered once. Refused elsewhere.
   */
  notify<A extends TextOperand, B extends TextOperand>(channel: A, payload: B): Expression<boolean, "boolean">;
  /** The start of the instant's year, month, ISO week (Monday 00:00), day, hour or minute, in UTC. */
  dateTrunc<A extends DatetimeOperand>(unit: TruncUnit, value: A): DatetimeOf<A>;
  /** A field of the instant in UTC: an integer, or for `epoch` seconds since 1970 with milliseconds as a fraction. */
  extract<F extends DatetimeField, A extends DatetimeOperand>(field: F, value: A): Expression<number | NullOf<A>, FieldKind<F>>;
  /** The instant moved forward by an integer `amount` of `unit`s (months and years keep the day or fall back to the month's last). */
  addInterval<A extends DatetimeOperand, N extends IntegerOperand>(
    value: A,
    amount: N,
    unit: IntervalUnit,
  ): Expression<Date | NullOf<A> | NullOf<N>, "datetime">;
  /** The instant moved back by an integer `amount` of `unit`s. */
  subInterval<A extends DatetimeOperand, N extends IntegerOperand>(
    value: A,
    amount: N,
    unit: IntervalUnit,
  ): Expression<Date | NullOf<A> | NullOf<N>, "datetime">;
  /** `a - b` in seconds, exact to the millisecond (the milliseconds as a fraction). */
  diffSeconds<A extends DatetimeOperand, B extends DatetimeOperand>(a: A, b: B): Expression<number | NullOf<A> | NullOf<B>, "real">;
  /** COUNT(*) of the rows `filter` keeps, or COUNT(value): the rows where it is not NULL. */
  count(value?: AnyOperand, options?: ExpressionAggregateOptions<C>): Expression<number, "integer">;
  sum<A extends NumberOperand>(value: A, options?: ExpressionAggregateOptions<C>): SumOfKind<A>;
  avg<A extends NumberOperand>(value: A, options?: ExpressionAggregateOptions<C>): SumOfKind<A>;
  min<A extends AnyOperand>(value: A, options?: ExpressionAggregateOptions<C>): Expression<ValueOf<A> | null, KindOf<A>>;
  max<A extends AnyOperand>(value: A, options?: ExpressionAggregateOptions<C>): Expression<ValueOf<A> | null, KindOf<A>>;
}

/** Conditions of `fn` name no table: an expression (fn.eq(...), exists(...)) or and/or/not of them. */
const NO_TABLE = Object.freeze({ model: { name: "fn" } as ModelClass, name: "fn", byField: new Map() });

export const fn: ExpressionFunctions<Expression<any, any>> = Object.freeze(
  expressionBuilders({ ref: undefined, condition: (input, where) => resolveWhere(NO_TABLE, input, where) }),
) as unknown as ExpressionFunctions<Expression<any, any>>;

/**
 * A column of a model's table as a typed operand, written `"table"."column"`: for statements on
 * that table (update's set, a select without aliases). With aliased sources use `ref(M, alias, field)`.
 */
export function col<M extends ModelClass, F extends FieldOf<InstanceType<M>>>(model: M, field: F): RefExpression<InstanceType<M>, {}, F> {
  const table = tableMeta(model);
  return brandExpression(sourceColumnNode(columnOf(table, field, `col(${model.name})`))) as never;
}
