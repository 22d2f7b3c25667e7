import type { ColumnSnapshot, Engine, SchemaChange, TableSnapshot } from "tempest-db-js";
import {
  addColumn,
  applySchemaChange,
  applySchemaSteps,
  ConstraintViolationError,
  column,
  createEngine,
  insert,
  introspect,
  Model,
  QueryError,
  runSchemaStep,
  schemaSteps,
  select,
  sql,
  update,
} from "tempest-db-js";
import { columnSnapshot } from "tempest-db-js/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import "../src/index.js";
import { implicitConstraintName } from "../src/postgres-compiler.js";
import { PG_URL } from "./pg-url.js";

class PcParent extends Model {
  static tablename = "pc_parent";
  id = column.integer().primaryKey();
}

class PcChild extends Model {
  static tablename = "pc_child";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  parentId = column.integer();
  status = column.enum("a", "b").notNull().default("a");
  amount = column.integer();
  code = column.text();
}

/** The child with `status` allowed a third value and `code` read as an integer. */
class PcChildV2 extends Model {
  static tablename = "pc_child";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  parentId = column.integer();
  status = column.enum("a", "b", "c").notNull().default("a");
  amount = column.integer();
  code = column.integer();
}

const ROWS = 200;
const status = columnSnapshot("status", "enum", { notNull: true, enumValues: ["a", "b"], default: { kind: "value", value: "a" } });
const amount = columnSnapshot("amount", "integer");
const parentKey = {
  name: "pc_child_parent_fk",
  columns: ["parent_id"],
  referencedTable: "pc_parent",
  referencedColumns: ["id"],
  onDelete: "no action",
} as const;

async function catalog(engine: Engine, query: string): Promise<Record<string, unknown>[]> {
  return engine.execute(sql.raw(query)).all();
}

async function rejects(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: unknown) => e,
  );
}

describe("PostgreSQL schema changes: the forms that keep a busy table writable", () => {
  let engine: Engine;
  let other: Engine;

  beforeAll(() => {
    engine = createEngine(PG_URL);
    other = createEngine(PG_URL);
  });

  afterAll(async () => {
    await engine.execute(sql.raw("DROP TABLE IF EXISTS pc_child, pc_parent, pc_renamed")).rowsAffected();
    await engine.close();
    await other.close();
  });

  beforeEach(async () => {
    await engine.execute(sql.raw("DROP TABLE IF EXISTS pc_child, pc_parent, pc_renamed")).rowsAffected();
    await engine.createAll([PcParent, PcChild]);
    await engine.execute(insert(PcParent).values([{ id: 1 }, { id: 2 }])).rowsAffected();
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      id: i + 1,
      parentId: (i % 2) + 1,
      status: "a" as const,
      amount: i % 10 ? i : null,
      code: String(i),
    }));
    await engine.execute(insert(PcChild).values(rows)).rowsAffected();
  });

  it("CREATE/DROP INDEX CONCURRENTLY run outside a transaction; a failed one leaves an invalid index that is dropped and built again", async () => {
    const index = { name: "pc_child_code", columns: ["code"], unique: true, where: null };
    const create: SchemaChange = { kind: "createIndex", table: "pc_child", index, concurrently: true };
    const steps = await schemaSteps(engine, create);
    expect(steps.map((s) => [s.sql, s.transactional])).toEqual([
      [`CREATE UNIQUE INDEX CONCURRENTLY "pc_child_code" ON "pc_child" ("code")`, false],
    ]);
    // The server refuses it inside a transaction block, which is why the step says so.
    const inside = await rejects(engine.transaction((tx) => runSchemaStep(tx, steps[0]!)));
    expect((inside as Error).message).toMatch(/cannot run inside a transaction block/);

    // Duplicates make the build fail, and PostgreSQL keeps the half-built index, marked invalid.
    await engine
      .execute(
        update(PcChild)
          .set({ code: "dup" })
          .where({ id: { in: [1, 2] } }),
      )
      .rowsAffected();
    expect(ConstraintViolationError.isInstance(await rejects(applySchemaChange(engine, create)))).toBe(true);
    const invalid = await catalog(
      engine,
      "SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'pc_child_code'",
    );
    expect(invalid).toEqual([{ valid: false }]);
    await applySchemaChange(engine, { kind: "dropIndex", table: "pc_child", index, concurrently: true });
    await engine.execute(update(PcChild).set({ code: "one" }).where({ id: 1 })).rowsAffected();
    await applySchemaChange(engine, create);
    const valid = await catalog(
      engine,
      "SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'pc_child_code'",
    );
    expect(valid).toEqual([{ valid: true }]);
    const drop = await schemaSteps(engine, { kind: "dropIndex", table: "pc_child", index, concurrently: true });
    expect(drop.map((s) => [s.sql, s.transactional])).toEqual([[`DROP INDEX CONCURRENTLY "pc_child_code"`, false]]);
  });

  it("ADD FOREIGN KEY ... NOT VALID, then VALIDATE CONSTRAINT, which lets writes through while it scans", async () => {
    await engine.execute(update(PcChild).set({ amount: 99 }).where({ id: 7 })).rowsAffected();
    const amountKey = { ...parentKey, name: "pc_child_amount_fk", columns: ["amount"] };
    await engine
      .execute(
        update(PcChild)
          .set({ amount: 1 })
          .where({ id: { ne: 7 } }),
      )
      .rowsAffected();
    const add = await schemaSteps(engine, { kind: "addForeignKey", table: "pc_child", foreignKey: amountKey, notValid: true });
    expect(add.map((s) => [s.sql, s.transactional])).toEqual([
      [
        `ALTER TABLE "pc_child" ADD CONSTRAINT "pc_child_amount_fk" FOREIGN KEY ("amount") REFERENCES "pc_parent" ("id") ON DELETE NO ACTION NOT VALID`,
        true,
      ],
    ]);
    // NOT VALID: the existing orphan (amount 99) is not checked, new rows are.
    await applySchemaSteps(engine, add);
    const orphan = await rejects(engine.execute(insert(PcChild).values({ id: 1000, amount: 42 })).rowsAffected());
    expect(ConstraintViolationError.isInstance(orphan)).toBe(true);
    const validate: SchemaChange = { kind: "validateConstraint", table: "pc_child", name: "pc_child_amount_fk" };
    const failed = await rejects(applySchemaChange(engine, validate));
    expect((failed as ConstraintViolationError).kind).toBe("foreign-key-violation");
    await engine.execute(update(PcChild).set({ amount: 2 }).where({ id: 7 })).rowsAffected();

    // VALIDATE holds SHARE UPDATE EXCLUSIVE: another session inserts while it is open.
    await engine.transaction(async (tx) => {
      for (const step of await schemaSteps(tx, validate)) await runSchemaStep(tx, step);
      await other.transaction(async (writer) => {
        await writer.execute(sql.raw("SET LOCAL lock_timeout = '2s'")).rowsAffected();
        await writer.execute(insert(PcChild).values({ id: 1001, amount: 1 })).rowsAffected();
      });
    });
    const validated = await catalog(engine, "SELECT convalidated AS valid FROM pg_constraint WHERE conname = 'pc_child_amount_fk'");
    expect(validated).toEqual([{ valid: true }]);
  });

  it("SET NOT NULL the safe way: a NOT VALID check, validated, then SET NOT NULL, then the check dropped", async () => {
    const plan: SchemaChange[] = [
      { kind: "addCheck", table: "pc_child", name: "pc_child_amount_not_null", notNullOf: "amount", notValid: true },
      { kind: "validateConstraint", table: "pc_child", name: "pc_child_amount_not_null" },
      { kind: "alterColumn", table: "pc_child", from: amount, to: { ...amount, notNull: true } },
      { kind: "dropCheck", table: "pc_child", name: "pc_child_amount_not_null", notNullOf: "amount" },
    ];
    const sqls = [];
    for (const change of plan) sqls.push(...(await schemaSteps(engine, change)).map((s) => s.sql));
    expect(sqls).toEqual([
      `ALTER TABLE "pc_child" ADD CONSTRAINT "pc_child_amount_not_null" CHECK ("amount" IS NOT NULL) NOT VALID`,
      `ALTER TABLE "pc_child" VALIDATE CONSTRAINT "pc_child_amount_not_null"`,
      `ALTER TABLE "pc_child" ALTER COLUMN "amount" SET NOT NULL`,
      `ALTER TABLE "pc_child" DROP CONSTRAINT "pc_child_amount_not_null"`,
    ]);
    await applySchemaChange(engine, plan[0]!);
    // The NULLs already there fail the validation, and the plan stops before SET NOT NULL.
    const failed = await rejects(applySchemaChange(engine, plan[1]!));
    expect((failed as ConstraintViolationError).kind).toBe("check-violation");
    await engine.execute(update(PcChild).set({ amount: 0 }).where({ amount: null })).rowsAffected();
    for (const change of plan.slice(1)) await applySchemaChange(engine, change);
    const column = await catalog(
      engine,
      "SELECT is_nullable FROM information_schema.columns WHERE table_name = 'pc_child' AND column_name = 'amount'",
    );
    expect(column).toEqual([{ is_nullable: "NO" }]);
    expect(await catalog(engine, "SELECT conname FROM pg_constraint WHERE conname = 'pc_child_amount_not_null'")).toEqual([]);
  });

  it("adds an enum value by replacing the column's CHECK NOT VALID and validating it, and changes a type with USING", async () => {
    const changes: SchemaChange[] = [
      { kind: "alterColumn", table: "pc_child", from: status, to: { ...status, enumValues: ["a", "b", "c"] } },
      { kind: "alterColumn", table: "pc_child", from: columnSnapshot("code", "text"), to: columnSnapshot("code", "integer") },
    ];
    const steps = [];
    for (const change of changes) steps.push(...(await schemaSteps(engine, change)));
    expect(steps.map((s) => s.sql)).toEqual([
      `ALTER TABLE "pc_child" DROP CONSTRAINT "pc_child_status_check", ADD CONSTRAINT "pc_child_status_check" CHECK ("status" IN ('a', 'b', 'c')) NOT VALID`,
      `ALTER TABLE "pc_child" VALIDATE CONSTRAINT "pc_child_status_check"`,
      `ALTER TABLE "pc_child" ALTER COLUMN "code" TYPE integer USING "code"::integer`,
    ]);
    await applySchemaSteps(engine, steps);
    expect(await introspect(engine, { tables: ["pc_child"] })).toEqual((await import("tempest-db-js")).modelsSnapshot(engine, [PcChildV2]));
    await engine.execute(insert(PcChildV2).values({ id: 500, status: "c", code: 12 })).rowsAffected();
    expect(await engine.execute(select(PcChildV2).where({ id: 3 })).one()).toMatchObject({ code: 2 });
    // Taking a value away fails validation while a row holds it; the old CHECK is back after the rollback.
    const narrow: SchemaChange = { kind: "alterColumn", table: "pc_child", from: { ...status, enumValues: ["a", "b", "c"] }, to: status };
    const failed = await rejects(applySchemaChange(engine, narrow));
    expect((failed as ConstraintViolationError).kind).toBe("check-violation");
    await engine.execute(insert(PcChildV2).values({ id: 501, status: "c" })).rowsAffected();
  });

  it("names an enum's CHECK as PostgreSQL does, also when the names are cut to 63 bytes", async () => {
    const table = `pc_${"t".repeat(45)}`;
    const column = `s${"é".repeat(30)}`;
    const enumColumn: ColumnSnapshot = columnSnapshot(column, "enum", { enumValues: ["x", "y"] });
    const snapshot: TableSnapshot = {
      name: table,
      columns: [columnSnapshot("id", "integer", { notNull: true }), enumColumn],
      primaryKey: ["id"],
      indexes: [],
      foreignKeys: [],
    };
    await engine.execute(sql.raw(`DROP TABLE IF EXISTS "${table}"`)).rowsAffected();
    await applySchemaChange(engine, { kind: "createTable", table: snapshot });
    const [row] = await catalog(engine, `SELECT conname FROM pg_constraint WHERE conrelid = '"${table}"'::regclass AND contype = 'c'`);
    expect(row?.conname).toBe(implicitConstraintName(table, column, "check"));
    expect(Buffer.byteLength(String(row?.conname))).toBeLessThanOrEqual(63);
    await applySchemaChange(engine, { kind: "alterColumn", table, from: enumColumn, to: { ...enumColumn, enumValues: ["x", "y", "z"] } });
    await engine.execute(sql.raw(`DROP TABLE "${table}"`)).rowsAffected();
  });

  it("SET/DROP DEFAULT, DROP NOT NULL, UNIQUE, renames, and addColumn(model, field) with its foreign key and UNIQUE", async () => {
    const looseStatus = { ...status, notNull: false, default: { kind: "value" as const, value: "b" } };
    const changes: (() => Promise<SchemaChange>)[] = [
      async () => ({ kind: "alterColumn", table: "pc_child", from: status, to: looseStatus }),
      async () => ({ kind: "alterColumn", table: "pc_child", from: amount, to: { ...amount, unique: true } }),
      async () => ({ kind: "renameColumn", table: "pc_child", from: "amount", to: "total", column: { ...amount, unique: true } }),
      async () => ({
        kind: "renameTable",
        from: "pc_child",
        to: "pc_renamed",
        table: (await introspect(engine, { tables: ["pc_child"] })).tables[0],
      }),
    ];
    const sqls = [];
    for (const make of changes) {
      const steps = await schemaSteps(engine, await make());
      sqls.push(...steps.map((s) => s.sql));
      await applySchemaSteps(engine, steps);
    }
    expect(sqls).toEqual([
      `ALTER TABLE "pc_child" ALTER COLUMN "status" DROP DEFAULT, ALTER COLUMN "status" SET DEFAULT 'b', ALTER COLUMN "status" DROP NOT NULL`,
      `ALTER TABLE "pc_child" ADD UNIQUE ("amount")`,
      `ALTER TABLE "pc_child" RENAME COLUMN "amount" TO "total"`,
      `ALTER TABLE "pc_child" RENAME CONSTRAINT "pc_child_amount_key" TO "pc_child_total_key"`,
      `ALTER TABLE "pc_child" RENAME TO "pc_renamed"`,
      `ALTER TABLE "pc_renamed" RENAME CONSTRAINT "pc_child_status_check" TO "pc_renamed_status_check"`,
      `ALTER TABLE "pc_renamed" RENAME CONSTRAINT "pc_child_total_key" TO "pc_renamed_total_key"`,
    ]);
    const rows = await catalog(engine, "SELECT count(*)::int AS n, count(code)::int AS codes FROM pc_renamed");
    expect(rows).toEqual([{ n: ROWS, codes: ROWS }]);
    // The constraints carry the names the later changes look them up by.
    const total = columnSnapshot("total", "integer", { unique: true });
    await applySchemaChange(engine, { kind: "alterColumn", table: "pc_renamed", from: total, to: { ...total, unique: false } });
    await applySchemaChange(engine, {
      kind: "alterColumn",
      table: "pc_renamed",
      from: looseStatus,
      to: { ...looseStatus, enumValues: ["a", "b", "c"] },
    });
    await applySchemaChange(engine, { kind: "renameTable", from: "pc_renamed", to: "pc_child" });
    await applySchemaChange(engine, { kind: "renameColumn", table: "pc_child", from: "total", to: "amount" });

    class PcChildOwned extends PcChild {
      ownerId = column.integer().references(() => PcParent, "id", { onDelete: "set null" });
      serial = column.varchar(30).unique();
    }
    expect(engine.compile(addColumn(PcChildOwned, "ownerId")).sql).toBe(
      `ALTER TABLE "pc_child" ADD COLUMN "owner_id" integer, ADD FOREIGN KEY ("owner_id") REFERENCES "pc_parent" ("id") ON DELETE SET NULL`,
    );
    await engine.execute(addColumn(PcChildOwned, "ownerId")).rowsAffected();
    await engine.execute(addColumn(PcChildOwned, "serial")).rowsAffected();
    const orphan = await rejects(engine.execute(insert(PcChildOwned).values({ id: 900, ownerId: 9 })).rowsAffected());
    expect(ConstraintViolationError.isInstance(orphan)).toBe(true);
    await engine.execute(insert(PcChildOwned).values({ id: 901, serial: "s" })).rowsAffected();
    const twin = await rejects(engine.execute(insert(PcChildOwned).values({ id: 902, serial: "s" })).rowsAffected());
    expect(ConstraintViolationError.isInstance(twin)).toBe(true);
    expect(QueryError.isInstance(twin)).toBe(true);
  });
});
