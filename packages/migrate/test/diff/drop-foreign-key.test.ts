import type { Engine, ModelClass, SchemaSnapshot } from "tempest-db-js";
import { applySchemaChange, column, index, introspect, Model, modelsSnapshot, SCHEMA_SNAPSHOT_VERSION, sql } from "tempest-db-js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { alterCapabilitiesOf, diffSchemas, pullModels, reversePlan, sameSchema } from "../../src/index.js";
import { col, fk, idCol, idx, snap, table } from "../snapshot-fixtures.js";
import { engineFor, targets } from "../support/targets.js";

const TABLES = ["mfk_child", "mfk_parent"];

class Parent extends Model {
  static tablename = "mfk_parent";
  id = column.integer().primaryKey();
}
class Child extends Model {
  static tablename = "mfk_child";
  static naming = "snake_case" as const;
  id = column.integer().primaryKey();
  parentId = column.integer().references(() => Parent, "id");
}
class ChildAlone extends Model {
  static tablename = "mfk_child";
  static naming = "snake_case" as const;
  id = column.integer().primaryKey();
  parentId = column.integer();
}
class ChildIndexed extends Model {
  static tablename = "mfk_child";
  static naming = "snake_case" as const;
  static indexes = [index("mfk_child_by_parent", ["parentId"])];
  id = column.integer().primaryKey();
  parentId = column.integer();
}

/**
 * A foreign key dropped by a migration leaves nothing behind: MariaDB keeps the index InnoDB made
 * for the key after DROP FOREIGN KEY, which read back as drift (the diff-apply property test failed
 * on seed 370481944). The key made by a migration (named constraint, index named after it) and by
 * createAll (unnamed, index named after its column); a declared index that serves the key stays.
 */
describe.each(targets)("dropping a foreign key on $name", (target) => {
  let engine: Engine;
  const live = () => introspect(engine, { tables: TABLES });
  const migrateTo = async (to: SchemaSnapshot) => {
    const plan = diffSchemas(await live(), to, { allowDestructive: "all", capabilities: alterCapabilitiesOf(engine.capabilities) });
    for (const planned of plan.changes) await applySchemaChange(engine, planned.change);
    return plan;
  };
  const onServer = (schema: SchemaSnapshot) => modelsSnapshot(engine, pullModels(schema).models);
  const models = (...list: ModelClass[]) => modelsSnapshot(engine, list);
  /** Every index of the child table as the server lists it (MySQL: the ones the introspector hides too). */
  const serverIndexes = async (): Promise<string[]> => {
    if (target.name !== "MySQL") return [];
    const rows = await engine
      .execute(
        sql.raw(
          "SELECT DISTINCT INDEX_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'mfk_child' ORDER BY 1",
        ),
      )
      .all();
    return rows.map((r) => String(r.name)).sort();
  };

  beforeAll(async () => {
    engine = engineFor(target);
    await live();
  });
  beforeEach(async () => {
    await migrateTo({ version: SCHEMA_SNAPSHOT_VERSION, dialect: engine.dialectName, tables: [] });
  });
  afterAll(async () => {
    await migrateTo({ version: SCHEMA_SNAPSHOT_VERSION, dialect: engine.dialectName, tables: [] });
    await engine.close();
  });

  it("made by a migration: seed 370481944's case, the key dropped with its table's parent and its column retyped", async () => {
    const from = onServer(
      snap(
        [
          table("mfk_parent", [idCol()]),
          table("mfk_child", [idCol(), col("c4", "integer")], {
            foreignKeys: [fk("mfk_child_c4_fkey", ["c4"], "mfk_parent", { onDelete: "cascade" })],
          }),
        ],
        "abstract",
      ),
    );
    const to = onServer(snap([table("mfk_child", [idCol(), col("c1", "integer"), col("c4", "text")])], "abstract"));
    await migrateTo(from);
    expect(sameSchema(await live(), from)).toBe(true);
    await migrateTo(to);
    expect(sameSchema(await live(), to)).toBe(true);
    if (target.name === "MySQL") expect(await serverIndexes()).toEqual(["PRIMARY"]);
  });

  it("made by createAll (an unnamed key), dropped and made again by the down plan", async () => {
    await engine.createAll([Parent, Child]);
    const withKey = await live();
    expect(sameSchema(withKey, models(Parent, Child))).toBe(true);
    const plan = await migrateTo(models(Parent, ChildAlone));
    expect(sameSchema(await live(), models(Parent, ChildAlone))).toBe(true);
    if (target.name === "MySQL") expect(await serverIndexes()).toEqual(["PRIMARY"]);
    for (const planned of reversePlan(plan).changes) await applySchemaChange(engine, planned.change);
    expect(sameSchema(await live(), withKey)).toBe(true);
    // The down plan's key goes again without a trace: it carries its table as it is then.
    await migrateTo(models(Parent, ChildAlone));
    if (target.name === "MySQL") expect(await serverIndexes()).toEqual(["PRIMARY"]);
  });

  it("keeps a declared index that serves the key", async () => {
    const from = onServer(
      snap(
        [
          table("mfk_parent", [idCol()]),
          table("mfk_child", [idCol(), col("parent_id", "integer")], {
            indexes: [idx("mfk_child_by_parent", ["parent_id"])],
            foreignKeys: [fk("mfk_child_parent_fk", ["parent_id"], "mfk_parent")],
          }),
        ],
        "abstract",
      ),
    );
    await migrateTo(from);
    await migrateTo(models(Parent, ChildIndexed));
    expect(sameSchema(await live(), models(Parent, ChildIndexed))).toBe(true);
    if (target.name === "MySQL") expect(await serverIndexes()).toEqual(["PRIMARY", "mfk_child_by_parent"]);
  });
});
