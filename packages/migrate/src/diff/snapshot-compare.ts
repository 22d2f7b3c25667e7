import type { ColumnSnapshot, ForeignKeySnapshot, IndexSnapshot, SchemaSnapshot, TableSnapshot } from "tempest-db-js";

/** Deep equality of JSON-shaped values (snapshots are plain data). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((key) => Object.hasOwn(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** Everything about a column except its name. */
export function sameColumnShape(a: ColumnSnapshot, b: ColumnSnapshot): boolean {
  return sameJson({ ...a, name: "" }, { ...b, name: "" });
}

export function sameIndexShape(a: IndexSnapshot, b: IndexSnapshot): boolean {
  return a.unique === b.unique && a.where === b.where && sameJson(a.columns, b.columns);
}

/** Columns, target and action: a foreign key's meaning, whatever it is called. */
export function sameForeignKeyShape(a: ForeignKeySnapshot, b: ForeignKeySnapshot): boolean {
  return (
    a.referencedTable === b.referencedTable &&
    a.onDelete === b.onDelete &&
    sameJson(a.columns, b.columns) &&
    sameJson(a.referencedColumns, b.referencedColumns)
  );
}

/** The order snapshots keep foreign keys in: by name, the unnamed ones after, by their columns. */
export function compareForeignKeys(a: ForeignKeySnapshot, b: ForeignKeySnapshot): number {
  if (a.name !== null && b.name !== null) return compareText(a.name, b.name);
  if (a.name !== null) return -1;
  if (b.name !== null) return 1;
  return compareText(foreignKeyKey(a), foreignKeyKey(b));
}

export function foreignKeyKey(fk: ForeignKeySnapshot): string {
  return JSON.stringify([fk.columns, fk.referencedTable, fk.referencedColumns, fk.onDelete]);
}

/** Code-unit order, the same on every machine (localeCompare is not). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A table in the normal order: indexes by name, foreign keys as compareForeignKeys; columns stay in table order. */
export function normalizeTable(table: TableSnapshot): TableSnapshot {
  return {
    ...table,
    indexes: [...table.indexes].sort((a, b) => compareText(a.name, b.name)),
    foreignKeys: [...table.foreignKeys].sort(compareForeignKeys),
  };
}

export function normalizeSnapshot(snapshot: SchemaSnapshot): SchemaSnapshot {
  return { ...snapshot, tables: [...snapshot.tables].sort((a, b) => compareText(a.name, b.name)).map(normalizeTable) };
}

/**
 * Whether two snapshots describe the same schema. Column order is not compared: ADD COLUMN appends,
 * so a schema migrated to a model that declares a column in the middle holds the same columns in
 * another order, and the diff (rightly) has nothing to do about it.
 */
export function sameSchema(a: SchemaSnapshot, b: SchemaSnapshot): boolean {
  const byColumnName = (s: SchemaSnapshot) =>
    normalizeSnapshot({
      ...s,
      // The indexes a database made for its keys by itself are never compared (see TableSnapshot.foreignKeyIndexes).
      tables: s.tables.map(({ foreignKeyIndexes: _, ...t }) => ({
        ...t,
        columns: [...t.columns].sort((x, y) => compareText(x.name, y.name)),
      })),
    });
  return sameJson(byColumnName(a), byColumnName(b));
}
