import type { ColumnSnapshot, ForeignKeySnapshot, IndexSnapshot, TableSnapshot } from "../schema/schema-snapshot.js";

/**
 * One change to a schema: what a migration is made of. Plain data (a migration file stores these as
 * JSON), compiled to SQL by the dialect's compiler like every other statement; one change may take
 * several statements (SQLite's table rebuild). A closed union: every walker (compiler, diff,
 * lock-safety lint, reverser) dispatches exhaustively, so a new kind cannot be forgotten.
 *
 * Changes that act on one table carry the table's snapshot before and after where a dialect may
 * need it (SQLite rebuilds the whole table from `after`).
 */
export type SchemaChange =
  | CreateTableChange
  | DropTableChange
  | RenameTableChange
  | AddColumnChange
  | DropColumnChange
  | RenameColumnChange
  | AlterColumnChange
  | CreateIndexChange
  | DropIndexChange
  | AddForeignKeyChange
  | DropForeignKeyChange
  | AddCheckChange
  | DropCheckChange
  | ValidateConstraintChange
  | AddUniqueConstraintChange
  | RebuildTableChange;

export type SchemaChangeKind = SchemaChange["kind"];

export interface CreateTableChange {
  readonly kind: "createTable";
  readonly table: TableSnapshot;
}

export interface DropTableChange {
  readonly kind: "dropTable";
  /** The table as it was, so the change can be reversed. */
  readonly table: TableSnapshot;
}

export interface RenameTableChange {
  readonly kind: "renameTable";
  readonly from: string;
  readonly to: string;
  /**
   * The table as it is. PostgreSQL names the CHECK of an enum column and a UNIQUE constraint after
   * the table (`table_column_check`, `table_column_key`) and keeps those names through a rename;
   * given the table, the rename renames them too, so later changes find them by the new name.
   */
  readonly table?: TableSnapshot | undefined;
}

/**
 * The column is defined as in CREATE TABLE: type, NOT NULL, default, enum check, UNIQUE, and its own
 * single-column foreign key when `foreignKey` is given. What a database cannot add in one ALTER
 * (SQLite: UNIQUE, a foreign key with a non-null default, a non-constant default) is refused by name.
 */
export interface AddColumnChange {
  readonly kind: "addColumn";
  readonly table: string;
  readonly column: ColumnSnapshot;
  /** The column's own foreign key (its `columns` are exactly `[column.name]`), added with it. */
  readonly foreignKey?: ForeignKeySnapshot | null | undefined;
  /**
   * A key or index of the table after the migration covers the column (`isKeyed(after, name)`):
   * MySQL then gives a text column a bounded type, since a key cannot cover a whole TEXT.
   */
  readonly keyed?: boolean | undefined;
}

export interface DropColumnChange {
  readonly kind: "dropColumn";
  readonly table: string;
  /** The column as it was, so the change can be reversed. */
  readonly column: ColumnSnapshot;
  /** A key or index of the table before the change covers the column (MySQL then drops it in place, not instantly). */
  readonly keyed?: boolean | undefined;
}

export interface RenameColumnChange {
  readonly kind: "renameColumn";
  readonly table: string;
  readonly from: string;
  readonly to: string;
  /** The column as it is (see RenameTableChange.table): its enum CHECK and UNIQUE are renamed with it on PostgreSQL. */
  readonly column?: ColumnSnapshot | undefined;
}

/** A column's type, nullability or default changes (its name does not: see RenameColumnChange). */
export interface AlterColumnChange {
  readonly kind: "alterColumn";
  readonly table: string;
  readonly from: ColumnSnapshot;
  readonly to: ColumnSnapshot;
  /** As AddColumnChange.keyed: a key or index of the table after the change covers the column. */
  readonly keyed?: boolean | undefined;
  /**
   * A key or index of the table before the change covers the column: the type it has now (MySQL: a
   * text column that gains a key goes from TEXT to the bounded type). Absent: taken as `keyed`.
   */
  readonly keyedBefore?: boolean | undefined;
}

export interface CreateIndexChange {
  readonly kind: "createIndex";
  readonly table: string;
  readonly index: IndexSnapshot;
  /** PostgreSQL `CREATE INDEX CONCURRENTLY`: runs outside a transaction. */
  readonly concurrently: boolean;
}

export interface DropIndexChange {
  readonly kind: "dropIndex";
  readonly table: string;
  /** The index as it was, so the change can be reversed. */
  readonly index: IndexSnapshot;
  readonly concurrently: boolean;
  /**
   * The table as it is when the index is dropped (its keys, its other indexes). MySQL/MariaDB refuse
   * to drop the only index that serves a foreign key (error 1553): given the table, the compiler gives
   * such a key its own index in the same statement; absent, only the index is dropped.
   */
  readonly owner?: TableSnapshot | undefined;
}

export interface AddForeignKeyChange {
  readonly kind: "addForeignKey";
  readonly table: string;
  readonly foreignKey: ForeignKeySnapshot & { readonly name: string };
  /** PostgreSQL `NOT VALID`: existing rows are checked later by a ValidateConstraintChange. */
  readonly notValid: boolean;
}

export interface DropForeignKeyChange {
  readonly kind: "dropForeignKey";
  readonly table: string;
  readonly foreignKey: ForeignKeySnapshot & { readonly name: string };
  /**
   * The table as it is when the key is dropped (its other keys and indexes). MySQL/MariaDB then
   * also drop the index InnoDB made for the key by itself, which outlives the key and which no model
   * declares (by name where `owner.foreignKeyIndexes` says which exists: MySQL 8 has no `DROP INDEX
   * IF EXISTS`); absent, only the key is dropped.
   */
  readonly owner?: TableSnapshot | undefined;
}

/**
 * A CHECK constraint the migration tool itself adds, e.g. `col IS NOT NULL ... NOT VALID` before a
 * safe SET NOT NULL on PostgreSQL. `notNullOf` names the column whose non-nullness it checks; the
 * predicate is never user text.
 */
export interface AddCheckChange {
  readonly kind: "addCheck";
  readonly table: string;
  readonly name: string;
  readonly notNullOf: string;
  readonly notValid: boolean;
}

export interface DropCheckChange {
  readonly kind: "dropCheck";
  readonly table: string;
  readonly name: string;
  readonly notNullOf: string;
}

export interface ValidateConstraintChange {
  readonly kind: "validateConstraint";
  readonly table: string;
  readonly name: string;
}

/**
 * A column's UNIQUE constraint built without blocking writes (PostgreSQL): `CREATE UNIQUE INDEX
 * CONCURRENTLY` outside the transaction, then `ALTER TABLE ... ADD CONSTRAINT name UNIQUE USING INDEX
 * name`, which only attaches the built index (a brief lock, no scan). What the lock-safe plan makes of
 * an alterColumn that adds UNIQUE; `name` is the constraint's usual name, so a later change finds it.
 */
export interface AddUniqueConstraintChange {
  readonly kind: "addUniqueConstraint";
  readonly table: string;
  /** The column as it is, without its UNIQUE (so the change can be reversed). */
  readonly column: ColumnSnapshot;
  readonly name: string;
}

/**
 * SQLite's documented twelve-step rebuild (https://www.sqlite.org/lang_altertable.html#otheralter):
 * a new table shaped as `after`, rows copied over (`columnMap`: new column name → old column name,
 * or null for a column that takes its default), the old table dropped, the new one renamed, its
 * indexes recreated, `PRAGMA foreign_key_check` after.
 */
export interface RebuildTableChange {
  readonly kind: "rebuildTable";
  readonly before: TableSnapshot;
  readonly after: TableSnapshot;
  readonly columnMap: Readonly<Record<string, string | null>>;
}

/**
 * A statement a change compiles to (`schemaSteps`), run with `runSchemaStep`. Made only by the
 * compiler: its text holds identifiers it quoted and literals it wrote, never a caller's SQL.
 */
export interface SchemaStep {
  readonly sql: string;
  /**
   * False for a statement that must run outside a transaction (`CREATE INDEX CONCURRENTLY`,
   * SQLite's `PRAGMA foreign_keys`), or that commits one implicitly (MySQL DDL) — the runner then
   * cannot roll it back.
   */
  readonly transactional: boolean;
  /**
   * The statement is known to copy the whole table while it runs (MySQL/MariaDB `ALGORITHM=COPY`:
   * writes wait for the copy). The lock-safety lint reports it; false where the server does it in
   * place or instantly (the statement then says so with `ALGORITHM=...`, and fails rather than copy).
   */
  readonly copiesTable: boolean;
  /**
   * A check (`PRAGMA foreign_key_check`): any row it returns is a failure, thrown by runSchemaStep
   * as a ConstraintViolationError, so the transaction it runs in rolls back.
   */
  readonly failsOnRows: boolean;
  /**
   * Restores a setting an earlier non-transactional step of the same change turned off (SQLite's
   * `PRAGMA foreign_keys = ON` after a rebuild): run it even when a step before it failed.
   */
  readonly restores: boolean;
  /**
   * A query whose rows (column `sql`) are statements the database wrote into its own schema, run in
   * order right after it on the same connection: SQLite's rebuild recreates the table's triggers,
   * which DROP TABLE took with it, from the texts it saved before.
   */
  readonly replays: boolean;
}

/** A step's flags beyond its text and transactionality; each defaults to false. */
export type SchemaStepFlags = Partial<Pick<SchemaStep, "copiesTable" | "failsOnRows" | "restores" | "replays">>;

/** The steps the compiler made (runSchemaStep runs only these, so no caller's text passes as one). */
const made = new WeakSet<SchemaStep>();

/** The only place steps are made: frozen, and known to runSchemaStep. */
export function schemaStep(sql: string, transactional: boolean, flags: SchemaStepFlags = {}): SchemaStep {
  const step: SchemaStep = Object.freeze({
    sql,
    transactional,
    copiesTable: flags.copiesTable ?? false,
    failsOnRows: flags.failsOnRows ?? false,
    restores: flags.restores ?? false,
    replays: flags.replays ?? false,
  });
  made.add(step);
  return step;
}

/** True for a step made by schemaStep (by a compiler), not a look-alike object. */
export function isSchemaStep(value: unknown): value is SchemaStep {
  return typeof value === "object" && value !== null && made.has(value as SchemaStep);
}
