import type { ForeignKeySnapshot, SchemaSnapshot, TableSnapshot } from "./schema-snapshot.js";
import { SCHEMA_SNAPSHOT_VERSION } from "./schema-snapshot.js";

/** Code unit order, the same on every machine (localeCompare depends on the locale). */
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const fkKey = (fk: ForeignKeySnapshot): string => fk.name ?? `\u0000${fk.columns.join("\u0001")}\u0002${fk.referencedTable}`;

/**
 * The snapshot of these tables in its one order: tables by name, each table's indexes by name and
 * foreign keys by name (those without a name by their columns, after the named ones); columns stay in
 * table order. Introspectors and `modelsSnapshot` both end with it, so equal schemas deep-equal.
 */
export function sortSnapshot(dialect: string, tables: readonly TableSnapshot[]): SchemaSnapshot {
  const sorted = [...tables]
    .sort((a, b) => byText(a.name, b.name))
    .map(
      (table): TableSnapshot => ({
        ...table,
        indexes: [...table.indexes].sort((a, b) => byText(a.name, b.name)),
        foreignKeys: [...table.foreignKeys].sort((a, b) => byText(fkKey(a), fkKey(b))),
        ...(table.foreignKeyIndexes ? { foreignKeyIndexes: [...table.foreignKeyIndexes].sort((a, b) => byText(a.name, b.name)) } : {}),
      }),
    );
  return { version: SCHEMA_SNAPSHOT_VERSION, dialect, tables: sorted };
}
