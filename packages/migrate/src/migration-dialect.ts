import type { Engine, Executor } from "tempest-db-js";
import { sql, UnsupportedFeatureError } from "tempest-db-js";
import type { MigrationLock } from "./lock/migration-lock.js";
import { advisoryLock, namedLock, serializedWritesLock } from "./lock/migration-lock.js";

/**
 * What the runner needs to know of a dialect beyond core's contract: how to lock, whether DDL is
 * transactional, how to bound lock waits, and how to find an index a failed concurrent build left.
 * The built-in dialects are known by name; a fourth dialect passes its own (`dialect` option).
 */
export interface MigrationDialect {
  readonly lock: MigrationLock;
  /**
   * DDL inside a transaction rolls back with it (PostgreSQL, SQLite); false where DDL commits
   * implicitly (MySQL). Default: the engine's `transactionalDdl` capability, which the dialect declares.
   */
  readonly transactionalDdl?: boolean;
  /** Statements that bound how long each later statement of the transaction waits for a lock. */
  lockTimeout?(ms: number): string[];
  /** Whether a failed concurrent build left an index of this name behind, unusable. */
  invalidIndex?(db: Executor, name: string): Promise<boolean>;
  /** The statement that drops such an index without blocking writes. */
  dropInvalidIndex?(name: string): string;
}

const quotePg = (name: string) => `"${name.replace(/"/g, '""')}"`;

const postgres: MigrationDialect = {
  lock: advisoryLock,
  // SET LOCAL: the timeout ends with the migration's transaction, never leaks into the pool.
  lockTimeout: (ms) => [`SET LOCAL lock_timeout = ${Math.max(1, Math.trunc(ms))}`],
  async invalidIndex(db, name) {
    const rows = await db
      .execute(
        sql.expr`SELECT 1 AS invalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE NOT i.indisvalid AND c.relname = ${name} AND pg_table_is_visible(i.indrelid)`,
      )
      .all();
    return rows.length > 0;
  },
  dropInvalidIndex: (name) => `DROP INDEX CONCURRENTLY IF EXISTS ${quotePg(name)}`,
};

const BUILT_IN: Readonly<Record<string, MigrationDialect>> = {
  PostgreSQL: postgres,
  MySQL: { lock: namedLock },
  SQLite: { lock: serializedWritesLock },
};

/** A MigrationDialect with what the engine's capabilities already tell filled in. */
export type ResolvedMigrationDialect = MigrationDialect & { readonly transactionalDdl: boolean };

export function migrationDialectFor(engine: Engine, given?: MigrationDialect): ResolvedMigrationDialect {
  const known = given ?? BUILT_IN[engine.dialectName];
  if (known) return { ...known, transactionalDdl: known.transactionalDdl ?? engine.capabilities.transactionalDdl };
  throw new UnsupportedFeatureError(
    engine.dialectName,
    "migrations",
    "The migration runner knows PostgreSQL, MySQL/MariaDB and SQLite; for another dialect pass a MigrationDialect as the `dialect` option.",
  );
}
