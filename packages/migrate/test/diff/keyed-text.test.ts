import type { Engine, ModelClass } from "tempest-db-js";
import { applySchemaChange, column, index, insert, introspect, Model, modelsSnapshot, select, sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alterCapabilitiesOf, diffSchemas, reversePlan, sameSchema } from "../../src/index.js";
import { engineFor, targets } from "../support/targets.js";

class Note1 extends Model {
  static tablename = "mkt_notes";
  id = column.integer().primaryKey();
  code = column.text();
  tag = column.text();
}
/** The same columns under keys: a UNIQUE and an index. */
class Note2 extends Model {
  static tablename = "mkt_notes";
  static indexes = [index("mkt_notes_by_tag", ["tag"])];
  id = column.integer().primaryKey();
  code = column.text().unique();
  tag = column.text();
}

/**
 * A text column that gains a key gets the type the model's own DDL gives a keyed text column (MySQL:
 * varchar(255), since a key cannot cover a whole TEXT), and goes back when it loses it; the rows stay.
 * On MySQL the ALTER once read the column before the change as keyed too, kept TEXT and failed.
 */
describe.each(targets)("a text column gaining and losing a key on $name", (target) => {
  let engine: Engine;
  const live = () => introspect(engine, { tables: ["mkt_notes"] });
  const models = (m: ModelClass) => modelsSnapshot(engine, [m]);
  const columnType = async (name: string) => {
    const row = await engine
      .execute(
        sql.expr`SELECT DATA_TYPE AS type FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'mkt_notes' AND COLUMN_NAME = ${name}`,
      )
      .one();
    return String(row.type);
  };

  beforeAll(async () => {
    engine = engineFor(target);
    await engine.execute(sql.raw("DROP TABLE IF EXISTS mkt_notes")).rowsAffected();
  });
  afterAll(async () => {
    await engine.execute(sql.raw("DROP TABLE IF EXISTS mkt_notes")).rowsAffected();
    await engine.close();
  });

  it("alters the column to the keyable type, round trip clean, and back", async () => {
    await engine.createAll([Note1]);
    await engine
      .execute(
        insert(Note1).values([
          { id: 1, code: "a", tag: "x" },
          { id: 2, code: "b", tag: "x" },
        ]),
      )
      .rowsAffected();
    const caps = alterCapabilitiesOf(engine.capabilities);
    // Destructive on MySQL: varchar(255) narrows the TEXT (longer values would be refused).
    const plan = diffSchemas(await live(), models(Note2), { capabilities: caps, allowDestructive: "all" });
    for (const planned of plan.changes) await applySchemaChange(engine, planned.change);
    expect(sameSchema(await live(), models(Note2))).toBe(true);
    expect(diffSchemas(await live(), models(Note2), { capabilities: caps }).changes).toEqual([]);
    if (target.name === "MySQL") {
      expect(await columnType("code")).toBe("varchar");
      expect(await columnType("tag")).toBe("varchar");
    }
    const twin = await engine
      .execute(insert(Note2).values({ id: 3, code: "a" }))
      .rowsAffected()
      .catch((e: unknown) => e);
    expect(twin).toBeInstanceOf(Error);
    for (const planned of reversePlan(plan).changes) await applySchemaChange(engine, planned.change);
    expect(sameSchema(await live(), models(Note1))).toBe(true);
    if (target.name === "MySQL") expect(await columnType("code")).toBe("longtext");
    expect(await engine.execute(select(Note1).orderBy("id")).all()).toEqual([
      { id: 1, code: "a", tag: "x" },
      { id: 2, code: "b", tag: "x" },
    ]);
  });
});
