import type { ColumnKind } from "./column-meta.js";

/**
 * A database schema as plain, JSON-serialisable data: what a live database holds (read by a
 * dialect's introspector) and what a set of models would create (`modelsSnapshot`), in one shape,
 * so the two can be compared and diffed. Everything is normalised per dialect: names as the
 * database stores them, tables sorted by name, indexes and foreign keys sorted by name (foreign
 * keys without a stable name by their columns), columns in table order.
 *
 * Migration files store a snapshot of the models they lead to, so this shape is versioned: a
 * change that is not purely additive raises SCHEMA_SNAPSHOT_VERSION.
 */
export const SCHEMA_SNAPSHOT_VERSION = 1;

export interface SchemaSnapshot {
  readonly version: typeof SCHEMA_SNAPSHOT_VERSION;
  /** The dialect whose normalisation the snapshot follows ("PostgreSQL", "MySQL", "SQLite"). */
  readonly dialect: string;
  readonly tables: readonly TableSnapshot[];
}

export interface TableSnapshot {
  readonly name: string;
  readonly columns: readonly ColumnSnapshot[];
  /** Column names of the primary key, in key order; empty when there is none. */
  readonly primaryKey: readonly string[];
  /** Secondary indexes (not the primary key, not single-column UNIQUE constraints: see ColumnSnapshot.unique). */
  readonly indexes: readonly IndexSnapshot[];
  readonly foreignKeys: readonly ForeignKeySnapshot[];
  /**
   * The indexes the database made by itself for foreign keys and keeps, which no model declares and
   * `indexes` leaves out (MySQL/MariaDB: InnoDB's index for a key no declared index serves). Only in
   * a live snapshot read with `introspect(engine, { foreignKeyIndexes: true })`, and never compared:
   * absent means unknown. A change that drops a key (or the index that served it) carries its table
   * with them, so MySQL 8, which has no `DROP INDEX IF EXISTS`, drops the one that exists by name.
   */
  readonly foreignKeyIndexes?: readonly IndexSnapshot[] | undefined;
}

export type ColumnDefaultSnapshot =
  /** A literal, as JSON (a Date as its ISO text, a bigint as its decimal text). */
  | { readonly kind: "value"; readonly value: unknown }
  /** An expression default (`sql.now()`), as the dialect's normalised SQL text. */
  | { readonly kind: "sql"; readonly sql: string }
  /** A random uuid (database-generated where the dialect can, else filled in by the builder). */
  | { readonly kind: "random" };

export interface ColumnSnapshot {
  readonly name: string;
  /** The model kind the column's database type reads back as (a bare PostgreSQL `text` is "text"). */
  readonly kind: ColumnKind;
  readonly notNull: boolean;
  /** A single-column UNIQUE constraint (a model's `.unique()`). */
  readonly unique: boolean;
  readonly default: ColumnDefaultSnapshot | null;
  /** For kind "enum": the allowed values in declaration order. */
  readonly enumValues: readonly string[] | null;
  readonly length: number | null;
  readonly precision: number | null;
  readonly scale: number | null;
  /** A generated column: its expression as normalised SQL, and whether it is stored. */
  readonly generated: { readonly sql: string; readonly stored: boolean } | null;
}

export interface IndexSnapshot {
  readonly name: string;
  readonly columns: readonly string[];
  readonly unique: boolean;
  /** A partial index's predicate as the dialect's normalised SQL text; null for a full index. */
  readonly where: string | null;
}

export type ForeignKeyAction = "cascade" | "restrict" | "set null" | "no action";

export interface ForeignKeySnapshot {
  /** The constraint's name where the database gives it one that is stable; null otherwise (SQLite). */
  readonly name: string | null;
  readonly columns: readonly string[];
  readonly referencedTable: string;
  readonly referencedColumns: readonly string[];
  readonly onDelete: ForeignKeyAction;
}
