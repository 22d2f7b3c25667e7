import type { Engine, Executor, SchemaChange } from "tempest-db-js";

/** What a data step is handed: where to run its statements, and a way to report progress. */
export interface DataStepContext {
  /** A transaction when the step is transactional (the default), else the engine itself. */
  readonly db: Executor;
  /** The engine, for a step that commits in batches of its own (`transactional: false`). */
  readonly engine: Engine;
  /** A progress line, shown to people and emitted as an event with `--json`. */
  readonly log: (message: string) => void;
}

/** A statement a schema change compiled to, as the file stores it. */
export interface StoredStatement {
  readonly sql: string;
  /** False: runs outside the migration's transaction (`CREATE INDEX CONCURRENTLY`, SQLite's `PRAGMA foreign_keys`, MySQL DDL). */
  readonly transactional: boolean;
  /** A check (`PRAGMA foreign_key_check`): any row it returns fails the migration. */
  readonly failsOnRows?: boolean;
  /** Restores a setting an earlier step turned off (`PRAGMA foreign_keys = ON`): runs even after a failure. */
  readonly restores?: boolean;
  /** A query whose rows (`sql`) are statements the database saved from its own schema, run right after it (SQLite's rebuild recreates the table's triggers). */
  readonly replays?: boolean;
  /** Known to copy the whole table while writes wait (MySQL `ALGORITHM=COPY`); informational. */
  readonly copiesTable?: boolean;
}

/** A schema change, as data, with the statements it compiled to when the file was generated. */
export interface ChangeStep {
  readonly kind: "change";
  readonly change: SchemaChange;
  /**
   * The SQL reviewed with the file. The runner executes these, not a fresh compile, so a later
   * release of the compiler never changes what an applied migration did.
   */
  readonly statements: readonly StoredStatement[];
}

/** A hand-written statement. */
export interface SqlStep {
  readonly kind: "sql";
  readonly sql: string;
  /**
   * False for a statement that cannot run in a transaction (PostgreSQL `CREATE INDEX CONCURRENTLY`).
   * Defaults to true, except on MySQL/MariaDB, whose DDL commits implicitly.
   */
  readonly transactional?: boolean;
}

/** Code run with the query builder: a backfill, a data fix. */
export interface DataStep {
  readonly kind: "data";
  /** Shown in progress and in the error when the step fails. */
  readonly name: string;
  /**
   * True (the default): the step runs inside the migration's transaction. False: it runs on the
   * engine and commits as it goes (a backfill in batches that must not hold locks for its whole run).
   */
  readonly transactional?: boolean;
  run(context: DataStepContext): Promise<void>;
}

export type MigrationStep = ChangeStep | SqlStep | DataStep;

/** A migration file's default export. */
export interface Migration {
  /** The dialect the statements were written for ("PostgreSQL", "MySQL", "SQLite"); checked before anything runs. */
  readonly dialect: string;
  readonly up: readonly MigrationStep[];
  /** The steps that undo `up`, in order; null for a migration that cannot be reverted. */
  readonly down: readonly MigrationStep[] | null;
  /**
   * How long each DDL statement may wait for its table's lock (default: the runner's, 5 000 ms):
   * PostgreSQL `lock_timeout` (not for CONCURRENTLY index builds, whose waits hold no one up), MySQL
   * `lock_wait_timeout` (whole seconds, rounded up).
   */
  readonly lockTimeoutMs?: number;
  /** How many times a statement that gave up waiting for its lock is tried again (default: the runner's, 3). */
  readonly lockRetries?: number;
}

/** Identity, for type checking a hand-written migration: `export default defineMigration({ ... })`. */
export function defineMigration<M extends Migration>(migration: M): M {
  return migration;
}
