import { ValidationError } from "../errors.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { TableMeta } from "../schema/table-meta.js";
import { columnOf } from "../schema/table-meta.js";

/** Projections already resolved, per table and field list: the same list yields the same frozen array. */
const projections = new WeakMap<TableMeta, Map<string, readonly ColumnMeta[]>>();
/** Per table: field lists come from code, so a few dozen at most; past this they are not kept. */
const MAX_PROJECTIONS = 256;

/**
 * A projection: every column when `fields` is undefined, else the named ones, in the order given.
 * A list resolved before returns the same array, so that compiled column lists and row decoders,
 * which are cached per array, are reused by every query with that projection.
 */
export function resolveFields(table: TableMeta, fields: readonly string[] | undefined, where: string): readonly ColumnMeta[] {
  if (fields === undefined) return table.columns;
  if (!Array.isArray(fields) || fields.length === 0) {
    throw new ValidationError(`${where}: expects a non-empty array of field names`);
  }
  let byKey = projections.get(table);
  // NUL separates the names in the key; a name holding one is no field, and is left to columnOf to refuse.
  const key =
    fields.length === 1 && typeof fields[0] === "string" && !fields[0].includes("\0")
      ? fields[0]
      : fields.every((f) => typeof f === "string" && !f.includes("\0"))
        ? fields.join("\0")
        : undefined;
  const cached = key === undefined ? undefined : byKey?.get(key);
  if (cached) return cached;
  const seen = new Set<string>();
  const columns = Object.freeze(
    fields.map((field) => {
      if (typeof field !== "string") throw new ValidationError(`${where}: field names are strings`);
      if (seen.has(field)) throw new ValidationError(`${where}: "${field}" is listed twice`);
      seen.add(field);
      return columnOf(table, field, where);
    }),
  );
  if (key !== undefined) {
    if (!byKey) projections.set(table, (byKey = new Map()));
    if (byKey.size < MAX_PROJECTIONS) byKey.set(key, columns);
  }
  return columns;
}
