import type { Engine } from "tempest-db-js";
import { sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MigrateEvent } from "../src/index.js";
import { MigrationFailedError, migrateUp } from "../src/index.js";
import { engineFor, sqlMigration, targets, tempFolder, writeMigration } from "./support/targets.js";

const postgres = targets.filter((t) => t.name === "PostgreSQL");

describe.each(postgres)("lock_timeout on $name", (target) => {
  let engine: Engine;
  const folders: { remove: () => void }[] = [];
  beforeAll(() => {
    engine = engineFor(target, 8);
  });
  afterAll(async () => {
    await engine.execute(sql.raw("DROP TABLE IF EXISTS mgl_t, mgl_history")).rowsAffected();
    await engine.close();
    for (const f of folders) f.remove();
  });

  /** A transaction that reads the table and stays open until `release` is called: ALTER TABLE must wait for it. */
  async function holdTable(): Promise<{ release: () => void; done: Promise<void> }> {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let started = () => {};
    const holding = new Promise<void>((resolve) => (started = resolve));
    const done = engine.transaction(async (tx) => {
      await tx.execute(sql.raw("SELECT count(*) FROM mgl_t")).all();
      started();
      await released;
    });
    await holding;
    return { release, done };
  }

  function migration(retries: number) {
    const f = tempFolder("lock-timeout");
    folders.push(f);
    writeMigration(
      f.path,
      "20260101000000_add_c",
      sqlMigration(target.name, ["ALTER TABLE mgl_t ADD COLUMN c integer"], ["ALTER TABLE mgl_t DROP COLUMN c"]).replace(
        /^\{/,
        `{ lockTimeoutMs: 200, lockRetries: ${retries},`,
      ),
    );
    return f.path;
  }

  it("gives up its place in the lock queue after lock_timeout, so readers behind it are not held up; retries, then applies", async () => {
    await engine.execute(sql.raw("DROP TABLE IF EXISTS mgl_t, mgl_history")).rowsAffected();
    await engine.execute(sql.raw("CREATE TABLE mgl_t (id integer PRIMARY KEY)")).rowsAffected();
    const folder = migration(0);
    const holder = await holdTable();
    const t0 = performance.now();
    const error = (await migrateUp({ engine, folder, historyTable: "mgl_history" }).catch((e: unknown) => e)) as MigrationFailedError;
    const waited = performance.now() - t0;
    expect(MigrationFailedError.isInstance(error)).toBe(true);
    expect(error.rolledBack).toBe(true);
    expect(String((error.cause as Error).message)).toMatch(/lock timeout/i);
    // 200 ms of lock_timeout, not the holder's lifetime.
    expect(waited).toBeLessThan(3000);

    // Again with retries: the holder ends while the runner waits between attempts.
    const events: MigrateEvent[] = [];
    const folder2 = migration(6);
    const reads: number[] = [];
    const reader = (async () => {
      // Reads keep going while the ALTER waits: each one ends within the 200 ms lock_timeout.
      for (let i = 0; i < 5; i++) {
        const r0 = performance.now();
        await engine.execute(sql.raw("SELECT count(*) FROM mgl_t")).all();
        reads.push(performance.now() - r0);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    setTimeout(() => holder.release(), 700);
    const result = await migrateUp({ engine, folder: folder2, historyTable: "mgl_history", onEvent: (e) => events.push(e) });
    await Promise.all([holder.done, reader]);
    expect(result.applied).toEqual(["20260101000000_add_c"]);
    expect(events.filter((e) => e.event === "retry").length).toBeGreaterThan(0);
    // Without lock_timeout each would wait for the holder, about 700 ms, queued behind the ALTER.
    expect(Math.max(...reads)).toBeLessThan(500);
    expect(await engine.execute(sql.raw("SELECT c FROM mgl_t")).all()).toEqual([]);
  });
});
