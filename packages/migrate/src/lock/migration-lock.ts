import type { Engine, Expression, MigrationLockSupport } from "tempest-db-js";
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
function connectionLock(tryLock: (key: string) => Expression<unknown>, unlock: (key: string) => Expression<unknown>): MigrationLock {
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

/** SQLite: each migration's BEGIN IMMEDIATE transaction is the lock (see MigrationLock.perMigration). */
const serializedWritesLock: MigrationLock = {
  perMigration: true,
  hold: (_engine, _key, _options, fn) => fn(),
};

/** The lock the dialect's migration support describes. */
export function migrationLockOf(lock: MigrationLockSupport): MigrationLock {
  return lock.kind === "session" ? connectionLock(lock.tryLock, lock.unlock) : serializedWritesLock;
}
