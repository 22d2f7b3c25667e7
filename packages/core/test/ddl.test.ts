import { describe, expect, test } from "vitest";
import {
  column,
  createIndexes,
  createTable,
  dropTable,
  index,
  Model,
  select,
  sql,
  tableMeta,
  uniqueIndex,
  ValidationError,
} from "../src/index.js";
import { IndexedOutbound, Outbound } from "./support/outbound.js";
import { testEngine } from "./support/test-dialect.js";

const engine = testEngine();

describe("DDL for the guide's model", () => {
  test("createTable: snake_case columns, NOT NULL, defaults, primary key, enum check", () => {
    const compiled = engine.compile(createTable(Outbound));
    expect(compiled.sql).toBe(
      `CREATE TABLE "outbound_messages" (` +
        `"id" uuid NOT NULL, "consumer" text NOT NULL, "idempotency_key" text, "status" text NOT NULL, ` +
        `"attempts" integer NOT NULL DEFAULT 0, "next_attempt_at" timestamp NOT NULL, "updated_at" timestamp, ` +
        `PRIMARY KEY ("id"), CHECK ("status" IN ('queued', 'sending', 'sent', 'failed')))`,
    );
    expect(compiled.params).toEqual([]);
    expect(compiled.kind).toBe("createTable");
  });

  test("createTable ifNotExists and dropTable", () => {
    expect(engine.compile(createTable(Outbound, { ifNotExists: true })).sql).toMatch(/^CREATE TABLE IF NOT EXISTS "outbound_messages" \(/);
    expect(engine.compile(dropTable(Outbound, { ifExists: true })).sql).toBe(`DROP TABLE IF EXISTS "outbound_messages"`);
    expect(engine.compile(dropTable(Outbound)).sql).toBe(`DROP TABLE "outbound_messages"`);
  });

  test("a model without indexes has no index statements", () => {
    expect(createIndexes(Outbound)).toEqual([]);
  });

  test("the partial unique index declared with uniqueIndex<Outbound>(...).where(...)", () => {
    const statements = createIndexes(IndexedOutbound);
    expect(statements).toHaveLength(1);
    const compiled = engine.compile(statements[0]!);
    expect(compiled.sql).toBe(
      `CREATE UNIQUE INDEX "outbound_idempotency_unique" ON "outbound_messages" ("consumer", "idempotency_key") WHERE "idempotency_key" IS NOT NULL`,
    );
    expect(compiled.params).toEqual([]);
    expect(engine.compile(createIndexes(IndexedOutbound, { ifNotExists: true })[0]!).sql).toMatch(
      /^CREATE UNIQUE INDEX IF NOT EXISTS "outbound_idempotency_unique" ON /,
    );
  });

  test("values in an index predicate and in defaults are inlined as literals, never parameters", () => {
    class Job extends Model {
      static tablename = "jobs";
      static naming = "snake_case";
      static indexes = [
        index<Job>("jobs_due", ["status", "runAt"]).where({
          status: { in: ["queued", "it's"] },
          runAt: { lt: new Date("2030-01-01T00:00:00.000Z") },
        }),
      ];
      id = column.integer().primaryKey();
      status = column.text().notNull().default("queued");
      runAt = column.datetime().notNull().default(sql.now());
      active = column.boolean().notNull().default(true);
    }
    expect(engine.compile(createTable(Job)).sql).toBe(
      `CREATE TABLE "jobs" ("id" integer NOT NULL, "status" text NOT NULL DEFAULT 'queued', "run_at" timestamp NOT NULL DEFAULT (NOW()), ` +
        `"active" boolean NOT NULL DEFAULT TRUE, PRIMARY KEY ("id"))`,
    );
    const compiled = engine.compile(createIndexes(Job)[0]!);
    expect(compiled.sql).toBe(
      `CREATE INDEX "jobs_due" ON "jobs" ("status", "run_at") WHERE "status" IN ('queued', 'it''s') AND "run_at" < '2030-01-01T00:00:00.000Z'`,
    );
    expect(compiled.params).toEqual([]);
  });

  test("unique, renamed and referencing columns", () => {
    class Parent extends Model {
      static tablename = "parents";
      id = column.uuid().primaryKey().defaultRandom();
    }
    class Child extends Model {
      static tablename = "children";
      static naming = "snake_case";
      id = column.integer().primaryKey();
      parentId = column
        .uuid()
        .notNull()
        .references(() => Parent, "id", { onDelete: "cascade" });
      email = column.varchar(120).unique().name("EmailAddress");
    }
    expect(engine.compile(createTable(Parent)).sql).toBe(
      `CREATE TABLE "parents" ("id" uuid NOT NULL DEFAULT (random_uuid()), PRIMARY KEY ("id"))`,
    );
    expect(engine.compile(createTable(Child)).sql).toBe(
      `CREATE TABLE "children" ("id" integer NOT NULL, "parent_id" uuid NOT NULL, "EmailAddress" varchar(120), PRIMARY KEY ("id"), ` +
        `FOREIGN KEY ("parent_id") REFERENCES "parents" ("id") ON DELETE CASCADE, UNIQUE ("EmailAddress"))`,
    );
  });

  test("index declarations are validated when the model is read", () => {
    class BadField extends Model {
      static tablename = "bad_field";
      static indexes = [index<any>("i", ["nope"])];
      id = column.integer().primaryKey();
    }
    expect(() => createIndexes(BadField)).toThrow(ValidationError);
    expect(() => createIndexes(BadField)).toThrow(/no field "nope"/);
    class BadPredicate extends Model {
      static tablename = "bad_predicate";
      static indexes = [uniqueIndex<any>("i", ["id"]).where({ nope: 1 })];
      id = column.integer().primaryKey();
    }
    expect(() => createTable(BadPredicate)).toThrow(ValidationError);
    class NotAnIndex extends Model {
      static tablename = "not_an_index";
      static indexes = [{ spec: { name: "i", fields: ["id"], unique: true, where: undefined } }] as never;
      id = column.integer().primaryKey();
    }
    expect(() => createTable(NotAnIndex)).toThrow(/must hold index\(\.\.\.\) declarations/);
  });

  test("a partial index's predicate is resolved where its DDL is built, once per model", () => {
    class Broken extends Model {
      static tablename = "broken_jobs";
      // A predicate the types would refuse, as a JavaScript caller could still write it.
      static indexes = [index("broken_due", ["status"]).where({ nosuch: 1 } as never)];
      id = column.integer().primaryKey();
      status = column.text().notNull();
    }
    // Reading the model and querying it do not resolve index predicates...
    expect(tableMeta(Broken).indexes[0]?.where).toEqual({ nosuch: 1 });
    expect(engine.compile(select(Broken).where({ status: "x" })).sql).toBe(`SELECT "id", "status" FROM "broken_jobs" WHERE "status" = ?`);
    // ...building its CREATE INDEX or CREATE TABLE does, with the index named, before any SQL exists.
    expect(() => createIndexes(Broken)).toThrow(ValidationError);
    expect(() => createIndexes(Broken)).toThrow(/index broken_due.*nosuch/);
    expect(() => createTable(Broken)).toThrow(/index broken_due.*nosuch/);

    const first = createIndexes(IndexedOutbound)[0]!.toNode();
    const again = createIndexes(IndexedOutbound)[0]!.toNode();
    expect(first.kind === "createIndex" && again.kind === "createIndex" && first.index === again.index).toBe(true);
  });
});
