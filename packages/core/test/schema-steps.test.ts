import { describe, expect, expectTypeOf, test } from "vitest";
import type { SchemaChange, SchemaChangeKind, SchemaStep, TableSnapshot } from "../src/index.js";
import {
  defineCapabilities,
  isSchemaStep,
  runSchemaStep,
  schemaStepStatement,
  schemaSteps,
  UnsupportedFeatureError,
  ValidationError,
} from "../src/index.js";
import { columnSnapshot } from "../src/testing/index.js";
import { fullCapabilities, testEngine } from "./support/test-dialect.js";

const parent: TableSnapshot = {
  name: "parents",
  columns: [columnSnapshot("id", "integer", { notNull: true }), columnSnapshot("kind", "enum", { enumValues: ["a", "b"] })],
  primaryKey: ["id"],
  indexes: [{ name: "parents_kind", columns: ["kind"], unique: false, where: null }],
  foreignKeys: [],
};
const key = {
  name: "children_parent_fk",
  columns: ["parent_id"],
  referencedTable: "parents",
  referencedColumns: ["id"],
  onDelete: "cascade",
} as const;
const amount = columnSnapshot("amount", "integer");

/** One change of every kind: a Record over the union's tags, so a new kind fails to compile here until it has a case. */
const every: { readonly [K in SchemaChangeKind]: Extract<SchemaChange, { kind: K }> } = {
  createTable: { kind: "createTable", table: parent },
  dropTable: { kind: "dropTable", table: parent },
  renameTable: { kind: "renameTable", from: "parents", to: "elders" },
  addColumn: { kind: "addColumn", table: "children", column: columnSnapshot("parent_id", "integer"), foreignKey: key },
  dropColumn: { kind: "dropColumn", table: "children", column: amount },
  renameColumn: { kind: "renameColumn", table: "children", from: "amount", to: "total" },
  alterColumn: { kind: "alterColumn", table: "children", from: amount, to: { ...amount, kind: "bigint", notNull: true } },
  createIndex: { kind: "createIndex", table: "parents", index: parent.indexes[0]!, concurrently: true },
  dropIndex: { kind: "dropIndex", table: "parents", index: parent.indexes[0]!, concurrently: true },
  addForeignKey: { kind: "addForeignKey", table: "children", foreignKey: key, notValid: true },
  dropForeignKey: { kind: "dropForeignKey", table: "children", foreignKey: key },
  addCheck: { kind: "addCheck", table: "children", name: "children_amount_set", notNullOf: "amount", notValid: true },
  dropCheck: { kind: "dropCheck", table: "children", name: "children_amount_set", notNullOf: "amount" },
  validateConstraint: { kind: "validateConstraint", table: "children", name: "children_amount_set" },
  addUniqueConstraint: { kind: "addUniqueConstraint", table: "children", column: amount, name: "children_amount_key" },
  rebuildTable: { kind: "rebuildTable", before: parent, after: parent, columnMap: { id: "id", kind: "kind" } },
};

describe("schemaSteps in the base compiler", () => {
  test("every change kind compiles where the capabilities allow it, in standard SQL", async () => {
    const engine = testEngine();
    const sql: Record<string, string[]> = {};
    for (const change of Object.values(every)) sql[change.kind] = (await schemaSteps(engine, change)).map((s) => s.sql);
    expect(sql).toEqual({
      createTable: [
        `CREATE TABLE "parents" ("id" integer NOT NULL, "kind" text, PRIMARY KEY ("id"), CHECK ("kind" IN ('a', 'b')))`,
        `CREATE INDEX "parents_kind" ON "parents" ("kind")`,
      ],
      dropTable: [`DROP TABLE "parents"`],
      renameTable: [`ALTER TABLE "parents" RENAME TO "elders"`],
      addColumn: [
        `ALTER TABLE "children" ADD COLUMN "parent_id" integer, ADD CONSTRAINT "children_parent_fk" FOREIGN KEY ("parent_id") REFERENCES "parents" ("id") ON DELETE CASCADE`,
      ],
      dropColumn: [`ALTER TABLE "children" DROP COLUMN "amount"`],
      renameColumn: [`ALTER TABLE "children" RENAME COLUMN "amount" TO "total"`],
      alterColumn: [`ALTER TABLE "children" ALTER COLUMN "amount" TYPE bigint USING "amount"::bigint, ALTER COLUMN "amount" SET NOT NULL`],
      createIndex: [`CREATE INDEX CONCURRENTLY "parents_kind" ON "parents" ("kind")`],
      dropIndex: [`DROP INDEX CONCURRENTLY "parents_kind"`],
      addForeignKey: [
        `ALTER TABLE "children" ADD CONSTRAINT "children_parent_fk" FOREIGN KEY ("parent_id") REFERENCES "parents" ("id") ON DELETE CASCADE NOT VALID`,
      ],
      dropForeignKey: [`ALTER TABLE "children" DROP CONSTRAINT "children_parent_fk"`],
      addCheck: [`ALTER TABLE "children" ADD CONSTRAINT "children_amount_set" CHECK ("amount" IS NOT NULL) NOT VALID`],
      dropCheck: [`ALTER TABLE "children" DROP CONSTRAINT "children_amount_set"`],
      validateConstraint: [`ALTER TABLE "children" VALIDATE CONSTRAINT "children_amount_set"`],
      addUniqueConstraint: [
        `CREATE UNIQUE INDEX CONCURRENTLY "children_amount_key" ON "children" ("amount")`,
        `ALTER TABLE "children" ADD CONSTRAINT "children_amount_key" UNIQUE USING INDEX "children_amount_key"`,
      ],
      rebuildTable: [
        `CREATE TABLE "parents__tempest_rebuild" ("id" integer NOT NULL, "kind" text, PRIMARY KEY ("id"), CHECK ("kind" IN ('a', 'b')))`,
        `INSERT INTO "parents__tempest_rebuild" ("id", "kind") SELECT "id", "kind" FROM "parents"`,
        `DROP TABLE "parents"`,
        `ALTER TABLE "parents__tempest_rebuild" RENAME TO "parents"`,
        `CREATE INDEX "parents_kind" ON "parents" ("kind")`,
      ],
    });
  });

  test("a dialect without the ALTER refuses the change by name, with the way out, before anything runs", async () => {
    const engine = testEngine(defineCapabilities({ ...fullCapabilities, ...ddlOff }));
    const allowed = new Set<SchemaChangeKind>(["createTable", "dropTable", "addColumn"]);
    for (const change of Object.values(every)) {
      const result = await schemaSteps(engine, change).catch((e: unknown) => e);
      if (allowed.has(change.kind)) {
        expect(Array.isArray(result), change.kind).toBe(true);
        continue;
      }
      expect(UnsupportedFeatureError.isInstance(result), change.kind).toBe(true);
      expect((result as UnsupportedFeatureError).dialect).toBe("TestSQL");
      expect((result as UnsupportedFeatureError).hint.length, change.kind).toBeGreaterThan(20);
    }
  });

  test("transactional follows the capability and the statement; concurrent and check steps say so", async () => {
    const engine = testEngine();
    expect((await schemaSteps(engine, every.createIndex))[0]).toMatchObject({ transactional: false, copiesTable: false });
    expect((await schemaSteps(engine, { ...every.createIndex, concurrently: false }))[0]).toMatchObject({ transactional: true });
    // The index is built outside the transaction; attaching it as the constraint is a short statement inside one.
    expect((await schemaSteps(engine, every.addUniqueConstraint)).map((s) => s.transactional)).toEqual([false, true]);
    const mysqlLike = testEngine(defineCapabilities({ ...fullCapabilities, transactionalDdl: false }));
    expect((await schemaSteps(mysqlLike, every.dropColumn))[0]).toMatchObject({ transactional: false });
  });

  test("names are quoted by the compiler; text no statement may hold is refused", async () => {
    const engine = testEngine();
    const steps = await schemaSteps(engine, { kind: "renameColumn", table: 'we"ird', from: "a", to: 'b"; DROP TABLE x; --' });
    expect(steps[0]?.sql).toBe(`ALTER TABLE "we""ird" RENAME COLUMN "a" TO "b""; DROP TABLE x; --"`);
    await expect(schemaSteps(engine, { kind: "dropColumn", table: "t", column: columnSnapshot("a\0b", "text") })).rejects.toThrow(
      ValidationError,
    );
    const nul = columnSnapshot("c", "text", { default: { kind: "sql", sql: "x\0" } });
    await expect(schemaSteps(engine, { kind: "addColumn", table: "t", column: nul })).rejects.toThrow(ValidationError);
    await expect(schemaSteps(engine, { kind: "alterColumn", table: "t", from: amount, to: { ...amount, name: "other" } })).rejects.toThrow(
      /renameColumn/,
    );
    await expect(schemaSteps(engine, { ...every.rebuildTable, columnMap: { nope: "id" } })).rejects.toThrow(/columnMap/);
  });

  test("only steps the compiler made run: a look-alike object is refused", async () => {
    const engine = testEngine();
    const [made] = await schemaSteps(engine, every.dropTable);
    expect(isSchemaStep(made)).toBe(true);
    expect(Object.isFrozen(made)).toBe(true);
    const forged = {
      sql: "DROP TABLE users",
      transactional: true,
      copiesTable: false,
      failsOnRows: false,
      restores: false,
      replays: false,
    };
    expect(isSchemaStep(forged)).toBe(false);
    expect(() => schemaStepStatement(forged)).toThrow(ValidationError);
    await expect(runSchemaStep(engine, forged)).rejects.toThrow(/made by schemaSteps/);
    expect(engine.compile(schemaStepStatement(made!)).sql).toBe(`DROP TABLE "parents"`);
  });

  test("types: the change union is closed and the steps are read-only", () => {
    const engine = testEngine();
    expectTypeOf(schemaSteps(engine, every.dropTable)).toEqualTypeOf<Promise<readonly SchemaStep[]>>();
    expectTypeOf(engine.schemaSteps).parameter(0).toEqualTypeOf<SchemaChange>();
    expectTypeOf<SchemaStep["transactional"]>().toEqualTypeOf<boolean>();
    // @ts-expect-error not a change kind
    const unknownKind: SchemaChange = { kind: "truncateTable", table: "t" };
    void unknownKind;
    // @ts-expect-error an addColumn needs its column
    const missing: SchemaChange = { kind: "addColumn", table: "t" };
    void missing;
  });
});

const ddlOff = {
  renameTable: false,
  renameColumn: false,
  dropColumn: false,
  alterColumn: false,
  alterConstraints: false,
  tableRebuild: false,
  concurrentIndexes: false,
  notValidConstraints: false,
} as const;
