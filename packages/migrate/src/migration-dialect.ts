import type { Engine, MigrationSupport } from "tempest-db-js";
import { migrationSupportOf } from "tempest-db-js";
import type { MigrationLock } from "./lock/migration-lock.js";
import { migrationLockOf } from "./lock/migration-lock.js";

/**
 * What the runner knows of the engine's dialect: its migration support (core's contract, provided by
 * the dialect package: a dialect without it is refused by name), the lock built from it, and
 * whether DDL is transactional (the engine's `transactionalDdl` capability).
 */
export interface RunnerDialect {
  readonly support: MigrationSupport;
  readonly lock: MigrationLock;
  /** DDL inside a transaction rolls back with it (PostgreSQL, SQLite); false where DDL commits implicitly (MySQL). */
  readonly transactionalDdl: boolean;
}

export function runnerDialectOf(engine: Engine): RunnerDialect {
  const support = migrationSupportOf(engine);
  return { support, lock: migrationLockOf(support.lock), transactionalDdl: engine.capabilities.transactionalDdl };
}
