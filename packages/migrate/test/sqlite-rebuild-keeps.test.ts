import type { Engine } from "tempest-db-js";
import { column, insert, introspect, Model, modelsSnapshot, sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateMigration, migrateUp, sameSchema } from "../src/index.js";
import { engineFor, sqliteTarget, tempFolder } from "./support/targets.js";

class Tag1 extends Model {
  static tablename = "mgr_tags";
  id = column.integer().primaryKey();
  label = column.text();
}
/** label becomes NOT NULL: SQLite rebuilds the table. */
class Tag2 extends Model {
  static tablename = "mgr_tags";
  id = column.integer().primaryKey();
  label = column.text().notNull().default("");
}

/** A rebuild applied by the runner keeps the table's trigger and the view on it (and the rows). */
describe.each([sqliteTarget])("a rebuild applied by the runner on $name", (target) => {
  let engine: Engine;
  const folder = tempFolder("sqlite-rebuild");
  beforeAll(async () => {
    engine = engineFor(target);
    for (const s of [
      "DROP VIEW IF EXISTS mgr_labels",
      "DROP TABLE IF EXISTS mgr_tags",
      "DROP TABLE IF EXISTS mgr_log",
      "DROP TABLE IF EXISTS mgr_history",
    ])
      await engine.execute(sql.raw(s)).rowsAffected();
    await engine.createAll([Tag1]);
    await engine.execute(sql.raw("CREATE TABLE mgr_log (what text)")).rowsAffected();
    await engine
      .execute(sql.raw("CREATE TRIGGER mgr_tags_log AFTER INSERT ON mgr_tags BEGIN INSERT INTO mgr_log VALUES (new.label); END"))
      .rowsAffected();
    await engine.execute(sql.raw("CREATE VIEW mgr_labels AS SELECT label FROM mgr_tags")).rowsAffected();
    await engine
      .execute(
        insert(Tag1).values([
          { id: 1, label: "a" },
          { id: 2, label: "b" },
        ]),
      )
      .rowsAffected();
  });
  afterAll(async () => {
    await engine.close();
    folder.remove();
  });

  it("keeps the trigger, the view and every row", async () => {
    const generated = await generateMigration({ engine, models: [Tag2], folder: folder.path, from: "database", allowDestructive: "all" });
    expect(generated.changes).toEqual(["rebuild table mgr_tags"]);
    const events: unknown[] = [];
    const result = await migrateUp({ engine, folder: folder.path, historyTable: "mgr_history", onEvent: (e) => events.push(e) });
    const hist = await engine.execute(sql.raw("SELECT * FROM mgr_history")).all();
    expect(result, JSON.stringify(hist)).toMatchObject({ applied: [generated.name] });
    expect(sameSchema(await introspect(engine, { tables: ["mgr_tags"] }), modelsSnapshot(engine, [Tag2]))).toBe(true);
    await engine.execute(insert(Tag2).values({ id: 3, label: "c" })).rowsAffected();
    expect(await engine.execute(sql.raw("SELECT label FROM mgr_labels ORDER BY label")).all()).toEqual([
      { label: "a" },
      { label: "b" },
      { label: "c" },
    ]);
    expect(await engine.execute(sql.raw("SELECT what FROM mgr_log ORDER BY what")).all()).toEqual([
      { what: "a" },
      { what: "b" },
      { what: "c" },
    ]);
    expect(await engine.execute(sql.raw("PRAGMA foreign_key_check")).all()).toEqual([]);
  });
});
