import { ValidationError } from "../errors.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { TableMeta } from "../schema/table-meta.js";
import { columnOf } from "../schema/table-meta.js";

/** A projection: every column when `fields` is undefined, else the named ones, in the order given. */
export function resolveFields(table: TableMeta, fields: readonly string[] | undefined, where: string): readonly ColumnMeta[] {
  if (fields === undefined) return table.columns;
  if (!Array.isArray(fields) || fields.length === 0) {
    throw new ValidationError(`${where}: expects a non-empty array of field names`);
  }
  const seen = new Set<string>();
  return Object.freeze(
    fields.map((field) => {
      if (typeof field !== "string") throw new ValidationError(`${where}: field names are strings`);
      if (seen.has(field)) throw new ValidationError(`${where}: "${field}" is listed twice`);
      seen.add(field);
      return columnOf(table, field, where);
    }),
  );
}

export function andConditions<T extends { kind: string }>(previous: T | undefined, next: T): T {
  if (previous === undefined) return next;
  return Object.freeze({ kind: "and", items: Object.freeze([previous, next]) }) as unknown as T;
}
