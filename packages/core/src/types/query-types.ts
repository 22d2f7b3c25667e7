import type { Expression } from "../ast/expression.js";
import type { Condition } from "../builder/condition.js";
import type { ColumnValue, FieldCondition, FieldOf, RowOf, Simplify } from "./model-types.js";
import type { WindowExpression } from "./window-types.js";

/** One named source of a query: its model instance type, and whether an outer join can make it null. */
export interface Source<I = any, N extends boolean = boolean> {
  readonly i: I;
  readonly n: N;
}

/** The named sources of a query, by alias. */
export type Sources = Record<string, Source>;

/** `"alias.field"` for every named source. */
export type QualifiedRef<S extends Sources> = {
  [A in keyof S & string]: `${A}.${FieldOf<S[A]["i"]>}`;
}[keyof S & string];

/** What a clause may name: a root field, or `"alias.field"`. */
export type RefOf<I, S extends Sources> = FieldOf<I> | QualifiedRef<S>;

type Nullable<T, N> = N extends true ? T | null : T;

/**
 * The value a reference reads: null too when its source is on the nullable side of an outer join.
 * A root field is tested first: the key lookup is cheaper for the checker than the template match,
 * and most references of most queries are root fields (type-scale bench, BENCHMARKS.md).
 */
export type RefValue<I, S extends Sources, K> = K extends keyof I
  ? ColumnValue<I[K]>
  : K extends `${infer A}.${infer F}`
    ? A extends keyof S
      ? F extends keyof S[A]["i"]
        ? Nullable<ColumnValue<S[A]["i"][F]>, S[A]["n"]>
        : never
      : never
    : never;

/** A joined select's row: one object per source, null where an outer join found none. */
export type JoinedRow<S extends Sources> = { [A in keyof S]: Nullable<RowOf<S[A]["i"]>, S[A]["n"]> };

/** `{ "alias.field": condition, field: condition }`, every entry ANDed. */
export type QueryWhereInput<I, S extends Sources> = { [K in RefOf<I, S>]?: FieldCondition<RefValue<I, S, K>> };

/** Anything a joined select's `.where()` / a join's `on` takes. */
export type QueryWhereArg<I, S extends Sources> = QueryWhereInput<I, S> | Condition<any> | Expression<any>;

/** A computed projection: each key a reference, or an expression (an aggregate, a subquery, a column, a window function). */
export type SelectionSpec<I, S extends Sources> = Record<string, RefOf<I, S> | Expression<any> | WindowExpression<any>>;

/** The row a projection makes. */
export type SelectionRow<I, S extends Sources, P> = Simplify<{
  -readonly [K in keyof P]: P[K] extends Expression<infer T> ? T : P[K] extends WindowExpression<infer W> ? W : RefValue<I, S, P[K]>;
}>;

/** The marker `.where()` etc. dispatch on: no named source yet. */
export type NoSources = {};

/** Adds a source to a query's sources. */
export type WithSource<S extends Sources, A extends string, I, N extends boolean> = Simplify<S & { [K in A]: Source<I, N> }>;

/** Every source made nullable (the left side of a right or full join). */
export type AllNullable<S extends Sources> = { [A in keyof S]: Source<S[A]["i"], true> };

/** Values an aggregate may take: number-valued references. */
export type NumberRef<I, S extends Sources> = {
  [K in RefOf<I, S>]: Exclude<RefValue<I, S, K>, null> extends number | bigint | string ? K : never;
}[RefOf<I, S>];

/** SUM: a number, or a decimal string over a numeric column. */
export type SumOf<V> = Exclude<V, null> extends string ? string | null : number | null;
