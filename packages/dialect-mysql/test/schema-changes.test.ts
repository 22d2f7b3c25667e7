import type { ColumnSnapshot, Engine, SchemaChange, SchemaStep } from "tempest-db-js";
import {
  addColumn,
  applySchemaSteps,
  ConstraintViolationError,
  column,
  insert,
  introspect,
  Model,
  QueryError,
  runSchemaStep,
  schemaSteps,
  select,
  sql,
  UnsupportedFeatureError,
} from "tempest-db-js";
import { columnSnapshot } from "tempest-db-js/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { MysqlCapabilities } from "../src/index.js";
import { closeEngines, testEngine } from "./support.js";

class McParent extends Model {
  static tablename = "mc_parent";
  id = column.integer().primaryKey();
  code = column.varchar(20).notNull();
}

class McChild extends Model {
  static tablename = "mc_child";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  parentId = column.integer();
  label = column.varchar(20);
  status = column.enum("a", "b").notNull().default("a");
  amount = column.integer();
  note = column.text();
}

const col = (name: string, kind: ColumnSnapshot["kind"], extra: Partial<ColumnSnapshot> = {}) => columnSnapshot(name, kind, extra);
const label = col("label", "varchar", { length: 20 });
const status = col("status", "enum", { notNull: true, enumValues: ["a", "b"], default: { kind: "value", value: "a" } });
const amount = col("amount", "integer");
const parentKey = {
  name: "mc_child_parent_fk",
  columns: ["parent_id"],
  referencedTable: "mc_parent",
  referencedColumns: ["id"],
  onDelete: "no action",
} as const;

/**
 * Each change with the algorithm it must ask for on MariaDB 10.11 (`copy`: no clause, and the step
 * says copiesTable), in an order that applies on the tables below. Found by trying every ALTER with
 * ALGORITHM=INSTANT, NOCOPY, INPLACE and COPY on the server (the test proves each again).
 */
const cases: ReadonlyArray<readonly [string, SchemaChange, "instant" | "inplace" | "copy"]> = [
  ["add a nullable column", { kind: "addColumn", table: "mc_child", column: col("extra", "integer") }, "instant"],
  [
    "add a NOT NULL column with a default",
    { kind: "addColumn", table: "mc_child", column: col("counted", "integer", { notNull: true, default: { kind: "value", value: 3 } }) },
    "instant",
  ],
  [
    "add a UNIQUE column",
    { kind: "addColumn", table: "mc_child", column: col("code", "varchar", { length: 20, unique: true }) },
    "inplace",
  ],
  [
    "add a column with its foreign key",
    {
      kind: "addColumn",
      table: "mc_child",
      column: col("owner_id", "integer"),
      foreignKey: { ...parentKey, name: "mc_child_owner_fk", columns: ["owner_id"] },
    },
    "copy",
  ],
  [
    "add a column with a computed default",
    { kind: "addColumn", table: "mc_child", column: col("stamped", "datetime", { default: { kind: "sql", sql: "UTC_TIMESTAMP(3)" } }) },
    "copy",
  ],
  ["drop a column", { kind: "dropColumn", table: "mc_child", column: col("extra", "integer") }, "instant"],
  [
    "drop a UNIQUE column",
    { kind: "dropColumn", table: "mc_child", column: col("code", "varchar", { length: 20, unique: true }) },
    "inplace",
  ],
  ["rename a column", { kind: "renameColumn", table: "mc_child", from: "counted", to: "tally" }, "instant"],
  ["rename a table", { kind: "renameTable", from: "mc_child", to: "mc_child2" }, "instant"],
  ["rename it back", { kind: "renameTable", from: "mc_child2", to: "mc_child" }, "instant"],
  [
    "change a default",
    { kind: "alterColumn", table: "mc_child", from: amount, to: { ...amount, default: { kind: "value", value: 7 } } },
    "instant",
  ],
  [
    "append enum values",
    { kind: "alterColumn", table: "mc_child", from: status, to: { ...status, enumValues: ["a", "b", "c"] } },
    "instant",
  ],
  [
    "grow a varchar within one length byte",
    { kind: "alterColumn", table: "mc_child", from: label, to: { ...label, length: 40 } },
    "instant",
  ],
  [
    "make a column NOT NULL",
    { kind: "alterColumn", table: "mc_child", from: { ...label, length: 40 }, to: { ...label, length: 40, notNull: true } },
    "inplace",
  ],
  [
    "add UNIQUE to a column",
    {
      kind: "alterColumn",
      table: "mc_child",
      from: { ...label, length: 40, notNull: true },
      to: { ...label, length: 40, notNull: true, unique: true },
    },
    "inplace",
  ],
  [
    "widen an integer",
    {
      kind: "alterColumn",
      table: "mc_child",
      from: { ...amount, default: { kind: "value", value: 7 } },
      to: { ...amount, kind: "bigint", default: { kind: "value", value: 7 } },
    },
    "copy",
  ],
  [
    "reorder enum values",
    {
      kind: "alterColumn",
      table: "mc_child",
      from: { ...status, enumValues: ["a", "b", "c"] },
      to: { ...status, enumValues: ["c", "a", "b"] },
    },
    "copy",
  ],
  [
    "create an index",
    {
      kind: "createIndex",
      table: "mc_child",
      index: { name: "mc_child_by_note", columns: ["label", "id"], unique: false, where: null },
      concurrently: false,
    },
    "inplace",
  ],
  [
    "drop an index",
    {
      kind: "dropIndex",
      table: "mc_child",
      index: { name: "mc_child_by_note", columns: ["label", "id"], unique: false, where: null },
      concurrently: false,
    },
    "inplace",
  ],
  ["add a foreign key", { kind: "addForeignKey", table: "mc_child", foreignKey: parentKey, notValid: false }, "copy"],
  ["drop a foreign key", { kind: "dropForeignKey", table: "mc_child", foreignKey: parentKey }, "instant"],
  ["add a check", { kind: "addCheck", table: "mc_child", name: "mc_child_amount_set", notNullOf: "status", notValid: false }, "copy"],
  ["drop a check", { kind: "dropCheck", table: "mc_child", name: "mc_child_amount_set", notNullOf: "status" }, "instant"],
];

const CLAUSE = {
  instant: /, ALGORITHM=INSTANT$/,
  inplace: /(, ALGORITHM=INPLACE, LOCK=NONE| ALGORITHM=INPLACE LOCK=NONE)$/,
  copy: /^(?!.*ALGORITHM)/,
};

/** MariaDB's answer when an ALTER cannot run with the algorithm asked for (1845, 1846). */
const NOT_SUPPORTED = /ALGORITHM=INPLACE is not supported/;

describe("MariaDB/MySQL schema changes", () => {
  let engine: Engine;

  beforeAll(async () => {
    engine = testEngine();
  });

  afterAll(async () => {
    await engine.execute(sql.raw("DROP TABLE IF EXISTS mc_child, mc_child2, mc_parent")).rowsAffected();
    await closeEngines();
  });

  beforeEach(async () => {
    await engine.execute(sql.raw("DROP TABLE IF EXISTS mc_child, mc_child2, mc_parent")).rowsAffected();
    await engine.createAll([McParent, McChild]);
    await engine.execute(insert(McParent).values([{ id: 1, code: "p" }])).rowsAffected();
    const rows = Array.from({ length: 50 }, (_, i) => ({
      id: i + 1,
      parentId: 1,
      label: `l${i}`,
      status: "a" as const,
      amount: i,
      note: "n",
    }));
    await engine.execute(insert(McChild).values(rows)).rowsAffected();
  });

  it("asks for ALGORITHM=INSTANT or INPLACE, LOCK=NONE where MariaDB has it, and the server takes each; the ALTERs that copy say so", async () => {
    const server = (engine.capabilities as MysqlCapabilities).server;
    const maria = server.flavor === "mariadb";
    const rowsBefore = await engine.execute(select(McChild).orderBy("id")).all();
    for (const [what, change, algorithm] of cases) {
      const steps = await schemaSteps(engine, change);
      expect(steps, what).toHaveLength(1);
      const step = steps[0] as SchemaStep;
      expect(step.transactional, what).toBe(false);
      expect(step.copiesTable, what).toBe(algorithm === "copy");
      if (maria) expect(step.sql, what).toMatch(CLAUSE[algorithm]);
      if (algorithm === "copy") {
        // The classification is the server's own: asked to work in place, it refuses.
        const inPlace = await engine
          .execute(sql.raw(`${step.sql}, ALGORITHM=INPLACE`))
          .rowsAffected()
          .catch((e: unknown) => e);
        expect(QueryError.isInstance(inPlace), what).toBe(true);
        expect((inPlace as Error).message, what).toMatch(NOT_SUPPORTED);
      }
      await runSchemaStep(engine, step);
    }
    // Every row is still there (the columns changed around them).
    const rows = await engine.execute(sql.raw("SELECT id, parent_id, status, amount FROM mc_child ORDER BY id")).all();
    expect(rows.map((r) => Number(r.id))).toEqual(rowsBefore.map((r) => r.id));
    expect(rows.map((r) => Number(r.amount))).toEqual(rowsBefore.map((r) => r.amount));
  });

  it("addColumn(model, field) keeps the column's UNIQUE and foreign key", async () => {
    class McChildV2 extends McChild {
      ownerId = column.integer().references(() => McParent, "id", { onDelete: "cascade" });
      serial = column.varchar(30).unique();
    }
    expect(engine.compile(addColumn(McChildV2, "ownerId")).sql).toBe(
      "ALTER TABLE `mc_child` ADD COLUMN `owner_id` int, ADD FOREIGN KEY (`owner_id`) REFERENCES `mc_parent` (`id`) ON DELETE CASCADE",
    );
    expect(engine.compile(addColumn(McChildV2, "serial")).sql).toBe(
      "ALTER TABLE `mc_child` ADD COLUMN `serial` varchar(30), ADD UNIQUE (`serial`)",
    );
    await engine.execute(addColumn(McChildV2, "ownerId")).rowsAffected();
    await engine.execute(addColumn(McChildV2, "serial")).rowsAffected();
    const snapshot = await introspect(engine, { tables: ["mc_child"] });
    const child = snapshot.tables[0]!;
    expect(child.columns.find((c) => c.name === "serial")?.unique).toBe(true);
    expect(child.foreignKeys.map((fk) => [fk.columns, fk.referencedTable, fk.onDelete])).toContainEqual([
      ["owner_id"],
      "mc_parent",
      "cascade",
    ]);
    const orphan = await engine
      .execute(insert(McChildV2).values({ id: 100, ownerId: 9 }))
      .rowsAffected()
      .catch((e: unknown) => e);
    expect(ConstraintViolationError.isInstance(orphan)).toBe(true);
    await engine.execute(insert(McChildV2).values({ id: 101, ownerId: 1, serial: "s" })).rowsAffected();
    const twin = await engine
      .execute(insert(McChildV2).values({ id: 102, serial: "s" }))
      .rowsAffected()
      .catch((e: unknown) => e);
    expect(ConstraintViolationError.isInstance(twin)).toBe(true);
  });

  it("refuses what it cannot do: NOT VALID, VALIDATE, CONCURRENTLY and the SQLite rebuild", async () => {
    const refused: SchemaChange[] = [
      { kind: "addForeignKey", table: "mc_child", foreignKey: parentKey, notValid: true },
      { kind: "validateConstraint", table: "mc_child", name: "x" },
      { kind: "createIndex", table: "mc_child", index: { name: "i", columns: ["id"], unique: false, where: null }, concurrently: true },
      { kind: "dropIndex", table: "mc_child", index: { name: "i", columns: ["id"], unique: false, where: null }, concurrently: true },
      {
        kind: "createIndex",
        table: "mc_child",
        index: { name: "i", columns: ["id"], unique: false, where: "id > 1" },
        concurrently: false,
      },
      {
        kind: "rebuildTable",
        before: (await introspect(engine, { tables: ["mc_child"] })).tables[0]!,
        after: (await introspect(engine, { tables: ["mc_child"] })).tables[0]!,
        columnMap: {},
      },
    ];
    for (const change of refused) {
      const error = await schemaSteps(engine, change).catch((e: unknown) => e);
      expect(UnsupportedFeatureError.isInstance(error), change.kind).toBe(true);
      expect((error as UnsupportedFeatureError).dialect).toBe("MySQL");
    }
  });

  it("runs each step on its own: DDL commits implicitly, so applySchemaSteps opens no transaction around it", async () => {
    const steps = await schemaSteps(engine, { kind: "addColumn", table: "mc_child", column: col("later", "integer") });
    expect(steps.every((s) => !s.transactional)).toBe(true);
    await applySchemaSteps(engine, steps);
    const rows = await engine.execute(sql.raw("SELECT later FROM mc_child WHERE id = 1")).all();
    expect(rows).toEqual([{ later: null }]);
  });
});
