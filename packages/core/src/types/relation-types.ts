import type { SelectBuilder } from "../builder/select-builder.js";
import type { Model } from "../schema/model.js";
import type { Relation } from "../schema/relation.js";
import type { RowOf } from "./model-types.js";
import type { NoSources, Sources } from "./query-types.js";

/** The relation fields of a model instance type. */
export type RelationFieldOf<I> = {
  [K in keyof I]: I[K] extends Relation<any, boolean, boolean> ? (K extends string ? K : never) : never;
}[keyof I];

/** The relation fields that hold many rows (what `.withCount()` counts). */
export type ManyRelationFieldOf<I> = {
  [K in keyof I]: I[K] extends Relation<any, true, boolean> ? (K extends string ? K : never) : never;
}[keyof I];

/** The related model's instance type. */
export type RelatedOf<Rel> = Rel extends Relation<infer T, boolean, boolean> ? (T extends Model ? T : never) : never;

/** The select `.with()` hands a relation's function: the related model's, to refine with where / orderBy / limit / with. */
export type RelatedSelect<T extends Model> = SelectBuilder<T, RowOf<T>>;

/** One relation in `.with()`: `true` (every related row), or a function refining the related rows' select. */
export type WithValue<T extends Model> = true | ((related: RelatedSelect<T>) => SelectBuilder<T, any, NoSources>);

/** What `.with()` takes: relation fields of the model, each `true` or a function of the related select. */
export type WithSpec<I> = { [K in RelationFieldOf<I>]?: WithValue<RelatedOf<I[K]>> };

/** What `.withCount()` takes: to-many relation fields, each `true` or a function adding a where. */
export type CountSpec<I> = { [K in ManyRelationFieldOf<I>]?: WithValue<RelatedOf<I[K]>> };

/** Keys of `W` that are not in `K`: each typed never, so a misspelt relation is a compile error. */
export type OnlyKeys<W, K extends PropertyKey> = { [P in Exclude<keyof W, K>]: never };

type LoadedRow<T, V> = V extends true ? RowOf<T> : V extends (related: any) => SelectBuilder<any, infer R, any> ? R : never;

/** What a loaded relation holds: a list, or one row (null where the key is nullable or no row may match). */
export type LoadedRelation<Rel, V> =
  Rel extends Relation<infer T, infer Many, infer Null>
    ? Many extends true
      ? LoadedRow<T, V>[]
      : Null extends true
        ? LoadedRow<T, V> | null
        : LoadedRow<T, V>
    : never;

/** The fields `.with(W)` adds to each row. */
export type WithResult<I, W> = { -readonly [K in keyof W & RelationFieldOf<I>]: LoadedRelation<I[K], W[K]> };

/** The field `.withCount(C)` adds to each row. */
export type CountResult<C> = { _count: { -readonly [K in keyof C]: number } };

/** `"alias.relation"` for every named source's relations (what `innerJoinRelated` / `leftJoinRelated` follow). */
export type RelationPath<S extends Sources> = {
  [A in keyof S & string]: `${A}.${RelationFieldOf<S[A]["i"]>}`;
}[keyof S & string];

/** The model a relation path leads to. */
export type PathTarget<S extends Sources, P> = P extends `${infer A}.${infer F}`
  ? A extends keyof S
    ? F extends keyof S[A]["i"]
      ? RelatedOf<S[A]["i"][F]>
      : never
    : never
  : never;
