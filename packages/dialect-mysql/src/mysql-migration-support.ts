import { sql } from "tempest-db-js";
import type { MigrationSupport } from "tempest-db-js/dialect";
import { MIGRATION_SUPPORT_VERSION } from "tempest-db-js/dialect";

/**
 * MySQL's and MariaDB's part of the migration runner: a named lock of the lock connection's session
 * (GET_LOCK, released by the server when that connection dies), and `lock_wait_timeout` around each
 * DDL statement. DDL commits implicitly here, so every statement runs on its own, on a reserved
 * connection: a statement waiting for a table's metadata lock queues every later query of the table
 * behind it, hence a short bound (whole seconds, the variable's unit; at least 1) and a retry.
 */
export const mysqlMigrationSupport: MigrationSupport = {
  version: MIGRATION_SUPPORT_VERSION,
  lock: {
    kind: "session",
    tryLock: (key) => sql.expr`SELECT GET_LOCK(${key}, 0) AS got`,
    unlock: (key) => sql.expr`SELECT RELEASE_LOCK(${key}) AS released`,
  },
  sessionLockTimeout: (ms) => ({
    set: [`SET SESSION lock_wait_timeout = ${Math.max(1, Math.ceil(ms / 1000))}`],
    reset: ["SET SESSION lock_wait_timeout = DEFAULT"],
  }),
};
