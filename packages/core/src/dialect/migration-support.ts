import type { Expression } from "../ast/expression.js";

/**
 * The version of the migration-support contract. A dialect's `migrationSupport` states the one it
 * was written for; core takes versions from 1 up to this one.
 */
export const MIGRATION_SUPPORT_VERSION = 1;

/**
 * How two migration runners (two deploys starting at once) keep from applying the same migration.
 * - `session`: a lock of the database session, taken on one reserved connection outside any
 *   transaction and released by the server if the process dies (PostgreSQL's advisory locks,
 *   MySQL's GET_LOCK). `tryLock` answers 1 (or true) at once when it got the lock, anything else when
 *   another session holds it; `unlock` releases it.
 * - `write-transaction`: the database lets one writing transaction run at a time (SQLite's BEGIN
 *   IMMEDIATE), so each migration's transaction is its own lock: it reads the history again and skips
 *   a migration another runner applied while it waited.
 */
export type MigrationLockSupport =
  | {
      readonly kind: "session";
      tryLock(key: string): Expression<unknown>;
      unlock(key: string): Expression<unknown>;
    }
  | { readonly kind: "write-transaction" };

/** Statements that bound lock waits on one session, and the ones that put the session back as it was. */
export interface SessionSettings {
  readonly set: readonly string[];
  readonly reset: readonly string[];
}

/**
 * The optional part of the dialect contract that the migration runner needs beyond the
 * introspector: the lock between runners, how to bound a statement's lock waits, and how to find an
 * index a failed concurrent build left behind. A dialect without it still loads and serves every
 * other statement; migrations then refuse it by name (UnsupportedFeatureError). A fourth dialect
 * provides its own here, with no change to core or to the migrate package.
 */
export interface MigrationSupport {
  readonly version: number;
  readonly lock: MigrationLockSupport;
  /**
   * Run first in a migration's transaction: later statements of the transaction wait at most `ms`
   * for a lock (PostgreSQL `SET LOCAL lock_timeout`). None where DDL is not transactional.
   */
  transactionLockTimeout?(ms: number): readonly string[];
  /**
   * Around a statement run outside a transaction, on one reserved connection (PostgreSQL `SET
   * lock_timeout`, MySQL `SET SESSION lock_wait_timeout`, whose unit is whole seconds).
   */
  sessionLockTimeout?(ms: number): SessionSettings;
  /** A query returning a row when a failed concurrent build left an index of this name behind, unusable. */
  invalidIndex?(name: string): Expression<unknown>;
  /** The statement that drops such an index without blocking writes. */
  dropInvalidIndex?(name: string): string;
}
