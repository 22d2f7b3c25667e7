import { ValidationError } from "../errors.js";
import type { IndexMeta } from "../schema/index-meta.js";
import type { TableMeta } from "../schema/table-meta.js";
import { resolveWhere } from "./resolve-where.js";

const resolved = new WeakMap<TableMeta, readonly IndexMeta[]>();

/**
 * The model's indexes with their partial-index predicates resolved against the table. Resolved here,
 * where CREATE INDEX, CREATE TABLE and the model's snapshot are built, rather than when the model is
 * read: the where resolver belongs to the builders, which read models. A TableMeta is frozen and cached
 * per model class, so each table's indexes are resolved once and the same objects come back.
 */
export function modelIndexes(table: TableMeta): readonly IndexMeta[] {
  const cached = resolved.get(table);
  if (cached) return cached;
  const indexes = Object.freeze(
    table.indexes.map((declared): IndexMeta => {
      const where = declared.where === undefined ? undefined : resolveWhere(table, declared.where, `index ${declared.name}`);
      if (where?.kind === "inSubquery") throw new ValidationError(`index ${declared.name}: a subquery cannot be an index predicate`);
      return Object.freeze({ name: declared.name, columns: declared.columns, unique: declared.unique, where });
    }),
  );
  resolved.set(table, indexes);
  return indexes;
}
