import type { Expression } from "../ast/expression.js";
import type { Column } from "../schema/column.js";
import type { ColumnKind } from "../schema/column-meta.js";
import type { RefOf, RefValue, Sources } from "./query-types.js";

/**
 * The type level of the expression builders (docs/expressions.md). A value's kind is its column
 * kind where known ("integer", "numeric", "text", ...) and otherwise read from its JavaScript type
 * ("number" for a number literal: an integer or a real, the runtime decides by the value).
 */
export type NumberKind = "integer" | "bigint" | "real" | "numeric";
export type TextKind = "text" | "varchar" | "enum";

/** A literal's type as the value it binds: `1` is a number. */
type Widen<V> = V extends number ? number : V extends bigint ? bigint : V extends boolean ? boolean : V;

/** What an operand's value is: an expression's type, or the literal's (widened). */
export type ValueOf<X> = X extends Expression<infer T, any> ? T : Widen<X>;

type ValueTag<T> = [NonNullable<T>] extends [never]
  ? "null"
  : NonNullable<T> extends number
    ? "number"
    : NonNullable<T> extends bigint
      ? "bigint"
      : NonNullable<T> extends Date
        ? "datetime"
        : NonNullable<T> extends boolean
          ? "boolean"
          : NonNullable<T> extends string
            ? "text"
            : "unknown";

/** The kind an operand has at the type level. */
export type KindOf<X> =
  X extends Expression<infer T, infer K>
    ? [K] extends [ColumnKind]
      ? ColumnKind extends K
        ? ValueTag<T>
        : K
      : [K] extends ["number"]
        ? "number"
        : ValueTag<T>
    : ValueTag<X>;

/** The JavaScript value of a kind (docs/api.md's table). */
export type JsOf<K> = K extends "integer" | "real" | "number"
  ? number
  : K extends "bigint"
    ? bigint
    : K extends "boolean"
      ? boolean
      : K extends "datetime"
        ? Date
        : K extends "null"
          ? never
          : string;

/** `null` when the operand may be NULL. */
export type NullOf<X> = null extends ValueOf<X> ? null : never;

/** An operand arithmetic takes: a number, a bigint, or an expression of a number kind. */
export type NumberOperand = number | bigint | null | Expression<number | bigint | null, unknown> | Expression<string | null, "numeric">;

/** The kind numbers compute in together (see expression/value-type.ts, numberKind). */
export type ArithmeticKind<A, B> = "real" extends KindOf<A> | KindOf<B>
  ? "real"
  : "numeric" extends KindOf<A> | KindOf<B>
    ? "numeric"
    : "bigint" extends KindOf<A> | KindOf<B>
      ? "bigint"
      : "number" extends KindOf<A> | KindOf<B>
        ? "number"
        : "integer";

/** `never` (a compile error on the argument) for a real next to a numeric: they never mix. */
export type ArithmeticCheck<A, B> = "real" extends KindOf<A> | KindOf<B>
  ? "numeric" extends KindOf<A> | KindOf<B>
    ? never
    : unknown
  : unknown;

export type Arithmetic<A, B, Null = never> = Expression<JsOf<ArithmeticKind<A, B>> | NullOf<A> | NullOf<B> | Null, ArithmeticKind<A, B>>;

/** The family a kind compares and combines within. */
export type FamilyOf<K> = K extends NumberKind | "number" ? "number" : K extends TextKind ? "text" : K extends "null" ? never : K;

/** `never` (a compile error) when the two operands are of different families: a text beside an integer. */
export type SameFamily<A, B> = [FamilyOf<KindOf<A>>] extends [never]
  ? unknown
  : [FamilyOf<KindOf<B>>] extends [never]
    ? unknown
    : [FamilyOf<KindOf<A>>] extends [FamilyOf<KindOf<B>>]
      ? [FamilyOf<KindOf<B>>] extends [FamilyOf<KindOf<A>>]
        ? unknown
        : never
      : never;

/** An operand the string functions take: an expression of a text kind (text, varchar, enum), or null. */
export type TextOperand = null | Expression<string | null, TextKind>;

/** A text result of a string function: null when any input may be. */
export type TextOf<A> = Expression<string | NullOf<A>, "text">;

/** An instant operand: a Date, or an expression of a datetime (`Date`) value. */
export type DatetimeOperand = Date | null | Expression<Date | null, unknown>;

/** A datetime result: null when any input may be. */
export type DatetimeOf<A> = Expression<Date | NullOf<A>, "datetime">;

/** An interval's amount: a JavaScript integer, or an expression of an integer kind (checked when built). */
export type IntegerOperand = number | bigint | null | Expression<number | bigint | null, "integer" | "bigint" | "number">;

/** The kind of a datetime field: `epoch` is seconds with a fraction, every other field an integer. */
export type FieldKind<F> = F extends "epoch" ? "real" : "integer";

/** Any operand of a typed expression (a string is never a value: see fn.val). */
export type AnyOperand = number | bigint | boolean | Date | null | Expression<any, any>;

/** The value COALESCE gives: null only when every argument may be null. */
export type CoalesceOf<A extends readonly unknown[]> = Expression<
  NonNullable<ValueOf<A[number]>> | ({ [I in keyof A]: null extends ValueOf<A[I]> ? never : true }[number] extends never ? null : never),
  KindOf<A[number]>
>;

/** GREATEST / LEAST: null when any argument may be. */
export type ExtremeOf<A extends readonly unknown[]> = Expression<ValueOf<A[number]>, KindOf<A[number]>>;

/** Kinds `fn.cast` converts to. */
export type CastKind = "integer" | "bigint" | "real" | "numeric" | "text" | "boolean" | "date" | "datetime";

/** A CASE under construction: an expression (ELSE NULL) that takes more branches. */
export interface CaseExpression<T, K> extends Expression<T | null, K> {
  when<V extends AnyOperand>(condition: unknown, then: V): CaseExpression<T | NonNullable<ValueOf<V>>, K | KindOf<V>>;
  else<V extends AnyOperand>(otherwise: V): Expression<T | ValueOf<V>, K | KindOf<V>>;
}

// ---- references of a query's sources --------------------------------------------------------

type KindOfColumn<C> = C extends Column<any, any, any, infer K> ? (ColumnKind extends K ? unknown : K) : unknown;

/** The column kind a reference names (a root field first, as RefValue). */
export type RefKind<I, S extends Sources, K> = K extends keyof I
  ? KindOfColumn<I[K]>
  : K extends `${infer A}.${infer F}`
    ? A extends keyof S
      ? F extends keyof S[A]["i"]
        ? KindOfColumn<S[A]["i"][F]>
        : unknown
      : unknown
    : unknown;

/** A reference as the typed expression it reads. */
export type RefExpression<I, S extends Sources, K> = Expression<RefValue<I, S, K>, RefKind<I, S, K>>;

/** An argument of a query helper: a reference is read as its column. */
export type Resolved<I, S extends Sources, X> = X extends string ? RefExpression<I, S, X> : X;

/** References to columns of a text kind (text, varchar, enum). */
export type TextRefOf<I, S extends Sources> = {
  [K in RefOf<I, S>]: RefKind<I, S, K> extends TextKind ? K : never;
}[RefOf<I, S>];

/** References to datetime columns. */
export type DatetimeRefOf<I, S extends Sources> = {
  [K in RefOf<I, S>]: RefKind<I, S, K> extends "datetime" ? K : never;
}[RefOf<I, S>];

/** References to integer and bigint columns. */
export type IntegerRefOf<I, S extends Sources> = {
  [K in RefOf<I, S>]: RefKind<I, S, K> extends "integer" | "bigint" ? K : never;
}[RefOf<I, S>];

/** References to columns of a number kind. */
export type NumberRefOf<I, S extends Sources> = {
  [K in RefOf<I, S>]: RefKind<I, S, K> extends NumberKind ? K : never;
}[RefOf<I, S>];
