import { appendFileSync } from "node:fs";
import type { Engine } from "tempest-db-js";
import { sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MigrateEvent } from "../src/index.js";
import {
  MigrationChecksumError,
  MigrationFailedError,
  MigrationStateError,
  migrateDown,
  migrateUp,
  migrationStatus,
} from "../src/index.js";
import { dropTables, engineFor, sqlMigration, tableExists, targets, tempFolder, writeMigration } from "./support/targets.js";

describe.each(targets)("the runner on $name", (target) => {
  let engine: Engine;
  const folders: { remove: () => void }[] = [];
  const folder = (prefix: string) => {
    const f = tempFolder(prefix);
    folders.push(f);
    return f.path;
  };
  beforeAll(() => {
    engine = engineFor(target);
  });
  afterAll(async () => {
    await engine.close();
    for (const f of folders) f.remove();
  });

  it("applies pending migrations in order, records them, runs a data step, and reverts the last N", async () => {
    const historyTable = "mg_hist_order";
    await dropTables(engine, ["mg_items", historyTable]);
    const dir = folder("order");
    writeMigration(
      dir,
      "20260101000000_create_items",
      sqlMigration(target.name, ["CREATE TABLE mg_items (id integer PRIMARY KEY, name varchar(50) NOT NULL)"], ["DROP TABLE mg_items"]),
    );
    writeMigration(
      dir,
      "20260102000000_add_note",
      `{
        dialect: ${JSON.stringify(target.name)},
        up: [
          { kind: "sql", sql: "ALTER TABLE mg_items ADD COLUMN note varchar(20)" },
          {
            kind: "data",
            name: "seed two items",
            async run({ db, log }) {
              const { Model, column, insert } = await import("tempest-db-js");
              class Item extends Model {
                static tablename = "mg_items";
                id = column.integer().primaryKey();
                name = column.varchar(50).notNull();
                note = column.varchar(20);
              }
              await db.execute(insert(Item).values([{ id: 1, name: "a", note: "x" }, { id: 2, name: "b" }])).rowsAffected();
              log("seeded 2");
            },
          },
        ],
        down: [{ kind: "sql", sql: "ALTER TABLE mg_items DROP COLUMN note" }],
      }`,
    );
    const events: MigrateEvent[] = [];
    const options = { engine, folder: dir, historyTable, onEvent: (e: MigrateEvent) => events.push(e) };
    expect((await migrationStatus(options)).pending).toEqual(["20260101000000_create_items", "20260102000000_add_note"]);

    const first = await migrateUp(options);
    expect(first).toEqual({ applied: ["20260101000000_create_items", "20260102000000_add_note"], skipped: [] });
    expect(events.filter((e) => e.event === "migration-done").map((e) => (e as { name: string }).name)).toEqual(first.applied);
    expect(events).toContainEqual({ event: "log", name: "20260102000000_add_note", message: "seeded 2" });
    const rows = await engine.execute(sql.raw("SELECT id, name, note FROM mg_items ORDER BY id")).all();
    expect(rows).toEqual([
      { id: 1, name: "a", note: "x" },
      { id: 2, name: "b", note: null },
    ]);
    const status = await migrationStatus(options);
    expect(status.migrations.map((m) => m.state)).toEqual(["applied", "applied"]);
    expect(status.pending).toEqual([]);
    expect(status.problems).toEqual([]);
    expect(await migrateUp(options)).toEqual({ applied: [], skipped: [] });

    expect(await migrateDown({ ...options, count: 1 })).toEqual({ reverted: ["20260102000000_add_note"] });
    await expect(engine.execute(sql.raw("SELECT note FROM mg_items")).all()).rejects.toThrow();
    expect((await migrationStatus(options)).pending).toEqual(["20260102000000_add_note"]);
    expect(await migrateDown({ ...options, count: 5 })).toEqual({ reverted: ["20260101000000_create_items"] });
    expect(await tableExists(engine, "mg_items")).toBe(false);
  });

  it("detects an applied migration edited afterwards, and one whose file went away", async () => {
    const historyTable = "mg_hist_edit";
    await dropTables(engine, ["mg_edit", historyTable]);
    const dir = folder("edit");
    const path = writeMigration(
      dir,
      "20260101000000_create_edit",
      sqlMigration(target.name, ["CREATE TABLE mg_edit (id integer)"], ["DROP TABLE mg_edit"]),
    );
    const options = { engine, folder: dir, historyTable };
    await migrateUp(options);
    appendFileSync(path, "// a comment added after the deploy\n");
    const error = await migrateUp(options).catch((e: unknown) => e);
    expect(MigrationChecksumError.isInstance(error)).toBe(true);
    expect((error as MigrationChecksumError).migration).toBe("20260101000000_create_edit");
    const status = await migrationStatus(options);
    expect(status.migrations.map((m) => m.state)).toEqual(["edited"]);
    expect(status.problems[0]).toMatch(/was edited after it was applied/);
    await expect(migrateDown(options)).rejects.toThrow(/edited after it was applied/);

    const other = folder("edit-missing");
    const missing = await migrateUp({ ...options, folder: other }).catch((e: unknown) => e);
    expect(MigrationStateError.isInstance(missing)).toBe(true);
    expect((missing as Error).message).toMatch(
      /20260101000000_create_edit is in the history table but its file is not in the migrations folder/,
    );
    expect((await migrationStatus({ ...options, folder: other })).migrations.map((m) => m.state)).toEqual(["missing-file"]);
    await dropTables(engine, ["mg_edit"]);
  });

  it(
    target.name === "MySQL"
      ? "reports a failed migration precisely: the statements that already ran (implicit commits), recorded in the history, and resumes after the fix"
      : "rolls a failed migration back entirely: no table, no history row",
    async () => {
      const historyTable = "mg_hist_fail";
      await dropTables(engine, ["mg_fail_a", "mg_fail_b", historyTable]);
      const dir = folder("fail");
      const up = ["CREATE TABLE mg_fail_a (id integer)", "CREATE TABLE mg_fail_b (id integer)"];
      const path = writeMigration(
        dir,
        "20260101000000_fails",
        sqlMigration(target.name, [...up, "INSERT INTO mg_missing_table VALUES (1)"], ["DROP TABLE mg_fail_b", "DROP TABLE mg_fail_a"]),
      );
      const options = { engine, folder: dir, historyTable };
      const error = (await migrateUp(options).catch((e: unknown) => e)) as MigrationFailedError;
      expect(MigrationFailedError.isInstance(error)).toBe(true);
      expect(error.migration).toBe("20260101000000_fails");
      expect(error.failed).toBe("INSERT INTO mg_missing_table VALUES (1)");
      const status = await migrationStatus(options);
      if (target.name !== "MySQL") {
        expect(error.rolledBack).toBe(true);
        expect(error.ran).toEqual([]);
        expect(error.message).toMatch(/Everything it did was rolled back/);
        expect(await tableExists(engine, "mg_fail_a")).toBe(false);
        expect(await tableExists(engine, "mg_fail_b")).toBe(false);
        expect(status.migrations.map((m) => m.state)).toEqual(["pending"]);
        return;
      }
      expect(error.rolledBack).toBe(false);
      expect(error.ran).toEqual(up);
      expect(error.message).toContain("1. CREATE TABLE mg_fail_a (id integer)\n  2. CREATE TABLE mg_fail_b (id integer)");
      expect(await tableExists(engine, "mg_fail_a")).toBe(true);
      expect(status.migrations).toMatchObject([{ name: "20260101000000_fails", state: "failed", stepsDone: 2, stepsTotal: 3 }]);
      expect(status.migrations[0]?.error).toMatch(/mg_missing_table/);
      // A second run neither repeats the two statements nor skips the migration: it stops, and says why.
      await expect(migrateUp(options)).rejects.toThrow(/stopped after 2 of 3 steps.*--resume/s);
      // The fix goes into the step that failed; resume goes on from there.
      writeMigration(
        dir,
        "20260101000000_fails",
        sqlMigration(target.name, [...up, "INSERT INTO mg_fail_a VALUES (1)"], ["DROP TABLE mg_fail_b", "DROP TABLE mg_fail_a"]),
      );
      expect(path).toMatch(/20260101000000_fails\.ts$/);
      expect(await migrateUp({ ...options, resume: true })).toEqual({ applied: ["20260101000000_fails"], skipped: [] });
      expect(await engine.execute(sql.raw("SELECT id FROM mg_fail_a")).all()).toEqual([{ id: 1 }]);
      expect((await migrationStatus(options)).migrations.map((m) => m.state)).toEqual(["applied"]);
      await migrateDown(options);
      expect(await tableExists(engine, "mg_fail_a")).toBe(false);
    },
  );
});

describe("the runner's lock on PostgreSQL", () => {
  const pg = targets.find((t) => t.name === "PostgreSQL");
  if (!pg) throw new Error("no PostgreSQL target");
  let engine: Engine;
  const folders: { remove: () => void }[] = [];
  beforeAll(() => {
    engine = engineFor(pg);
  });
  afterAll(async () => {
    await engine.close();
    for (const f of folders) f.remove();
  });

  // CREATE INDEX CONCURRENTLY waits for every open transaction to end: a migration lock held by a
  // transaction of the runner's own made it wait forever (it did, before the lock moved to a reserved
  // connection outside any transaction).
  it("runs a CREATE INDEX CONCURRENTLY step while it holds the migration lock, and releases the lock after", async () => {
    const historyTable = "mg_hist_cic";
    await dropTables(engine, ["mg_cic", historyTable]);
    await engine.execute(sql.raw("CREATE TABLE mg_cic (id integer PRIMARY KEY, a integer)")).rowsAffected();
    const f = tempFolder("cic");
    folders.push(f);
    writeMigration(
      f.path,
      "20260101000000_cic",
      `{ dialect: "PostgreSQL", up: [{ kind: "sql", sql: "CREATE INDEX CONCURRENTLY mg_cic_a ON mg_cic (a)", transactional: false }], down: null }`,
    );
    const up = migrateUp({ engine, folder: f.path, historyTable });
    const hung = new Promise((_, reject) => setTimeout(() => reject(new Error("migrateUp still waiting after 20 s")), 20_000));
    expect(await Promise.race([up, hung])).toEqual({ applied: ["20260101000000_cic"], skipped: [] });
    const valid = await engine
      .execute(sql.raw("SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'mg_cic_a'"))
      .scalar();
    expect(valid).toBe(true);
    const held = await engine
      .execute(sql.raw("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = 32343"))
      .scalar();
    expect(held).toBe(0);
    await dropTables(engine, ["mg_cic", historyTable]);
  });
});
