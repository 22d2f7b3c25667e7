import { describe, expect, it } from "vitest";
import type { Engine } from "../engine/engine.js";
import { introspect } from "../engine/introspect.js";
import { modelsSnapshot } from "../engine/models-snapshot.js";
import { UnsupportedFeatureError } from "../errors.js";
import type { TableSnapshot } from "../schema/schema-snapshot.js";
import { tableMeta } from "../schema/table-meta.js";
import { SchemaChild, SchemaParent, schemaModels } from "./conformance-schema-models.js";

/**
 * What a dialect's introspector owes: the tables `createAll(models)` made read back as exactly
 * `modelsSnapshot(engine, models)`. A dialect without an introspector owes the typed refusal.
 */
export function schemaTests(getEngine: () => Engine): void {
  describe("schema snapshot", () => {
    const names = schemaModels.map((m) => m.tablename);

    it("introspect after createAll deep-equals modelsSnapshot", async () => {
      const engine = getEngine();
      if (engine.schemaAccess().dialect.introspector === undefined) {
        await expectRefused(engine);
        return;
      }
      await engine.dropAll([...schemaModels]);
      await engine.createAll([...schemaModels]);
      try {
        const live = await introspect(engine, { tables: names });
        const models = modelsSnapshot(engine, [...schemaModels]);
        expect(live.tables.map((t) => t.name)).toEqual([...names].sort());
        expect(live).toEqual(models);
        // JSON-serialisable: a migration file stores it.
        expect(JSON.parse(JSON.stringify(models))).toEqual(models);
      } finally {
        await engine.dropAll([...schemaModels]);
      }
    });

    it("modelsSnapshot says what the models declare, on every dialect", () => {
      const engine = getEngine();
      if (engine.schemaAccess().dialect.introspector === undefined) return expectRefused(engine);
      const snapshot = modelsSnapshot(engine, [...schemaModels]);
      const table = (name: string) => {
        const found = snapshot.tables.find((t) => t.name === name);
        if (!found) throw new Error(`no table ${name} in the snapshot`);
        return found;
      };
      const parents = table(SchemaParent.tablename);
      const children = table(SchemaChild.tablename);
      const col = (t: TableSnapshot, name: string) => {
        const found = t.columns.find((c) => c.name === name);
        if (!found) throw new Error(`no column ${name} in ${t.name}`);
        return found;
      };
      expect(parents.columns.map((c) => c.name)).toEqual(tableMeta(SchemaParent).columns.map((c) => c.name));
      expect(parents.primaryKey).toEqual(["id"]);
      expect(children.primaryKey).toEqual(["parent_id", "position"]);
      expect(col(parents, "status")).toMatchObject({
        kind: "enum",
        enumValues: ["open", "closed", "on hold"],
        notNull: true,
        default: { kind: "value", value: "open" },
      });
      expect(col(parents, "code")).toMatchObject({ unique: true, notNull: true });
      expect(col(parents, "name").default).toEqual({ kind: "value", value: "unnamed 'quoted'" });
      // The literal the database holds: "0.00" where the type is decimal; SQLite's sortable numeric text elsewhere.
      expect(col(parents, "amount").default?.kind).toBe("value");
      expect(col(parents, "negative").default).toEqual({ kind: "value", value: -7 });
      expect(col(parents, "created_at").default?.kind).toBe("sql");
      expect(col(parents, "computed").default).toMatchObject({ kind: "sql", sql: expect.stringMatching(/^2 \+ 3$/) });
      expect([true, 1]).toContainEqual((col(parents, "active").default as { value: unknown }).value);
      expect(col(parents, "label")).toMatchObject({ notNull: false, default: null, unique: false });
      expect(parents.foreignKeys.map((fk) => [fk.columns, fk.referencedTable, fk.onDelete])).toEqual([
        [["parent_id"], SchemaParent.tablename, "set null"],
      ]);
      const actionOf = (column: string) => children.foreignKeys.find((fk) => fk.columns[0] === column)?.onDelete;
      expect(["parent_id", "restrict_ref"].map(actionOf)).toEqual(["cascade", "restrict"]);
      // InnoDB has one action for both, and MySQL/MariaDB snapshots read it "restrict".
      expect(["no action", "restrict"]).toContain(actionOf("no_action_ref"));
      expect(children.foreignKeys).toHaveLength(5);
      expect(children.indexes.map((i) => [i.name, i.unique])).toEqual([
        ["tempest_schema_children_kind", false],
        ["tempest_schema_children_note", true],
      ]);
      const predicate = children.indexes[1]?.where;
      if (engine.capabilities.partialIndexes) expect(predicate).toMatch(/note.+IS NOT NULL/);
      else expect(predicate).toBeNull();
    });

    it("reads only the tables asked for, and none that do not exist", async () => {
      const engine = getEngine();
      if (engine.schemaAccess().dialect.introspector === undefined) {
        await expectRefused(engine);
        return;
      }
      await engine.dropAll([...schemaModels]);
      const [parent, child] = schemaModels;
      await engine.createAll([parent]);
      try {
        const live = await introspect(engine, { tables: [parent.tablename, child.tablename, "tempest_schema_absent"] });
        expect(live).toEqual(modelsSnapshot(engine, [parent]));
      } finally {
        await engine.dropAll([parent]);
      }
    });
  });
}

async function expectRefused(engine: Engine): Promise<void> {
  const refused = await introspect(engine).catch((e: unknown) => e);
  expect(UnsupportedFeatureError.isInstance(refused)).toBe(true);
  expect((refused as UnsupportedFeatureError).dialect).toBe(engine.dialectName);
  expect((refused as UnsupportedFeatureError).feature).toContain("introspection");
  expect(() => modelsSnapshot(engine, [...schemaModels])).toThrow(/migrations/);
}
