import type { ColumnSnapshot, ForeignKeySnapshot, IndexSnapshot, SchemaSnapshot, TableSnapshot } from "tempest-db-js";
import { SCHEMA_SNAPSHOT_VERSION } from "tempest-db-js";
import type { AlterCapabilities } from "../src/index.js";

/** Hand-written snapshots for the diff and lint tests. */
export function col(name: string, kind: ColumnSnapshot["kind"] = "text", extra: Partial<ColumnSnapshot> = {}): ColumnSnapshot {
  return {
    name,
    kind,
    notNull: false,
    unique: false,
    default: null,
    enumValues: null,
    length: null,
    precision: null,
    scale: null,
    generated: null,
    ...extra,
  };
}

export function idCol(name = "id", kind: ColumnSnapshot["kind"] = "integer"): ColumnSnapshot {
  return col(name, kind, { notNull: true });
}

export function table(
  name: string,
  columns: readonly ColumnSnapshot[],
  extra: { primaryKey?: readonly string[]; indexes?: readonly IndexSnapshot[]; foreignKeys?: readonly ForeignKeySnapshot[] } = {},
): TableSnapshot {
  return { name, columns, primaryKey: extra.primaryKey ?? ["id"], indexes: extra.indexes ?? [], foreignKeys: extra.foreignKeys ?? [] };
}

export function idx(name: string, columns: readonly string[], extra: Partial<IndexSnapshot> = {}): IndexSnapshot {
  return { name, columns, unique: false, where: null, ...extra };
}

export function fk(
  name: string | null,
  columns: readonly string[],
  referencedTable: string,
  extra: Partial<ForeignKeySnapshot> = {},
): ForeignKeySnapshot {
  return { name, columns, referencedTable, referencedColumns: ["id"], onDelete: "no action", ...extra };
}

export function snap(tables: readonly TableSnapshot[], dialect = "PostgreSQL"): SchemaSnapshot {
  return { version: SCHEMA_SNAPSHOT_VERSION, dialect, tables };
}

/** SQLite's ALTER TABLE: add plain columns, rename, drop plain columns; everything else is a rebuild. */
export const sqliteAlters: AlterCapabilities = {
  alterColumn: false,
  alterForeignKeys: false,
  dropColumn: true,
  dropConstrainedColumn: false,
  addConstrainedColumn: false,
  renameColumn: true,
  rebuildTable: true,
};
