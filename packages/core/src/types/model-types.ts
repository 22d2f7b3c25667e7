import type { Expression } from "../ast/expression.js";
import type { Condition } from "../builder/condition.js";
import type { Operator } from "../builder/op.js";
import type { Subquery } from "../builder/subquery.js";
import type { Column } from "../schema/column.js";
import type { Model, ModelClass } from "../schema/model.js";

export type Simplify<T> = { [K in keyof T]: T[K] } & {};

type AnyColumn = Column<any, boolean, boolean>;

/** The column fields of a model instance type. */
export type FieldOf<I> = {
  [K in keyof I]: I[K] extends AnyColumn ? (K extends string ? K : never) : never;
}[keyof I];

/** The value a column holds when read: `null` unless the column is NOT NULL. */
export type ColumnValue<C> = C extends Column<infer T, infer N, any> ? (N extends true ? T : T | null) : never;

/** The row of a model instance type. */
export type RowOf<I> = Simplify<{ [K in FieldOf<I>]: ColumnValue<I[K]> }>;

type RequiredInsertField<I> = {
  [K in FieldOf<I>]: I[K] extends Column<any, true, false> ? K : never;
}[FieldOf<I>];

type InsertValue<C> = ColumnValue<C> | Expression<any>;

/** What an insert takes: NOT NULL columns without a default are required, everything else optional. */
export type InsertOf<I> = Simplify<
  { [K in RequiredInsertField<I>]: InsertValue<I[K]> } & {
    [K in Exclude<FieldOf<I>, RequiredInsertField<I>>]?: InsertValue<I[K]>;
  }
>;

/** What `update().set()` takes: any subset of fields, each a value or an expression. */
export type SetOf<I> = { [K in FieldOf<I>]?: InsertValue<I[K]> };

/** A full row of a model class. */
export type InferModel<M extends ModelClass> = RowOf<InstanceType<M>>;
/** What inserting into a model class takes. */
export type InferInsert<M extends ModelClass> = InsertOf<InstanceType<M>>;

type Operand<T> = T | Expression<any>;

/** The operators of the where language, for a column of value type `T` (without null). */
export interface Operators<T> {
  eq?: Operand<T> | null;
  ne?: Operand<T> | null;
  lt?: Operand<T>;
  lte?: Operand<T>;
  gt?: Operand<T>;
  gte?: Operand<T>;
  in?: readonly T[] | Subquery<T>;
  notIn?: readonly T[] | Subquery<T>;
  isNull?: boolean;
  between?: readonly [Operand<T>, Operand<T>];
  like?: T extends string ? Operand<string> : never;
  ilike?: T extends string ? Operand<string> : never;
}

/**
 * A field's condition: a value (equality; `null` is IS NULL on nullable fields), an expression, an
 * `op` helper, or an operators object.
 */
export type FieldCondition<V> = V | Expression<any> | Operator<Exclude<V, null>> | Operators<Exclude<V, null>>;

/** `{ field: condition, ... }`, every entry ANDed. */
export type WhereInput<I> = { [K in FieldOf<I>]?: FieldCondition<ColumnValue<I[K]>> };

/** Anything `.where()` takes. */
export type WhereArg<I> = WhereInput<I> | Condition<I> | Expression<any>;

export type { Model };
