import type { DatetimeField, IntervalUnit, TruncUnit } from "../ast/datetime-node.js";
import type { Expression } from "../ast/expression.js";
import type { ColumnKind } from "../schema/column-meta.js";
import type {
  AnyOperand,
  Arithmetic,
  ArithmeticCheck,
  CaseExpression,
  CastKind,
  CoalesceOf,
  DatetimeOf,
  DatetimeOperand,
  DatetimeRefOf,
  ExtremeOf,
  FieldKind,
  IntegerOperand,
  IntegerRefOf,
  JsOf,
  KindOf,
  NullOf,
  NumberOperand,
  NumberRefOf,
  Resolved,
  SameFamily,
  TextOf,
  TextOperand,
  TextRefOf,
  ValueOf,
} from "./expression-types.js";
import type { QueryWhereArg, RefOf, Sources } from "./query-types.js";

/** A number operand of a query helper: a number-kind reference, or any number operand. */
export type QueryNumber<I, S extends Sources> = NumberOperand | NumberRefOf<I, S>;
/** A text operand of a query helper: a text-kind reference (text, varchar, enum), or a text operand. */
export type QueryText<I, S extends Sources> = TextOperand | TextRefOf<I, S>;
/** A datetime operand of a query helper: a datetime reference, or a datetime operand. */
export type QueryDatetime<I, S extends Sources> = DatetimeOperand | DatetimeRefOf<I, S>;
/** An integer operand of a query helper (an interval's amount): an integer reference, or an integer operand. */
export type QueryInteger<I, S extends Sources> = IntegerOperand | IntegerRefOf<I, S>;
/** Any operand of a query helper: a reference, or any operand. */
export type QueryOperand<I, S extends Sources> = AnyOperand | RefOf<I, S>;

type R<I, S extends Sources, X> = Resolved<I, S, X>;
type Compared<I, S extends Sources, A, B> = Expression<boolean | NullOf<R<I, S, A>> | NullOf<R<I, S, B>>, "boolean">;
type Args<I, S extends Sources, A extends readonly unknown[]> = { [K in keyof A]: R<I, S, A[K]> };

/**
 * The expression builders of `fn` inside `.columns((q) => ...)`: the same functions, where a string
 * is a reference to a column of the query's sources ("field", "alias.field"), never a value, and
 * conditions (CASE, filters) are of the where language over those sources.
 */
export interface QueryExpressionHelpers<I, S extends Sources> {
  val<V extends string | number | bigint | boolean | Date>(value: V): Expression<V extends string ? string : ValueOf<V>, KindOf<V>>;
  val<K extends ColumnKind>(value: JsOf<K> | null, kind: K): Expression<JsOf<K> | null, K>;
  lit<V extends number | bigint>(value: V): Expression<V extends bigint ? bigint : number, V extends bigint ? "bigint" : "integer">;
  add<A extends QueryNumber<I, S>, B extends QueryNumber<I, S>>(
    a: A,
    b: B & ArithmeticCheck<R<I, S, A>, R<I, S, B>>,
  ): Arithmetic<R<I, S, A>, R<I, S, B>>;
  sub<A extends QueryNumber<I, S>, B extends QueryNumber<I, S>>(
    a: A,
    b: B & ArithmeticCheck<R<I, S, A>, R<I, S, B>>,
  ): Arithmetic<R<I, S, A>, R<I, S, B>>;
  mul<A extends QueryNumber<I, S>, B extends QueryNumber<I, S>>(
    a: A,
    b: B & ArithmeticCheck<R<I, S, A>, R<I, S, B>>,
  ): Arithmetic<R<I, S, A>, R<I, S, B>>;
  div<A extends QueryNumber<I, S>, B extends QueryNumber<I, S>>(
    a: A,
    b: B & ArithmeticCheck<R<I, S, A>, R<I, S, B>>,
  ): Arithmetic<R<I, S, A>, R<I, S, B>, null>;
  mod<A extends QueryNumber<I, S>, B extends QueryNumber<I, S>>(
    a: A,
    b: B & ArithmeticCheck<R<I, S, A>, R<I, S, B>>,
  ): Arithmetic<R<I, S, A>, R<I, S, B>, null>;
  neg<A extends QueryNumber<I, S>>(a: A): Arithmetic<R<I, S, A>, R<I, S, A>>;
  coalesce<const A extends readonly QueryOperand<I, S>[]>(...args: A): CoalesceOf<Args<I, S, A>>;
  nullif<A extends QueryOperand<I, S>, B extends QueryOperand<I, S>>(
    a: A,
    b: B & SameFamily<R<I, S, A>, R<I, S, B>>,
  ): Expression<ValueOf<R<I, S, A>> | null, KindOf<R<I, S, A>>>;
  greatest<const A extends readonly QueryOperand<I, S>[]>(...args: A): ExtremeOf<Args<I, S, A>>;
  least<const A extends readonly QueryOperand<I, S>[]>(...args: A): ExtremeOf<Args<I, S, A>>;
  case<V extends QueryOperand<I, S>>(
    condition: QueryWhereArg<I, S>,
    then: V,
  ): CaseExpression<NonNullable<ValueOf<R<I, S, V>>>, KindOf<R<I, S, V>>>;
  cast<A extends QueryOperand<I, S>, K extends CastKind>(a: A, kind: K): Expression<JsOf<K> | NullOf<R<I, S, A>>, K>;
  eq<A extends QueryOperand<I, S>, B extends QueryOperand<I, S>>(a: A, b: B & SameFamily<R<I, S, A>, R<I, S, B>>): Compared<I, S, A, B>;
  ne<A extends QueryOperand<I, S>, B extends QueryOperand<I, S>>(a: A, b: B & SameFamily<R<I, S, A>, R<I, S, B>>): Compared<I, S, A, B>;
  lt<A extends QueryOperand<I, S>, B extends QueryOperand<I, S>>(a: A, b: B & SameFamily<R<I, S, A>, R<I, S, B>>): Compared<I, S, A, B>;
  lte<A extends QueryOperand<I, S>, B extends QueryOperand<I, S>>(a: A, b: B & SameFamily<R<I, S, A>, R<I, S, B>>): Compared<I, S, A, B>;
  gt<A extends QueryOperand<I, S>, B extends QueryOperand<I, S>>(a: A, b: B & SameFamily<R<I, S, A>, R<I, S, B>>): Compared<I, S, A, B>;
  gte<A extends QueryOperand<I, S>, B extends QueryOperand<I, S>>(a: A, b: B & SameFamily<R<I, S, A>, R<I, S, B>>): Compared<I, S, A, B>;
  /** Sends `payload` to the LISTEN `channel` at commit (see `fn.notify`); true. */
  notify<A extends QueryText<I, S>, B extends QueryText<I, S>>(channel: A, payload: B): Expression<boolean, "boolean">;
  lower<A extends QueryText<I, S>>(a: A): TextOf<R<I, S, A>>;
  upper<A extends QueryText<I, S>>(a: A): TextOf<R<I, S, A>>;
  trim<A extends QueryText<I, S>>(a: A): TextOf<R<I, S, A>>;
  ltrim<A extends QueryText<I, S>>(a: A): TextOf<R<I, S, A>>;
  rtrim<A extends QueryText<I, S>>(a: A): TextOf<R<I, S, A>>;
  length<A extends QueryText<I, S>>(a: A): Expression<number | NullOf<R<I, S, A>>, "integer">;
  concat<const A extends readonly QueryText<I, S>[]>(...args: A): Expression<string | NullOf<R<I, S, A[number]>>, "text">;
  substring<A extends QueryText<I, S>>(a: A, start: number, length?: number): TextOf<R<I, S, A>>;
  now(): Expression<Date, "datetime">;
  dateTrunc<A extends QueryDatetime<I, S>>(unit: TruncUnit, value: A): DatetimeOf<R<I, S, A>>;
  extract<F extends DatetimeField, A extends QueryDatetime<I, S>>(
    field: F,
    value: A,
  ): Expression<number | NullOf<R<I, S, A>>, FieldKind<F>>;
  addInterval<A extends QueryDatetime<I, S>, N extends QueryInteger<I, S>>(
    value: A,
    amount: N,
    unit: IntervalUnit,
  ): Expression<Date | NullOf<R<I, S, A>> | NullOf<R<I, S, N>>, "datetime">;
  subInterval<A extends QueryDatetime<I, S>, N extends QueryInteger<I, S>>(
    value: A,
    amount: N,
    unit: IntervalUnit,
  ): Expression<Date | NullOf<R<I, S, A>> | NullOf<R<I, S, N>>, "datetime">;
  diffSeconds<A extends QueryDatetime<I, S>, B extends QueryDatetime<I, S>>(
    a: A,
    b: B,
  ): Expression<number | NullOf<R<I, S, A>> | NullOf<R<I, S, B>>, "real">;
  /** COUNT(*) of the rows the condition keeps. */
  countIf(condition: QueryWhereArg<I, S>): Expression<number, "integer">;
}
