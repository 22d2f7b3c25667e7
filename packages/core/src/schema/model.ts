import type { Index } from "./index.js";

/**
 * Base class of every model. Columns are instance fields (`id = column.uuid().primaryKey()`); the
 * table is described by statics: `tablename` (required), `naming` (`"snake_case"` maps camelCase
 * fields to snake_case columns; the default keeps field names) and `indexes`. The statics are not
 * declared here, so that models compile under `noImplicitOverride` without `override`. The class is
 * instantiated once to read its columns, then cached.
 */
export abstract class Model {}

/** A model class as the builders take it. */
export type ModelClass<I extends Model = Model> = (new () => I) & {
  readonly tablename: string;
  readonly naming?: string;
  readonly indexes?: readonly Index<any>[];
};
