import type { Engine } from "tempest-db-js";
import { sql } from "tempest-db-js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { MigrateEvent } from "../src/index.js";
import { MigrationFailedError, migrateUp } from "../src/index.js";
import { engineFor, targets, tempFolder, writeMigration } from "./support/targets.js";

/**
 * Statements that run outside a transaction get the lock timeout and the bounded retry too: every
 * DDL statement on MySQL/MariaDB (lock_wait_timeout: a real transaction holds the table's metadata
 * lock), VALIDATE CONSTRAINT and hand-written non-transactional statements on PostgreSQL. A
 * concurrent index build does not: its waits for older transactions hold no one up, and lock_timeout
 * would cancel it (measured: a 1 s lock_timeout cancels it and leaves an INVALID index).
 */
describe.each(targets.filter((t) => t.name !== "SQLite"))("a statement outside the transaction on $name", (target) => {
  let engine: Engine;
  const folders: { remove: () => void }[] = [];
  const mysql = target.name === "MySQL";
  beforeAll(() => {
    engine = engineFor(target, 8);
  });
  beforeEach(async () => {
    await engine.execute(sql.raw("DROP TABLE IF EXISTS mgla_t, mgla_other, mgla_history")).rowsAffected();
    await engine.execute(sql.raw("CREATE TABLE mgla_t (id integer PRIMARY KEY, n integer)")).rowsAffected();
    await engine.execute(sql.raw("CREATE TABLE mgla_other (id integer PRIMARY KEY)")).rowsAffected();
    await engine.execute(sql.raw("INSERT INTO mgla_t (id, n) VALUES (1, 1)")).rowsAffected();
  });
  afterAll(async () => {
    await engine.execute(sql.raw("DROP TABLE IF EXISTS mgla_t, mgla_other, mgla_history")).rowsAffected();
    await engine.close();
    for (const f of folders) f.remove();
  });

  /** A transaction that runs `statement` and stays open until `release` is called. */
  async function hold(statement: string): Promise<{ release: () => void; done: Promise<void> }> {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let started = () => {};
    const holding = new Promise<void>((resolve) => (started = resolve));
    const done = engine.transaction(async (tx) => {
      await tx.execute(sql.raw(statement)).all();
      started();
      await released;
    });
    await holding;
    return { release, done };
  }

  function migration(name: string, statement: string, options: { lockTimeoutMs: number; lockRetries: number }): string {
    const f = tempFolder("lock-alone");
    folders.push(f);
    writeMigration(
      f.path,
      `20260101000000_${name}`,
      `{ dialect: ${JSON.stringify(target.name)}, lockTimeoutMs: ${options.lockTimeoutMs}, lockRetries: ${options.lockRetries}, up: [{ kind: "sql", sql: ${JSON.stringify(statement)}, transactional: false }], down: null }`,
    );
    return f.path;
  }

  // MySQL: a transaction that read the table holds its metadata lock; PostgreSQL: SHARE UPDATE
  // EXCLUSIVE, the lock VALIDATE takes (a plain read would not make it wait).
  const holder = mysql ? "SELECT count(*) FROM mgla_t" : "LOCK TABLE mgla_t IN SHARE UPDATE EXCLUSIVE MODE";
  const statement = mysql ? "ALTER TABLE mgla_t ADD COLUMN c integer" : "ALTER TABLE mgla_t VALIDATE CONSTRAINT mgla_n_set";

  it("gives up after the lock timeout, retries, then applies; the pool's sessions are put back", async () => {
    if (!mysql)
      await engine.execute(sql.raw("ALTER TABLE mgla_t ADD CONSTRAINT mgla_n_set CHECK (n IS NOT NULL) NOT VALID")).rowsAffected();
    const timeoutMs = mysql ? 1000 : 200;
    const held = await hold(holder);
    // Released only after the test's own bound: the old runner waited for the holder.
    const failsafe = setTimeout(() => held.release(), 15_000);
    const t0 = performance.now();
    const error = (await migrateUp({
      engine,
      folder: migration("once", statement, { lockTimeoutMs: timeoutMs, lockRetries: 0 }),
      historyTable: "mgla_history",
    }).catch((e: unknown) => e)) as MigrationFailedError;
    const waited = performance.now() - t0;
    expect(MigrationFailedError.isInstance(error)).toBe(true);
    expect(String((error.cause as Error).message)).toMatch(/lock (wait )?timeout/i);
    expect(waited).toBeLessThan(timeoutMs + 5000);

    const reads: number[] = [];
    const reader = (async () => {
      for (let i = 0; i < 6; i++) {
        const r0 = performance.now();
        await engine.execute(sql.raw("SELECT count(*) FROM mgla_t")).all();
        reads.push(performance.now() - r0);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const events: MigrateEvent[] = [];
    const result = await migrateUp({
      engine,
      folder: migration("retried", statement, { lockTimeoutMs: timeoutMs, lockRetries: 6 }),
      historyTable: "mgla_history_2",
      // The holder lets go once the first attempt has timed out and a retry is announced: a timer
      // here raced the migration's own start-up, which under load outlasted it (no retry seen).
      onEvent: (e) => {
        events.push(e);
        if (e.event === "retry") held.release();
      },
    });
    clearTimeout(failsafe);
    await Promise.all([held.done, reader]);
    await engine.execute(sql.raw("DROP TABLE IF EXISTS mgla_history_2")).rowsAffected();
    expect(result.applied).toEqual(["20260101000000_retried"]);
    expect(events.filter((e) => e.event === "retry").length).toBeGreaterThan(0);
    // A read queued behind the waiting ALTER waits at most about the timeout, not the holder's life.
    expect(Math.max(...reads)).toBeLessThan(timeoutMs + 1500);
    if (mysql) {
      const sessions = await Promise.all(
        Array.from({ length: 8 }, () =>
          engine.execute(sql.raw("SELECT @@SESSION.lock_wait_timeout = @@GLOBAL.lock_wait_timeout AS same")).scalar(),
        ),
      );
      expect(sessions.every((same) => Number(same) === 1)).toBe(true);
    } else {
      const validated = await engine.execute(sql.raw("SELECT convalidated FROM pg_constraint WHERE conname = 'mgla_n_set'")).scalar();
      expect(validated).toBe(true);
      const setting = await engine.execute(sql.raw("SELECT current_setting('lock_timeout') AS t")).scalar();
      expect(setting).toBe("0");
    }
  });

  // PostgreSQL only (no concurrent builds elsewhere): registered there, not skipped here.
  if (!mysql)
    it("CREATE INDEX CONCURRENTLY waits for an older transaction past lock_timeout, and builds a valid index", async () => {
      const held = await hold("SELECT count(*) FROM mgla_other");
      setTimeout(() => held.release(), 1500);
      const events: MigrateEvent[] = [];
      const result = await migrateUp({
        engine,
        folder: migration("concurrent", "CREATE INDEX CONCURRENTLY mgla_by_n ON mgla_t (n)", { lockTimeoutMs: 200, lockRetries: 0 }),
        historyTable: "mgla_history",
        onEvent: (e) => events.push(e),
      });
      await held.done;
      expect(result.applied).toEqual(["20260101000000_concurrent"]);
      const valid = await engine
        .execute(sql.raw("SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'mgla_by_n'"))
        .scalar();
      expect(valid).toBe(true);
    });
});
