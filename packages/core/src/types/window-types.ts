import type { Expression } from "../ast/expression.js";
import type { OrderByOptions } from "../builder/select-types.js";
import type { RefOf, Sources } from "./query-types.js";

declare const windowBrand: unique symbol;

/**
 * A window function with its window, `fn(...) OVER (...)`: a value of type `T` for each row, allowed
 * only in `.columns()` (and, by its key, in the select's `orderBy`). It is not an `Expression`, so a
 * where, a having or a set cannot take it.
 */
export interface WindowExpression<T = unknown> {
  /** Phantom: the value type of the window function. */
  readonly __windowType?: T;
  readonly [windowBrand]: true;
}

/** A key of a window's partitionBy / orderBy: a reference, a typed expression (`q.dateTrunc("day", "createdAt")`), or an aggregate (`q.sum(...)`) in a grouped select. */
export type WindowKey<I, S extends Sources> = RefOf<I, S> | Expression<any>;

/** An orderBy entry of a window: a key, `[key, "desc"]`, or `[key, "asc", { nulls: "first" }]`. */
export type WindowOrderItem<I, S extends Sources> =
  | WindowKey<I, S>
  | readonly [WindowKey<I, S>, "asc" | "desc"]
  | readonly [WindowKey<I, S>, "asc" | "desc", OrderByOptions];

/** One end of a frame. `{ preceding: n }` / `{ following: n }` count rows (ROWS), values (RANGE) or peer groups (GROUPS). */
export type FrameBound =
  | "unboundedPreceding"
  | "currentRow"
  | "unboundedFollowing"
  | { readonly preceding: number }
  | { readonly following: number };

/** The rows an aggregate over a window sees, from `start` to `end` (both included). */
export type WindowFrame =
  | { readonly rows: readonly [FrameBound, FrameBound] }
  | { readonly range: readonly [FrameBound, FrameBound] }
  | { readonly groups: readonly [FrameBound, FrameBound] };

/** The window of a ranking or offset function: its order is required, it takes no frame. */
export interface OrderedWindow<I, S extends Sources> {
  readonly partitionBy?: readonly WindowKey<I, S>[];
  readonly orderBy: readonly [WindowOrderItem<I, S>, ...WindowOrderItem<I, S>[]];
}

/** The window of an aggregate: every row of the partition without orderBy; a running frame with it. */
export interface AggregateWindow<I, S extends Sources> {
  readonly partitionBy?: readonly WindowKey<I, S>[];
  readonly orderBy?: readonly WindowOrderItem<I, S>[];
  /** Needs orderBy. Without a frame, orderBy means RANGE from the partition's start to the current row's last peer. */
  readonly frame?: WindowFrame;
}

/** `q.rowNumber()`, `q.rank()`, `q.lag(...)`: a function that needs `.over(window)` to become a value. */
export interface WindowFunction<T, I, S extends Sources> {
  over(window: OrderedWindow<I, S>): WindowExpression<T>;
}

/** An aggregate of `q`: a value of a grouped select, or with `.over(window)` a value per row. */
export type WindowableAggregate<T, I, S extends Sources> = Expression<T> & {
  over(window: AggregateWindow<I, S>): WindowExpression<T>;
};

/** An aggregate over an expression (or with a filter) of `q`: the expression `E`, or with `.over(window)` its value per row. */
export type Windowable<E, I, S extends Sources> = E & {
  over(window: AggregateWindow<I, S>): WindowExpression<E extends Expression<infer T, any> ? T : never>;
};

/** The options of an aggregate of `q` that keep its window form: a filter, no DISTINCT (no database has DISTINCT over a window). */
export interface WindowableAggregateOptions<C> {
  readonly filter?: C;
  readonly distinct?: false;
}

/** `{ distinct: true }`: each distinct value once; no window form. */
export interface DistinctAggregateOptions<C> {
  readonly filter?: C;
  readonly distinct: true;
}

/** lag / lead options: how many rows back / ahead (1), and the value where there is no such row (NULL). */
export interface OffsetOptions<V> {
  readonly offset?: number;
  readonly default?: V;
}
