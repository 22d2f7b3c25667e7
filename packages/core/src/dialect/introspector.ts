import type { ColumnKind } from "../schema/column-meta.js";
import type { ForeignKeyAction, SchemaSnapshot, TableSnapshot } from "../schema/schema-snapshot.js";
import type { DialectCapabilities } from "./capabilities.js";

/**
 * The version of the introspector contract. A dialect's introspector states the one it was written
 * for; core takes versions from 1 up to this one.
 */
export const INTROSPECTOR_VERSION = 1;

/** How an introspector reads the catalog: one statement of the dialect's own catalog SQL, values bound. */
export interface CatalogReader {
  query(sql: string, params: readonly unknown[]): Promise<readonly Record<string, unknown>[]>;
}

export interface IntrospectOptions {
  /** Only these tables (database names); all user tables when absent. */
  readonly tables?: readonly string[] | undefined;
  /**
   * Keep `TableSnapshot.foreignKeyIndexes`: the indexes the database made by itself for foreign keys
   * (InnoDB), which `indexes` leaves out. For the migration planner, which drops them with their key
   * by name; off by default, so a snapshot of the live schema deep-equals the models' snapshot.
   */
  readonly foreignKeyIndexes?: boolean | undefined;
}

/**
 * A model's table as the dialect's compiler writes it: the SQL texts of CREATE TABLE / CREATE INDEX,
 * before the introspector's normalisation. `modelsSnapshot` builds it with the dialect's own compiler
 * and hands it to `Introspector.modelTable`, which reads it with the same rules it reads a catalog by.
 */
export interface ModelTableDdl {
  readonly name: string;
  readonly columns: readonly ModelColumnDdl[];
  /** Column names of the primary key, in key order. */
  readonly primaryKey: readonly string[];
  readonly indexes: readonly ModelIndexDdl[];
  /** In declaration order (the order CREATE TABLE writes them: some databases number their names by it). */
  readonly foreignKeys: readonly ModelForeignKeyDdl[];
}

export interface ModelColumnDdl {
  readonly name: string;
  /** The model's column kind. */
  readonly modelKind: ColumnKind;
  /** The column type exactly as CREATE TABLE writes it (`varchar(255) COLLATE "C"`, `enum('a', 'b')`, `TEXT`). */
  readonly type: string;
  readonly notNull: boolean;
  readonly unique: boolean;
  /** The DEFAULT clause's SQL as written (a literal, or a parenthesised expression); null without one. */
  readonly defaultSql: string | null;
  /** The default is the model's `defaultRandom()` (`defaultSql` then holds the dialect's uuid function, or is null). */
  readonly defaultRandom: boolean;
  /** For an enum column: its values in declaration order (the type or a CHECK keeps the column to them). */
  readonly enumValues: readonly string[] | null;
}

export interface ModelIndexDdl {
  readonly name: string;
  readonly columns: readonly string[];
  readonly unique: boolean;
  /** The WHERE clause's SQL as CREATE INDEX writes it; null for a full index (or a predicate the dialect drops). */
  readonly where: string | null;
}

export interface ModelForeignKeyDdl {
  readonly columns: readonly string[];
  readonly referencedTable: string;
  readonly referencedColumns: readonly string[];
  /** As the model declares it; undefined when it declares none (the database's default, NO ACTION). */
  readonly onDelete: ForeignKeyAction | undefined;
}

/**
 * The optional part of the dialect contract that reads a live schema into a SchemaSnapshot,
 * normalised so that the snapshot of models (`modelsSnapshot`) and the snapshot read back after
 * creating them are equal. A dialect without one still loads; migrations then refuse it by name.
 */
export interface Introspector {
  readonly version: number;
  introspect(reader: CatalogReader, options: IntrospectOptions): Promise<SchemaSnapshot>;
  /**
   * A model's table as `introspect` would read it back after CREATE TABLE and CREATE INDEX ran:
   * the same type, default, predicate and naming rules applied to the compiler's texts. Tables come
   * back in any order; core sorts (see `sortSnapshot`). `capabilities` are the compiler's: where one
   * dialect serves several servers (MySQL, MariaDB) they tell which one the texts were written for.
   */
  modelTable(table: ModelTableDdl, capabilities: DialectCapabilities): TableSnapshot;
}
