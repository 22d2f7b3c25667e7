import { sql } from "tempest-db-js";
import type { MigrationSupport } from "tempest-db-js/dialect";
import { MIGRATION_SUPPORT_VERSION } from "tempest-db-js/dialect";

/** The two-key form of the advisory lock, with a first key of its own, so the number cannot collide with an application's one-key locks. */
const LOCK_CLASS = 0x7e57;

/** A stable 31-bit number for the lock's name (advisory locks take numbers): FNV-1a of its UTF-8 bytes. */
function lockNumber(key: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(key, "utf8")) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h & 0x7fffffff;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const millis = (ms: number) => Math.max(1, Math.trunc(ms));

/**
 * PostgreSQL's part of the migration runner: a session-level advisory lock (released by the server
 * when the runner's connection dies), lock_timeout per transaction (SET LOCAL: it ends with the
 * transaction and never leaks into the pool) or per reserved session (SET, then RESET), and the
 * INVALID index a failed CREATE INDEX CONCURRENTLY leaves (pg_index.indisvalid).
 */
export const postgresMigrationSupport: MigrationSupport = {
  version: MIGRATION_SUPPORT_VERSION,
  lock: {
    kind: "session",
    tryLock: (key) => sql.expr`SELECT pg_try_advisory_lock(${LOCK_CLASS}, ${lockNumber(key)}) AS got`,
    unlock: (key) => sql.expr`SELECT pg_advisory_unlock(${LOCK_CLASS}, ${lockNumber(key)}) AS released`,
  },
  transactionLockTimeout: (ms) => [`SET LOCAL lock_timeout = ${millis(ms)}`],
  sessionLockTimeout: (ms) => ({ set: [`SET lock_timeout = ${millis(ms)}`], reset: ["RESET lock_timeout"] }),
  invalidIndex: (name) =>
    sql.expr`SELECT 1 AS invalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE NOT i.indisvalid AND c.relname = ${name} AND pg_table_is_visible(i.indrelid)`,
  dropInvalidIndex: (name) => `DROP INDEX CONCURRENTLY IF EXISTS ${quote(name)}`,
};
