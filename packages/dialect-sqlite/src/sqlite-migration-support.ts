import type { MigrationSupport } from "tempest-db-js/dialect";
import { MIGRATION_SUPPORT_VERSION } from "tempest-db-js/dialect";

/**
 * SQLite's part of the migration runner: one writer at a time is the database's own rule, so each
 * migration's BEGIN IMMEDIATE transaction is the lock (the busy timeout bounds the wait for it).
 */
export const sqliteMigrationSupport: MigrationSupport = {
  version: MIGRATION_SUPPORT_VERSION,
  lock: { kind: "write-transaction" },
};
