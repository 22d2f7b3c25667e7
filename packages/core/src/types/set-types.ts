import type { Column } from "../schema/column.js";
import type { Model, ModelClass } from "../schema/model.js";
import type { Simplify } from "./model-types.js";

type SameType<X, Y> = [Exclude<X, null>] extends [Exclude<Y, null>]
  ? [Exclude<Y, null>] extends [Exclude<X, null>]
    ? true
    : false
  : false;

/** True when two rows have the same keys and, key by key, the same value type (null aside). */
export type SameColumns<A, B> = [keyof A] extends [keyof B]
  ? [keyof B] extends [keyof A]
    ? false extends { [K in keyof A]: SameType<A[K], B[K & keyof B]> }[keyof A]
      ? false
      : true
    : false
  : false;

/**
 * What a set operation's second part must be besides a query: nothing when its columns match the
 * first part's, otherwise a property no query has, so the call fails to compile and names both rows.
 */
export type MatchingColumns<A, B> =
  SameColumns<A, B> extends true
    ? unknown
    : { readonly "set operation parts need the same columns (keys and types)": { first: A; second: B } };

/** The row of a set operation: a key is null where it is null in either part. */
export type CompoundRow<A, B> = Simplify<{ [K in keyof A]: A[K] | B[K & keyof B] }>;

/** A CTE's columns, as a model's: each a Column of the projected type, NOT NULL unless it can be null. */
export type CteModel<R> = Model & {
  readonly [K in keyof R & string]-?: Column<Exclude<R[K], null>, null extends R[K] ? false : true, false>;
};

/** A common table expression: usable wherever a model class is read (`select`, joins, `ref`), typed by its columns. */
export type CteSource<R, N extends string = string> = ModelClass<CteModel<R>> & { readonly cteName: N };
