import type { Engine, Executable } from "tempest-db-js";
import {
  col,
  createEngine,
  createIndexes,
  createTable,
  deleteFrom,
  fn,
  insert,
  select,
  sql,
  UnsupportedFeatureError,
  update,
} from "tempest-db-js";
import { afterAll, describe, expect, it } from "vitest";
import { capabilitiesForVersion, SqliteCompiler, sqliteCapabilities } from "../src/index.js";
import { Outbound, Sample } from "./support/models.js";

// Compiling needs no connection: nothing is opened until a statement runs.
const engine: Engine = createEngine("sqlite::memory:");
afterAll(() => engine.close());

const ID = "00000000-0000-4000-8000-000000000001";
const AT = new Date("2026-11-29T23:02:33.123Z");
const RETURNING_ALL = `RETURNING "id", "consumer", "idempotency_key", "status", "attempts", "next_attempt_at", "updated_at"`;

function compiled(query: Executable<unknown>) {
  const { sql: text, params } = engine.compile(query);
  return { sql: text, params };
}

describe("SQLite SQL text", () => {
  it("the guide's single-statement claim: ? placeholders, double quotes, ISO-8601 now, LIMIT inside IN", () => {
    const claim = update(Outbound)
      .set({ status: "sending", attempts: sql.raw("attempts + 1"), updatedAt: sql.now() })
      .where({ id: { in: select(Outbound).where({ status: "queued" }).orderBy("nextAttemptAt").limit(10).asSubquery("id") } })
      .returning();
    expect(compiled(claim)).toEqual({
      sql: `UPDATE "outbound_messages" SET "status" = ?, "attempts" = attempts + 1, "updated_at" = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE "id" IN (SELECT "id" FROM "outbound_messages" WHERE "status" = ? ORDER BY "next_attempt_at" ASC LIMIT 10) ${RETURNING_ALL}`,
      params: ["sending", "queued"],
    });
  });

  it("binds a Date as its toISOString() text", () => {
    const query = insert(Outbound).values({ id: ID, consumer: "c", status: "queued", nextAttemptAt: AT }).returning(["id"]);
    expect(compiled(query)).toEqual({
      sql: `INSERT INTO "outbound_messages" ("id", "consumer", "status", "next_attempt_at") VALUES (?, ?, ?, ?) RETURNING "id"`,
      params: [ID, "c", "queued", "2026-11-29T23:02:33.123Z"],
    });
  });

  it("partial-index conflict targets, for DO NOTHING and DO UPDATE ... WHERE", () => {
    const row = { id: ID, consumer: "c", idempotencyKey: "k", status: "queued" as const, nextAttemptAt: AT };
    const head = `INSERT INTO "outbound_messages" ("id", "consumer", "idempotency_key", "status", "next_attempt_at") VALUES (?, ?, ?, ?, ?) ON CONFLICT ("consumer", "idempotency_key") WHERE "idempotency_key" IS NOT NULL`;
    const nothing = insert(Outbound)
      .values(row)
      .onConflictDoNothing(["consumer", "idempotencyKey"], { where: { idempotencyKey: { isNull: false } } });
    expect(compiled(nothing).sql).toBe(`${head} DO NOTHING`);
    const upsert = insert(Outbound)
      .values(row)
      .onConflictDoUpdate(
        ["consumer", "idempotencyKey"],
        { status: "queued", attempts: sql.raw("0"), nextAttemptAt: sql.excluded("nextAttemptAt") },
        { indexWhere: { idempotencyKey: { isNull: false } }, updateWhere: { attempts: { lt: 5 } } },
      )
      .returning(["id", "status"]);
    expect(compiled(upsert)).toEqual({
      sql: `${head} DO UPDATE SET "status" = ?, "attempts" = 0, "next_attempt_at" = excluded."next_attempt_at" WHERE "outbound_messages"."attempts" < ? RETURNING "id", "status"`,
      params: [ID, "c", "k", "queued", "2026-11-29T23:02:33.123Z", "queued", 5],
    });
  });

  it("ilike as LOWER() LIKE LOWER(), and OFFSET without LIMIT as LIMIT -1", () => {
    const query = select(Outbound, ["id"])
      .where({ consumer: { ilike: "Billing%" } })
      .offset(20);
    expect(compiled(query)).toEqual({
      sql: `SELECT "id" FROM "outbound_messages" WHERE LOWER("consumer") LIKE LOWER(?) ESCAPE '\\' LIMIT -1 OFFSET 20`,
      params: ["Billing%"],
    });
    expect(compiled(select(Outbound, ["id"]).limit(5).offset(20)).sql).toBe(`SELECT "id" FROM "outbound_messages" LIMIT 5 OFFSET 20`);
  });

  it("now plus seconds as an strftime modifier; an expression operand is parenthesized because || binds tightest", () => {
    const bound = update(Outbound)
      .set({ nextAttemptAt: sql.nowPlusSeconds(30) })
      .where({ id: ID });
    expect(compiled(bound)).toEqual({
      sql: `UPDATE "outbound_messages" SET "next_attempt_at" = strftime('%Y-%m-%dT%H:%M:%fZ','now',(? || ' seconds')) WHERE "id" = ?`,
      params: [30, ID],
    });
    const computed = update(Outbound)
      .set({ nextAttemptAt: sql.nowPlusSeconds(sql.raw("attempts * 60")) })
      .where({ id: ID });
    expect(compiled(computed).sql).toContain(`strftime('%Y-%m-%dT%H:%M:%fZ','now',((attempts * 60) || ' seconds'))`);
  });

  it("booleans, json and bigint bind as SQLite storage values; delete returns rows", () => {
    const query = insert(Sample).values({ id: ID, flag: true, doc: { a: [1] }, big: 2n ** 60n + 1n, amount: "1.50" });
    // numeric binds in its ordered text form (1.5 = 0.15 x 10^1).
    expect(compiled(query).params).toEqual([ID, 1n + 2n ** 60n, "P500115", 1, '{"a":[1]}']);
    expect(compiled(deleteFrom(Outbound).where({ status: "sent" }).returning(["id"])).sql).toBe(
      `DELETE FROM "outbound_messages" WHERE "status" = ? RETURNING "id"`,
    );
  });

  it("DDL: SQLite storage classes, enum CHECK, 1/0 boolean defaults, no uuid default, the partial unique index", () => {
    expect(compiled(createTable(Outbound)).sql).toBe(
      `CREATE TABLE "outbound_messages" ("id" TEXT NOT NULL, "consumer" TEXT NOT NULL, "idempotency_key" TEXT, "status" TEXT NOT NULL, "attempts" INTEGER NOT NULL DEFAULT 0, "next_attempt_at" TEXT NOT NULL, "updated_at" TEXT, PRIMARY KEY ("id"), CHECK ("status" IN ('queued', 'sending', 'sent', 'failed')))`,
    );
    expect(compiled(createTable(Sample, { ifNotExists: true })).sql).toBe(
      `CREATE TABLE IF NOT EXISTS "samples" ("id" TEXT NOT NULL, "label" TEXT, "code" TEXT, "count" INTEGER, "big" INTEGER, "ratio" REAL, "amount" TEXT, "flag" INTEGER, "at" TEXT, "day" TEXT, "doc" TEXT, "kind" TEXT, "blob" BLOB, "active" INTEGER NOT NULL DEFAULT 1, "created_at" TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), PRIMARY KEY ("id"), CHECK ("kind" IN ('small', 'large')))`,
    );
    const [index] = createIndexes(Outbound);
    expect(compiled(index as Executable<never>).sql).toBe(
      `CREATE UNIQUE INDEX "outbound_idempotency_unique" ON "outbound_messages" ("consumer", "idempotency_key") WHERE "idempotency_key" IS NOT NULL`,
    );
  });

  it("begins write transactions IMMEDIATE and read-only ones DEFERRED, whatever the isolation level", () => {
    const compiler = new SqliteCompiler(sqliteCapabilities);
    expect(compiler.beginStatements({})).toEqual(["BEGIN IMMEDIATE"]);
    expect(compiler.beginStatements({ isolation: "read committed" })).toEqual(["BEGIN IMMEDIATE"]);
    expect(compiler.beginStatements({ readOnly: true, isolation: "serializable" })).toEqual(["BEGIN DEFERRED"]);
    expect(compiler.savepointSql("sp")).toBe(`SAVEPOINT "sp"`);
    expect(compiler.rollbackToSavepointSql("sp")).toBe(`ROLLBACK TO SAVEPOINT "sp"`);
  });
});

describe("what SQLite refuses", () => {
  function refusedBy(query: Executable<unknown>): UnsupportedFeatureError {
    try {
      engine.compile(query);
    } catch (error) {
      expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
      return error as UnsupportedFeatureError;
    }
    throw new Error("compiled without error");
  }

  it.each([
    ["forUpdate()", select(Outbound).forUpdate(), "row locks (forUpdate)"],
    ["forUpdate({ skipLocked })", select(Outbound).limit(10).forUpdate({ skipLocked: true }), "row locks (forUpdate)"],
    ["forUpdate({ noWait })", select(Outbound).forUpdate({ noWait: true }), "row locks (forUpdate)"],
    ["forShare()", select(Outbound).forShare(), "shared row locks (forShare)"],
    [
      "forUpdate inside an IN subquery",
      update(Outbound)
        .set({ status: "sending" })
        .where({ id: { in: select(Outbound).limit(10).forUpdate({ skipLocked: true }).asSubquery("id") } }),
      "row locks (forUpdate)",
    ],
  ] as const)("%s: row locks, naming SQLite and the way out", (_name, query, feature) => {
    const error = refusedBy(query);
    expect(error.dialect).toBe("SQLite");
    expect(error.feature).toBe(feature);
    expect(error.hint).toContain("SQLite has no row locks");
    expect(error.hint).toContain("engine.transaction()");
    expect(error.hint).toContain("BEGIN IMMEDIATE");
    expect(error.message).toBe(`SQLite does not support ${feature}. ${error.hint}`);
  });

  it("ON DUPLICATE KEY UPDATE, pointing at onConflictDoUpdate", () => {
    const error = refusedBy(
      insert(Outbound).values({ id: ID, consumer: "c", status: "queued", nextAttemptAt: AT }).onDuplicateKeyUpdate({ status: "queued" }),
    );
    expect(error.feature).toBe("ON DUPLICATE KEY UPDATE");
    expect(error.hint).toContain("onConflictDoUpdate");
  });

  it("months and years added to a datetime before SQLite 3.46 (no 'floor' modifier, which would silently give NULL)", () => {
    expect(capabilitiesForVersion("3.46.0", sqliteCapabilities).calendarIntervals).toBe(true);
    const old = new SqliteCompiler(capabilitiesForVersion("3.45.3", sqliteCapabilities));
    const shifted = (unit: "months" | "days") =>
      select(Outbound)
        .columns({ at: fn.addInterval(col(Outbound, "nextAttemptAt"), 1, unit) })
        .toNode();
    expect(() => old.compile(shifted("months"))).toThrow(UnsupportedFeatureError);
    expect(old.compile(shifted("days")).sql).toContain("' days'");
  });
});

describe("string and date expressions", () => {
  it("built-in LOWER and LENGTH, ||; dates through strftime on ISO-8601 text", () => {
    const query = select(Outbound).columns((q) => ({
      week: q.dateTrunc("week", "nextAttemptAt"),
      year: q.extract("isoYear", "nextAttemptAt"),
      due: q.addInterval("updatedAt", "attempts", "minutes"),
      back: q.subInterval("nextAttemptAt", 1, "months"),
      waited: q.diffSeconds("nextAttemptAt", "updatedAt"),
      name: q.concat(q.lower("consumer"), q.val("#")),
      size: q.length("consumer"),
    }));
    expect(compiled(query)).toMatchInlineSnapshot(`
      {
        "params": [
          -1n,
          "#",
        ],
        "sql": "SELECT strftime('%Y-%m-%dT00:00:00.000Z', "outbound_messages"."next_attempt_at", '-6 days', 'weekday 1') AS "week", CAST(strftime('%Y', "outbound_messages"."next_attempt_at", '-3 days', 'weekday 4') AS INTEGER) AS "year", NULLIF(MAX(strftime('%Y-%m-%dT%H:%M:%fZ', "outbound_messages"."updated_at", (NULLIF(NULLIF(MAX(MIN("outbound_messages"."attempts", 525949201), (-525949201)), 525949201), (-525949201))) || ' minutes'), '0000-12-31T23:59:59.999Z'), '0000-12-31T23:59:59.999Z') AS "due", NULLIF(MAX(strftime('%Y-%m-%dT%H:%M:%fZ', "outbound_messages"."next_attempt_at", (CAST(? AS INTEGER)) || ' months', 'floor'), '0000-12-31T23:59:59.999Z'), '0000-12-31T23:59:59.999Z') AS "back", (CAST((CAST(ROUND((julianday("outbound_messages"."next_attempt_at") - 2440587.5) * 86400000) AS INTEGER) - CAST(ROUND((julianday("outbound_messages"."updated_at") - 2440587.5) * 86400000) AS INTEGER)) AS DOUBLE PRECISION) / 1000) AS "waited", (LOWER("outbound_messages"."consumer") || ?) AS "name", LENGTH("outbound_messages"."consumer") AS "size" FROM "outbound_messages"",
      }
    `);
  });
});
