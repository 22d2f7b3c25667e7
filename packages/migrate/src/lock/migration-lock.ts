import type { Engine, Expression } from "tempest-db-js";
import { sql } from "tempest-db-js";
import { MigrationLockTimeoutError } from "../errors.js";

export interface LockOptions {
  /** Longest wait for another runner to finish (default 10 minutes). */
  readonly waitMs: number;
  /** Called once when the lock is held elsewhere and the runner starts waiting. */
  readonly onWait: () => void;
}

/**
 * What keeps two runners (two deploys starting at once) from applying the same migration.
 * `perMigration`: the database serializes writers itself (SQLite's BEGIN IMMEDIATE), so there is no
 * lock across the run; each migration's transaction re-reads the history instead, and a runner
 * that finds the migration applied by the other skips it.
 */
export interface MigrationLock {
  readonly perMigration: boolean;
  hold<T>(engine: Engine, key: string, options: LockOptions, fn: () => Promise<T>): Promise<T>;
}

/** How often the lock's connection runs a statement, so a pooler or firewall does not drop it as idle. */
const HEARTBEAT_MS = 2000;
const POLL_MS = 250;

/**
 * A session-level lock held on one reserved connection (`engine.reserve`), outside any transaction,
 * for as long as `fn` runs on the others: the server releases it if this process dies, so a crashed
 * deploy never leaves it behind. Not a transaction on purpose: PostgreSQL's CREATE INDEX
 * CONCURRENTLY waits for every open transaction to end, the lock's own included, so a lock held by a
 * transaction would make every concurrent step of the migrations it guards wait forever.
 * `tryLock` answers 1 (or true) when it got the lock; `unlock` releases it before the connection
 * goes back to the pool.
 */
function connectionLock(tryLock: (key: string) => Expression<any>, unlock: (key: string) => Expression<any>): MigrationLock {
  return {
    perMigration: false,
    async hold(engine, key, options, fn) {
      return engine.reserve(async (session) => {
        const deadline = Date.now() + options.waitMs;
        let waited = false;
        for (;;) {
          const got = await session.execute(tryLock(key)).scalar();
          if (got === true || Number(got) === 1) break;
          if (Date.now() >= deadline) {
            throw new MigrationLockTimeoutError(
              `Another process held the migration lock for more than ${options.waitMs} ms. It may still be applying migrations; run again when it has finished.`,
            );
          }
          if (!waited) options.onWait();
          waited = true;
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        }
        let beat: Promise<unknown> = Promise.resolve();
        const timer = setInterval(() => {
          beat = session
            .execute(sql.raw("SELECT 1"))
            .rowsAffected()
            .catch(() => {});
        }, HEARTBEAT_MS);
        try {
          return await fn();
        } finally {
          clearInterval(timer);
          await beat;
          await session
            .execute(unlock(key))
            .rowsAffected()
            .catch(() => {});
        }
      });
    },
  };
}

/** A stable 31-bit number for the lock's name (PostgreSQL's advisory locks take numbers). */
function lockNumber(key: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(key, "utf8")) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h & 0x7fffffff;
}

/** The two-key form, with a first key of its own, so the number cannot collide with an application's one-key locks. */
const PG_LOCK_CLASS = 0x7e57;

/** PostgreSQL: a session-level advisory lock on the reserved connection. */
export const advisoryLock: MigrationLock = connectionLock(
  (key) => sql.expr`SELECT pg_try_advisory_lock(${PG_LOCK_CLASS}, ${lockNumber(key)}) AS got`,
  (key) => sql.expr`SELECT pg_advisory_unlock(${PG_LOCK_CLASS}, ${lockNumber(key)}) AS released`,
);

/** MySQL / MariaDB: a named lock of the lock connection's session. */
export const namedLock: MigrationLock = connectionLock(
  (key) => sql.expr`SELECT GET_LOCK(${key}, 0) AS got`,
  (key) => sql.expr`SELECT RELEASE_LOCK(${key}) AS released`,
);

/** SQLite: each migration's BEGIN IMMEDIATE transaction is the lock (see MigrationLock.perMigration). */
export const serializedWritesLock: MigrationLock = {
  perMigration: true,
  hold: (_engine, _key, _options, fn) => fn(),
};
