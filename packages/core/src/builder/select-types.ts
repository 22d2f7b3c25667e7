import type { WhereArg } from "../types/model-types.js";
import type { QueryWhereArg, RefOf, Sources } from "../types/query-types.js";

/* The types of SelectBuilder's parameters and of its one-column value (see select-builder.ts). */

export interface OrderByOptions {
  /** NULLS FIRST / NULLS LAST, the same on every database (emulated where the syntax is missing). */
  nulls?: "first" | "last";
}

/** What `.where()` takes: the model's where language, or with named sources `"alias.field"` keys too. */
export type SelectWhere<I, S extends Sources> = [keyof S] extends [never] ? WhereArg<I> : QueryWhereArg<I, S>;

/** A join's condition: two references compared for equality, or a condition over every source so far. */
export type JoinOn<I, S extends Sources> = QueryWhereArg<I, S>;

/** Keys a select may be ordered by: references, and the projection's own keys. */
export type OrderKey<I, R, S extends Sources> = RefOf<I, S> | Exclude<keyof R & string, keyof S>;

/** The value type of a one-column select (what `in` / `notIn` and `scalar()` compare with). */
export type SingleValue<R> = { [K in keyof R]: Exclude<R[K], null> }[keyof R];
