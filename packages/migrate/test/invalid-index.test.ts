import type { Engine } from "tempest-db-js";
import { sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MigrateEvent } from "../src/index.js";
import { MigrationFailedError, migrateUp } from "../src/index.js";
import { engineFor, targets, tempFolder, writeMigration } from "./support/targets.js";

const postgres = targets.filter((t) => t.name === "PostgreSQL");

const INDEX_STEP = `{
  kind: "change",
  change: { kind: "createIndex", table: "mgi_t", index: { name: "mgi_t_v", columns: ["v"], unique: true, where: null }, concurrently: true },
  statements: [{ sql: "CREATE UNIQUE INDEX CONCURRENTLY mgi_t_v ON mgi_t (v)", transactional: false }],
}`;

describe.each(postgres)("a failed CREATE INDEX CONCURRENTLY on $name", (target) => {
  let engine: Engine;
  const folder = tempFolder("invalid-index");
  beforeAll(() => {
    engine = engineFor(target);
  });
  afterAll(async () => {
    await engine.execute(sql.raw("DROP TABLE IF EXISTS mgi_t, mgi_history")).rowsAffected();
    await engine.close();
    folder.remove();
  });

  const invalid = async () =>
    (
      await engine
        .execute(
          sql.raw(
            "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE NOT i.indisvalid AND c.relname = 'mgi_t_v'",
          ),
        )
        .all()
    ).length;

  it("leaves no INVALID index behind, and an INVALID leftover is dropped and rebuilt", async () => {
    await engine.execute(sql.raw("DROP TABLE IF EXISTS mgi_t, mgi_history")).rowsAffected();
    await engine.execute(sql.raw("CREATE TABLE mgi_t (id integer PRIMARY KEY, v integer)")).rowsAffected();
    await engine.execute(sql.raw("INSERT INTO mgi_t VALUES (1, 7), (2, 7)")).rowsAffected();
    // What a deploy killed mid-build (or one that failed before this runner existed) leaves: an INVALID index.
    await expect(engine.execute(sql.raw("CREATE UNIQUE INDEX CONCURRENTLY mgi_t_v ON mgi_t (v)")).rowsAffected()).rejects.toThrow();
    expect(await invalid()).toBe(1);

    writeMigration(
      folder.path,
      "20260101000000_unique_v",
      `{ dialect: "PostgreSQL", up: [${INDEX_STEP}], down: [{ kind: "sql", sql: "DROP INDEX mgi_t_v" }] }`,
    );
    const events: MigrateEvent[] = [];
    const options = { engine, folder: folder.path, historyTable: "mgi_history", onEvent: (e: MigrateEvent) => events.push(e) };
    // The duplicates are still there: the build fails again, and its leftover is dropped.
    const error = (await migrateUp(options).catch((e: unknown) => e)) as MigrationFailedError;
    expect(MigrationFailedError.isInstance(error)).toBe(true);
    expect(error.failed).toBe("CREATE UNIQUE INDEX CONCURRENTLY mgi_t_v ON mgi_t (v)");
    expect(events.filter((e) => e.event === "invalid-index")).toHaveLength(2); // before the attempt, and after it failed
    expect(await invalid()).toBe(0);

    // Fixed data; a leftover made again by hand is found and the index rebuilt.
    await expect(engine.execute(sql.raw("CREATE UNIQUE INDEX CONCURRENTLY mgi_t_v ON mgi_t (v)")).rowsAffected()).rejects.toThrow();
    await engine.execute(sql.raw("DELETE FROM mgi_t WHERE id = 2")).rowsAffected();
    events.length = 0;
    expect(await migrateUp(options)).toMatchObject({ applied: ["20260101000000_unique_v"] });
    expect(events).toContainEqual({ event: "invalid-index", name: "20260101000000_unique_v", index: "mgi_t_v" });
    expect(await invalid()).toBe(0);
    const valid = await engine
      .execute(sql.raw("SELECT i.indisvalid AS ok FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'mgi_t_v'"))
      .all();
    expect(valid).toEqual([{ ok: true }]);
  });
});
