import { describe, expect, test } from "vitest";
import { and, col, deleteFrom, fn, insert, not, or, select, sql, update, ValidationError } from "../src/index.js";
import { Outbound } from "./support/outbound.js";
import { testEngine } from "./support/test-dialect.js";

const engine = testEngine();
const ID = "5b1a9f43-64a8-4c43-9a7e-1b4a0f0c0a11";
const ID2 = "0e6f3c52-7d1b-4a35-8c2e-5f9a1b2c3d4e";
const T0 = new Date("2024-05-01T10:00:00.000Z");
const ALL = `"id", "consumer", "idempotency_key", "status", "attempts", "next_attempt_at", "updated_at"`;

const message = { id: ID, consumer: "billing", idempotencyKey: "key-1", status: "queued", nextAttemptAt: T0 } as const;

describe("the guide's statements", () => {
  test("claim a batch: select ... FOR UPDATE SKIP LOCKED", () => {
    const q = select(Outbound, ["id"]).where({ status: "queued" }).orderBy("nextAttemptAt").limit(10).forUpdate({ skipLocked: true });
    expect(engine.compile(q)).toMatchObject({
      sql: `SELECT "id" FROM "outbound_messages" WHERE "status" = ? ORDER BY "next_attempt_at" ASC LIMIT 10 FOR UPDATE SKIP LOCKED`,
      params: ["queued"],
      kind: "select",
    });
  });

  test("the update with sql.raw, sql.now and an in list", () => {
    const q = update(Outbound)
      .set({ status: "sending", attempts: sql.raw("attempts + 1"), updatedAt: sql.now() })
      .where({ id: { in: [ID, ID2] } });
    expect(engine.compile(q)).toMatchObject({
      sql: `UPDATE "outbound_messages" SET "status" = ?, "attempts" = attempts + 1, "updated_at" = NOW() WHERE "id" IN (?, ?)`,
      params: ["sending", ID, ID2],
    });
  });

  test("sql.expr binds each ${} as a parameter, in order", () => {
    const backoff = 30;
    const q = update(Outbound)
      .set({
        attempts: sql.raw("attempts + 1"),
        nextAttemptAt: sql.expr`now() + ${backoff} * interval '1 second'`,
        updatedAt: sql.now(),
      })
      .where({ id: ID });
    const compiled = engine.compile(q);
    expect(compiled.sql).toBe(
      `UPDATE "outbound_messages" SET "attempts" = attempts + 1, "next_attempt_at" = now() + ? * interval '1 second', "updated_at" = NOW() WHERE "id" = ?`,
    );
    expect(compiled.params).toEqual([30, ID]);
  });

  test("a value that looks like SQL travels as a parameter, never as text", () => {
    const evil = "x'; DROP TABLE outbound_messages; --";
    const compiled = engine.compile(
      update(Outbound)
        .set({ consumer: evil })
        .where({ consumer: { like: evil } }),
    );
    expect(compiled.sql).toBe(`UPDATE "outbound_messages" SET "consumer" = ? WHERE "consumer" LIKE ?`);
    expect(compiled.params).toEqual([evil, evil]);
  });

  test("the single-statement claim: LIMIT, ORDER BY and the lock travel inside the subquery", () => {
    const q = update(Outbound)
      .set({ status: "sending", attempts: sql.raw("attempts + 1"), updatedAt: sql.now() })
      .where({
        id: {
          in: select(Outbound)
            .where({ status: "queued" })
            .orderBy("nextAttemptAt")
            .limit(10)
            .forUpdate({ skipLocked: true })
            .asSubquery("id"),
        },
      })
      .returning();
    const compiled = engine.compile(q);
    expect(compiled.sql).toBe(
      `UPDATE "outbound_messages" SET "status" = ?, "attempts" = attempts + 1, "updated_at" = NOW() ` +
        `WHERE "id" IN (SELECT "id" FROM "outbound_messages" WHERE "status" = ? ORDER BY "next_attempt_at" ASC LIMIT 10 FOR UPDATE SKIP LOCKED) ` +
        `RETURNING ${ALL}`,
    );
    expect(compiled.params).toEqual(["sending", "queued"]);
    expect(compiled.columns?.map((c) => c.field)).toEqual([
      "id",
      "consumer",
      "idempotencyKey",
      "status",
      "attempts",
      "nextAttemptAt",
      "updatedAt",
    ]);
  });

  test("notIn with a subquery", () => {
    const q = select(Outbound, ["id"]).where({ consumer: { notIn: select(Outbound).where({ status: "failed" }).asSubquery("consumer") } });
    expect(engine.compile(q)).toMatchObject({
      sql: `SELECT "id" FROM "outbound_messages" WHERE "consumer" NOT IN (SELECT "consumer" FROM "outbound_messages" WHERE "status" = ?)`,
      params: ["failed"],
    });
  });

  test("onConflictDoNothing repeats the partial index predicate", () => {
    const q = insert(Outbound)
      .values(message)
      .onConflictDoNothing(["consumer", "idempotencyKey"], { where: { idempotencyKey: { isNull: false } } })
      .returning();
    const compiled = engine.compile(q);
    expect(compiled.sql).toBe(
      `INSERT INTO "outbound_messages" ("id", "consumer", "idempotency_key", "status", "next_attempt_at") VALUES (?, ?, ?, ?, ?) ` +
        `ON CONFLICT ("consumer", "idempotency_key") WHERE "idempotency_key" IS NOT NULL DO NOTHING RETURNING ${ALL}`,
    );
    expect(compiled.params).toEqual([ID, "billing", "key-1", "queued", T0]);
  });

  test("indexWhere is an alias of where in onConflictDoNothing; no target is allowed", () => {
    const aliased = insert(Outbound)
      .values(message)
      .onConflictDoNothing(["consumer", "idempotencyKey"], { indexWhere: { idempotencyKey: { isNull: false } } });
    expect(engine.compile(aliased).sql).toContain(
      `ON CONFLICT ("consumer", "idempotency_key") WHERE "idempotency_key" IS NOT NULL DO NOTHING`,
    );
    expect(engine.compile(insert(Outbound).values(message).onConflictDoNothing()).sql).toMatch(/ ON CONFLICT DO NOTHING$/);
  });

  test("onConflictDoUpdate: index predicate after the target, update predicate qualified after DO UPDATE", () => {
    const retryAt = new Date("2024-05-01T10:05:00.000Z");
    const q = insert(Outbound)
      .values(message)
      .onConflictDoUpdate(
        ["consumer", "idempotencyKey"],
        { status: "queued", nextAttemptAt: retryAt },
        { indexWhere: { idempotencyKey: { isNull: false } }, updateWhere: { attempts: { lt: 5 } } },
      );
    const compiled = engine.compile(q);
    expect(compiled.sql).toBe(
      `INSERT INTO "outbound_messages" ("id", "consumer", "idempotency_key", "status", "next_attempt_at") VALUES (?, ?, ?, ?, ?) ` +
        `ON CONFLICT ("consumer", "idempotency_key") WHERE "idempotency_key" IS NOT NULL ` +
        `DO UPDATE SET "status" = ?, "next_attempt_at" = ? WHERE "outbound_messages"."attempts" < ?`,
    );
    expect(compiled.params).toEqual([ID, "billing", "key-1", "queued", T0, "queued", retryAt, 5]);
  });

  test("sql.ref and sql.excluded inside DO UPDATE are qualified", () => {
    const q = insert(Outbound)
      .values(message)
      .onConflictDoUpdate(["id"], { attempts: sql.expr`${sql.ref("attempts")} + 1`, consumer: sql.excluded("consumer") });
    expect(engine.compile(q).sql).toMatch(
      / ON CONFLICT \("id"\) DO UPDATE SET "attempts" = "outbound_messages"\."attempts" \+ 1, "consumer" = excluded\."consumer"$/,
    );
  });

  test("ignoreDuplicates is ON CONFLICT DO NOTHING in the base compiler", () => {
    expect(engine.compile(insert(Outbound).values(message).ignoreDuplicates()).sql).toMatch(/\) ON CONFLICT DO NOTHING$/);
  });
});

describe("conditions", () => {
  test("and / or / not are parenthesized by nesting, not at the top", () => {
    const q = select(Outbound, ["id"]).where(
      or(
        { status: "queued" },
        and({ status: "sending" }, { nextAttemptAt: { lt: sql.now() } }),
        not({ attempts: { gte: 5 }, idempotencyKey: null }),
      ),
    );
    expect(engine.compile(q)).toMatchObject({
      sql:
        `SELECT "id" FROM "outbound_messages" WHERE "status" = ? OR ("status" = ? AND "next_attempt_at" < NOW()) ` +
        `OR NOT ("attempts" >= ? AND "idempotency_key" IS NULL)`,
      params: ["queued", "sending", 5],
    });
  });

  test("successive where calls are ANDed, and an or inside them keeps its parentheses", () => {
    const q = select(Outbound, ["id"])
      .where({ consumer: "billing" })
      .where(or({ status: "queued" }, { status: "failed" }));
    expect(engine.compile(q)).toMatchObject({
      sql: `SELECT "id" FROM "outbound_messages" WHERE "consumer" = ? AND ("status" = ? OR "status" = ?)`,
      params: ["billing", "queued", "failed"],
    });
  });

  test("not of a single comparison, and of an or", () => {
    const q = select(Outbound, ["id"]).where(not(or({ status: "sent" }, { status: "failed" })));
    expect(engine.compile(q).sql).toBe(`SELECT "id" FROM "outbound_messages" WHERE NOT ("status" = ? OR "status" = ?)`);
    expect(engine.compile(select(Outbound, ["id"]).where(not({ status: "sent" }))).sql).toBe(
      `SELECT "id" FROM "outbound_messages" WHERE NOT ("status" = ?)`,
    );
  });

  test("an or nested in an and nested in an or", () => {
    const q = select(Outbound, ["id"]).where(or(and({ attempts: 1 }, or({ status: "sent" }, { status: "failed" })), { attempts: 2 }));
    expect(engine.compile(q)).toMatchObject({
      sql: `SELECT "id" FROM "outbound_messages" WHERE ("attempts" = ? AND ("status" = ? OR "status" = ?)) OR "attempts" = ?`,
      params: [1, "sent", "failed", 2],
    });
  });

  test("raw and templated predicates are wrapped in parentheses", () => {
    const q = select(Outbound, ["id"]).where(or(sql.raw("attempts < 5 OR attempts IS NULL"), sql.expr`consumer = ${"x"}`));
    expect(engine.compile(q)).toMatchObject({
      sql: `SELECT "id" FROM "outbound_messages" WHERE (attempts < 5 OR attempts IS NULL) OR (consumer = ?)`,
      params: ["x"],
    });
  });

  test("between, like, ilike, isNull, eq null, ne null, ne; several operators on one field are grouped", () => {
    const q = select(Outbound, ["id"]).where({
      attempts: { between: [1, 5] },
      consumer: { like: "bill%", ne: "x" },
      idempotencyKey: { isNull: true },
      updatedAt: { ne: null },
      status: { ilike: "QUEUED" },
    });
    expect(engine.compile(q)).toMatchObject({
      sql:
        `SELECT "id" FROM "outbound_messages" WHERE "attempts" BETWEEN ? AND ? AND ("consumer" LIKE ? AND "consumer" <> ?) ` +
        `AND "idempotency_key" IS NULL AND "updated_at" IS NOT NULL AND "status" ILIKE ?`,
      params: [1, 5, "bill%", "x", "QUEUED"],
    });
    const nulls = select(Outbound, ["id"]).where({ idempotencyKey: null, updatedAt: { eq: null }, consumer: { isNull: false } });
    expect(engine.compile(nulls).sql).toBe(
      `SELECT "id" FROM "outbound_messages" WHERE "idempotency_key" IS NULL AND "updated_at" IS NULL AND "consumer" IS NOT NULL`,
    );
  });

  test("in: [] is a false predicate and notIn: [] a true one, never `IN ()`", () => {
    const none = engine.compile(select(Outbound, ["id"]).where({ id: { in: [] } }));
    expect(none.sql).toBe(`SELECT "id" FROM "outbound_messages" WHERE 1 = 0`);
    expect(none.params).toEqual([]);
    const every = engine.compile(select(Outbound, ["id"]).where({ id: { notIn: [] } }));
    expect(every.sql).toBe(`SELECT "id" FROM "outbound_messages" WHERE 1 = 1`);
    const combined = engine.compile(
      update(Outbound)
        .set({ status: "sending" })
        .where({ status: "queued", id: { in: [] } }),
    );
    expect(combined.sql).toBe(`UPDATE "outbound_messages" SET "status" = ? WHERE "status" = ? AND 1 = 0`);
    expect(engine.compile(select(Outbound, ["id"]).where(or({ id: { in: [] } }, { status: { notIn: [] } }))).sql).toBe(
      `SELECT "id" FROM "outbound_messages" WHERE 1 = 0 OR 1 = 1`,
    );
  });

  test("empty and() is true, empty or() is false", () => {
    expect(engine.compile(select(Outbound, ["id"]).where(and())).sql).toBe(`SELECT "id" FROM "outbound_messages" WHERE 1 = 1`);
    expect(engine.compile(select(Outbound, ["id"]).where(or())).sql).toBe(`SELECT "id" FROM "outbound_messages" WHERE 1 = 0`);
  });

  test("comparisons with expressions on the right", () => {
    const q = select(Outbound, ["id"]).where({ nextAttemptAt: { lte: sql.now() }, updatedAt: { lt: sql.nowPlusSeconds(-60) } });
    expect(engine.compile(q)).toMatchObject({
      sql: `SELECT "id" FROM "outbound_messages" WHERE "next_attempt_at" <= NOW() AND "updated_at" < NOW_PLUS(?)`,
      params: [-60],
    });
  });
});

describe("statements", () => {
  test("multi-row insert: a field missing from a row takes the column default, or null", () => {
    const q = insert(Outbound).values([
      { ...message, attempts: 3 },
      { id: ID2, consumer: "mail", status: "queued", nextAttemptAt: T0 },
    ]);
    const compiled = engine.compile(q);
    expect(compiled.sql).toBe(
      `INSERT INTO "outbound_messages" ("id", "consumer", "idempotency_key", "status", "attempts", "next_attempt_at") VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)`,
    );
    expect(compiled.params).toEqual([ID, "billing", "key-1", "queued", 3, T0, ID2, "mail", null, "queued", 0, T0]);
    expect(compiled.columns).toBeUndefined();
  });

  test("an expression default fills a missing field as SQL", async () => {
    const { Model, column } = await import("../src/index.js");
    class Stamped extends Model {
      static tablename = "stamped";
      id = column.integer().primaryKey();
      createdAt = column.datetime().notNull().default(sql.now());
    }
    const compiled = engine.compile(insert(Stamped).values([{ id: 1, createdAt: T0 }, { id: 2 }]));
    expect(compiled.sql).toBe(`INSERT INTO "stamped" ("id", "createdAt") VALUES (?, ?), (?, NOW())`);
    expect(compiled.params).toEqual([1, T0, 2]);
  });

  test("expressions given as values sit among bound cells; a JSON value shaped like a node stays a value", async () => {
    const { Model, column } = await import("../src/index.js");
    class Stamped extends Model {
      static tablename = "stamped";
      id = column.integer().primaryKey();
      at = column.datetime();
      data = column.json();
    }
    const lookalike = { kind: "raw", text: "1; DROP TABLE stamped" };
    const rows = [
      { id: 1, at: sql.nowPlusSeconds(5), data: lookalike },
      { at: T0, id: 2, data: null },
      { id: 3, at: sql.now(), data: [1] },
    ];
    const compiled = engine.compile(insert(Stamped).values(rows));
    expect(compiled.sql).toBe(`INSERT INTO "stamped" ("id", "at", "data") VALUES (?, NOW_PLUS(?), ?), (?, ?, ?), (?, NOW(), ?)`);
    expect(compiled.params).toEqual([1, 5, lookalike, 2, T0, null, 3, [1]]);
    // Rows naming the same fields in another order, or other fields, are checked field by field.
    expect(() => insert(Stamped).values([{ id: 1 }, { id: 2, nope: 1 } as never])).toThrow(/row 1: no field "nope"/);
    expect(() => insert(Stamped).values([{ id: 1 }, { id: 2, at: undefined } as never])).toThrow(/row 1: at is undefined/);
    // The same fields as the row before, one of them undefined: caught as the cells are read.
    expect(() => insert(Stamped).values([{ id: 1, at: T0 }, { id: 2, at: T0 }, { id: 3, at: undefined } as never])).toThrow(
      /values: row 2: at is undefined; omit the field or pass null/,
    );
    expect(() => insert(Stamped).values([{ id: 1 }, { id: "2" } as never])).toThrow(/values row 1: id expects a safe integer/);
  });

  test("defaultRandom fills a uuid on insert even when omitted from every row", async () => {
    const { Model, column } = await import("../src/index.js");
    class Keyed extends Model {
      static tablename = "keyed";
      id = column.uuid().primaryKey().defaultRandom();
      label = column.text().notNull();
    }
    const compiled = engine.compile(insert(Keyed).values([{ label: "a" }, { label: "b" }]));
    expect(compiled.sql).toBe(`INSERT INTO "keyed" ("id", "label") VALUES (?, ?), (?, ?)`);
    expect(compiled.params[1]).toBe("a");
    expect(compiled.params[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(compiled.params[2]).not.toBe(compiled.params[0]);
  });

  test("select: all columns, offset, order directions, forShare, noWait, of", () => {
    expect(engine.compile(select(Outbound)).sql).toBe(`SELECT ${ALL} FROM "outbound_messages"`);
    const q = select(Outbound, ["id", "attempts"]).orderBy("attempts", "desc").orderBy("id").limit(5).offset(10).forShare({ noWait: true });
    expect(engine.compile(q).sql).toBe(
      `SELECT "id", "attempts" FROM "outbound_messages" ORDER BY "attempts" DESC, "id" ASC LIMIT 5 OFFSET 10 FOR SHARE NOWAIT`,
    );
    expect(engine.compile(select(Outbound, ["id"]).forUpdate({ of: [Outbound], noWait: true })).sql).toBe(
      `SELECT "id" FROM "outbound_messages" FOR UPDATE OF "outbound_messages" NOWAIT`,
    );
    expect(engine.compile(select(Outbound, ["id"]).forUpdate({ of: ["outbound_messages"] })).sql).toBe(
      `SELECT "id" FROM "outbound_messages" FOR UPDATE OF "outbound_messages"`,
    );
  });

  test("delete with where and returning; allRows without where", () => {
    expect(engine.compile(deleteFrom(Outbound).where({ status: "sent" }).returning(["id"]))).toMatchObject({
      sql: `DELETE FROM "outbound_messages" WHERE "status" = ? RETURNING "id"`,
      params: ["sent"],
    });
    expect(engine.compile(deleteFrom(Outbound).allRows()).sql).toBe(`DELETE FROM "outbound_messages"`);
    expect(engine.compile(update(Outbound).set({ attempts: 0 }).allRows()).sql).toBe(`UPDATE "outbound_messages" SET "attempts" = ?`);
  });

  test("set called twice merges, the later value winning", () => {
    const q = update(Outbound).set({ status: "sending", attempts: 1 }).set({ status: "sent" }).where({ id: ID });
    expect(engine.compile(q)).toMatchObject({
      sql: `UPDATE "outbound_messages" SET "status" = ?, "attempts" = ? WHERE "id" = ?`,
      params: ["sent", 1, ID],
    });
  });

  test("raw statements through compile and sql.expr nesting", () => {
    const inner = sql.expr`attempts + ${2}`;
    expect(engine.compile(sql.expr`SELECT ${inner} AS n, ${"a"} AS s`)).toMatchObject({
      sql: "SELECT attempts + ? AS n, ? AS s",
      params: [2, "a"],
      kind: "rawStatement",
      columns: undefined,
    });
  });

  test("builders are immutable: a derived query does not change its parent", () => {
    const base = select(Outbound, ["id"]).where({ status: "queued" });
    const limited = base.limit(1).orderBy("attempts");
    expect(engine.compile(base).sql).toBe(`SELECT "id" FROM "outbound_messages" WHERE "status" = ?`);
    expect(engine.compile(limited).sql).toBe(`SELECT "id" FROM "outbound_messages" WHERE "status" = ? ORDER BY "attempts" ASC LIMIT 1`);
    expect(Object.isFrozen(base.toNode())).toBe(true);
  });

  test("every node a builder hands out is frozen, clauses and subqueries included, and derived builders stay independent", () => {
    const deepFrozen = (value: unknown, seen = new Set<unknown>()): boolean => {
      if (typeof value !== "object" || value === null || seen.has(value)) return true;
      seen.add(value);
      // A table's byField is a ReadonlyMap (freezing a Map does not stop set()); a model is a class.
      if (value instanceof Map || typeof value === "function") return true;
      return Object.isFrozen(value) && Object.values(value).every((v) => v instanceof Date || deepFrozen(v, seen));
    };
    const sub = select(Outbound).where({ status: "queued" }).orderBy("nextAttemptAt").limit(5).forUpdate({ skipLocked: true });
    const claim = update(Outbound)
      .set({ status: "sending", attempts: sql.raw("attempts + 1") })
      .where({ id: { in: sub.asSubquery("id") } })
      .returning(["id"]);
    const builders = [
      sub,
      sub.offset(2),
      claim,
      insert(Outbound).values(message).onConflictDoNothing(["id"]).returning(["id"]),
      deleteFrom(Outbound).where({ status: "sent" }).returning(["id"]),
    ];
    for (const builder of builders) {
      const node = builder.toNode();
      expect(deepFrozen(node), node.kind).toBe(true);
      expect(builder.toNode()).toBe(node);
    }
    // The parent is still what it was after a child was derived from it and handed out.
    expect(engine.compile(sub).sql).not.toContain("OFFSET");
    expect(engine.compile(sub.offset(2)).sql).toContain("OFFSET 2");
  });

  test("compiling the same statement twice gives the same frozen result", () => {
    const q = select(Outbound, ["id"]).where({ status: "queued" });
    const first = engine.compile(q);
    expect(engine.compile(q)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.params)).toBe(true);
  });
});

describe("integer constants and counters in SET", () => {
  test("fn.add(col, fn.lit(1)) in SET is the statement's own arithmetic, as sql.expr wrote it", () => {
    const q = update(Outbound)
      .set({ status: "sending", attempts: fn.add(col(Outbound, "attempts"), fn.lit(1)), updatedAt: sql.now() })
      .where({ id: ID });
    expect(engine.compile(q)).toMatchObject({
      sql: `UPDATE "outbound_messages" SET "status" = ?, "attempts" = "attempts" + 1, "updated_at" = NOW() WHERE "id" = ?`,
      params: ["sending", ID],
    });
  });

  test("a negative constant is parenthesized (never `--`, a comment); a bound value stays bound and cast", () => {
    const minus = update(Outbound)
      .set({ attempts: fn.sub(col(Outbound, "attempts"), fn.lit(-1)) })
      .allRows();
    expect(engine.compile(minus).sql).toBe(`UPDATE "outbound_messages" SET "attempts" = "attempts" - (-1)`);
    const bound = update(Outbound)
      .set({ attempts: fn.add(col(Outbound, "attempts"), 5) })
      .allRows();
    expect(engine.compile(bound)).toMatchObject({
      sql: `UPDATE "outbound_messages" SET "attempts" = "attempts" + CAST(? AS BIGINT)`,
      params: [5],
    });
  });

  test("outside SET, and nested, the 64-bit rules stay: widened, parenthesized, qualified", () => {
    const where = select(Outbound, ["id"]).where(fn.gt(fn.add(col(Outbound, "attempts"), fn.lit(1)), 3));
    expect(engine.compile(where).sql).toBe(
      `SELECT "id" FROM "outbound_messages" WHERE (((CAST("outbound_messages"."attempts" AS BIGINT) + 1) > CAST(? AS BIGINT)))`,
    );
    const nested = update(Outbound)
      .set({ attempts: fn.add(fn.mul(col(Outbound, "attempts"), 2), fn.lit(1)) })
      .allRows();
    expect(engine.compile(nested).sql).toBe(
      `UPDATE "outbound_messages" SET "attempts" = (CAST("outbound_messages"."attempts" AS BIGINT) * CAST(? AS BIGINT)) + 1`,
    );
  });

  test("fn.lit takes integers only", () => {
    for (const bad of [1.5, Number.NaN, "1", 2n ** 64n, null, Number.MAX_SAFE_INTEGER + 2]) {
      expect(() => fn.lit(bad as never)).toThrow(ValidationError);
    }
    expect(engine.compile(select(Outbound, ["id"]).where(fn.eq(col(Outbound, "attempts"), fn.lit(-2n)))).sql).toContain("(-2)");
  });
});
