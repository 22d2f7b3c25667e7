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
  const migrateTo = async (to: SchemaSnapshot, known = false) => {
    const from = await introspect(engine, { tables: TABLES, foreignKeyIndexes: known });
    const plan = diffSchemas(from, to, { allowDestructive: "all", capabilities: alterCapabilitiesOf(engine.capabilities) });
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

  /** Seed 622785321's shape: a key on c4 whose only index is a declared one. */
  const indexedKey = (indexes: ReturnType<typeof idx>[]) =>
    onServer(
      snap(
        [
          table("mfk_parent", [idCol()]),
          table("mfk_child", [idCol(), col("c4", "integer")], { indexes, foreignKeys: [fk("mfk_child_c4_fkey", ["c4"], "mfk_parent")] }),
        ],
        "abstract",
      ),
    );

  /** The child's key as the server names it (MySQL: `<table>_ibfk_<n>`, as the models' snapshot does). */
  const keyName = async () => String((await live()).tables.find((t) => t.name === "mfk_child")?.foreignKeys[0]?.name);

  for (const known of [false, true]) {
    it(`drops the only index a key that stays uses (seed 622785321; the table's own key indexes ${known ? "read" : "unknown"})`, async () => {
      await migrateTo(indexedKey([idx("mfk_child_i0", ["c4"])]));
      const to = indexedKey([]);
      const plan = await migrateTo(to, known);
      expect(plan.changes.map((c) => c.label)).toEqual(["drop index mfk_child.mfk_child_i0"]);
      expect(sameSchema(await live(), to)).toBe(true);
      expect(diffSchemas(await live(), to).changes).toEqual([]);
      // MySQL: the key has an index of its own now, made in the statement that dropped the declared one.
      if (target.name === "MySQL") expect(await serverIndexes()).toEqual(["PRIMARY", await keyName()]);
      // ...which goes with the key, as InnoDB's own does.
      await migrateTo(
        onServer(snap([table("mfk_parent", [idCol()]), table("mfk_child", [idCol(), col("c4", "integer")])], "abstract")),
        known,
      );
      if (target.name === "MySQL") expect(await serverIndexes()).toEqual(["PRIMARY"]);
    });
  }

  it("drops the only index a key uses in a down plan, and a multi-column one that served the key", async () => {
    await migrateTo(indexedKey([]));
    const up = await migrateTo(indexedKey([idx("mfk_child_pair", ["c4", "id"])]));
    // The declared index made InnoDB drop the key's own one: it is now the only index the key has.
    if (target.name === "MySQL") expect(await serverIndexes()).toEqual(["PRIMARY", "mfk_child_pair"]);
    for (const planned of reversePlan(up).changes) await applySchemaChange(engine, planned.change);
    expect(sameSchema(await live(), indexedKey([]))).toBe(true);
    if (target.name === "MySQL") expect(await serverIndexes()).toEqual(["PRIMARY", await keyName()]);
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
