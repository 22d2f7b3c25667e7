import { describe, expectTypeOf, test } from "vitest";
import type { Engine, Executable, InferModel, Subquery } from "../src/index.js";
import { and, column, deleteFrom, insert, Model, not, or, select, sql, update } from "../src/index.js";
import { Outbound } from "./support/outbound.js";

declare const engine: Engine;
declare const ids: string[];
declare const backoff: number;

type Row = InferModel<typeof Outbound>;
type Status = "queued" | "sending" | "sent" | "failed";

class Other extends Model {
  static tablename = "other";
  id = column.integer().primaryKey();
  title = column.text().notNull();
}

describe("select", () => {
  test("select(Outbound, ['id']) rows are exactly { id: string }", () => {
    const q = select(Outbound, ["id"]).where({ status: "queued" }).orderBy("nextAttemptAt").limit(10).forUpdate({ skipLocked: true });
    expectTypeOf(q).toExtend<Executable<{ id: string }>>();
    expectTypeOf(engine.execute(q).all()).toEqualTypeOf<Promise<{ id: string }[]>>();
  });

  test("several fields keep exactly those fields", () => {
    const q = select(Outbound, ["id", "status", "updatedAt"]);
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{ id: string; status: Status; updatedAt: Date | null }>();
  });

  test("select(Outbound) rows are the full row", () => {
    const rows = engine.execute(select(Outbound)).all();
    expectTypeOf(rows).resolves.items.toEqualTypeOf<Row>();
    expectTypeOf<Row["idempotencyKey"]>().toEqualTypeOf<string | null>();
    expectTypeOf<Row["updatedAt"]>().toEqualTypeOf<Date | null>();
    expectTypeOf<Row["status"]>().toEqualTypeOf<Status>();
    expectTypeOf<Row["attempts"]>().toEqualTypeOf<number>();
    expectTypeOf<Row["nextAttemptAt"]>().toEqualTypeOf<Date>();
  });

  test("unknown fields are compile errors", () => {
    // @ts-expect-error unknown projected field
    select(Outbound, ["id", "nope"]);
    // @ts-expect-error unknown field in where
    select(Outbound).where({ nope: 1 });
    // @ts-expect-error unknown field in orderBy
    select(Outbound).orderBy("nope");
    // @ts-expect-error bad direction
    select(Outbound).orderBy("attempts", "up");
    // @ts-expect-error unknown field in asSubquery
    select(Outbound).asSubquery("nope");
    // @ts-expect-error unknown lock option
    select(Outbound).forUpdate({ skipLock: true });
    expectTypeOf(select(Outbound).orderBy("attempts", "desc")).not.toBeAny();
  });

  test("wrong value types in where are compile errors", () => {
    select(Outbound).where({ attempts: 3, status: "queued", idempotencyKey: null, nextAttemptAt: new Date() });
    // @ts-expect-error string into an integer column
    select(Outbound).where({ attempts: "3" });
    // @ts-expect-error enum value not in the list
    select(Outbound).where({ status: "lost" });
    // @ts-expect-error a string for a datetime column
    select(Outbound).where({ nextAttemptAt: "2024-01-01" });
    // @ts-expect-error a plain object is not a value
    select(Outbound).where({ consumer: { name: "admin" } });
    expectTypeOf(select(Outbound).where({ attempts: { gte: 1 } })).not.toBeAny();
  });
});

describe("operators", () => {
  test("comparison and range operators take the column type or an expression", () => {
    select(Outbound).where({ attempts: { lt: 5, gte: sql.raw("1") } });
    select(Outbound).where({ nextAttemptAt: { lte: sql.now(), gt: new Date() } });
    select(Outbound).where({ attempts: { between: [1, 5] } });
    select(Outbound).where({ nextAttemptAt: { between: [new Date(0), sql.expr`now() + ${backoff} * interval '1 second'`] } });
    select(Outbound).where({ idempotencyKey: { eq: null }, updatedAt: { ne: null } });
    select(Outbound).where({ idempotencyKey: { isNull: false } });
    // @ts-expect-error lt takes a number on an integer column
    select(Outbound).where({ attempts: { lt: "5" } });
    // @ts-expect-error between takes a pair of the column type
    select(Outbound).where({ attempts: { between: [1, "5"] } });
    // @ts-expect-error isNull takes a boolean
    select(Outbound).where({ idempotencyKey: { isNull: "yes" } });
    // @ts-expect-error unknown operator
    select(Outbound).where({ attempts: { gteq: 1 } });
    expectTypeOf(select(Outbound).where({ attempts: { gt: 1 } })).not.toBeAny();
  });

  test("in / notIn take T[] or a subquery of the same type", () => {
    select(Outbound).where({ id: { in: ids } });
    select(Outbound).where({ status: { notIn: ["sent", "failed"] } });
    select(Outbound).where({ id: { in: select(Outbound).where({ status: "queued" }).asSubquery("id") } });
    select(Outbound).where({ idempotencyKey: { in: select(Outbound).asSubquery("idempotencyKey") } });
    expectTypeOf(select(Outbound).asSubquery("id")).toEqualTypeOf<Subquery<string>>();
    expectTypeOf(select(Outbound).asSubquery("idempotencyKey")).toEqualTypeOf<Subquery<string>>();
    expectTypeOf(select(Outbound).asSubquery("status")).toEqualTypeOf<Subquery<Status>>();
    // @ts-expect-error numbers for a uuid column
    select(Outbound).where({ id: { in: [1, 2] } });
    // @ts-expect-error an enum value not in the list
    select(Outbound).where({ status: { in: ["queued", "lost"] } });
    // @ts-expect-error a subquery of numbers for a uuid column
    select(Outbound).where({ id: { in: select(Outbound).asSubquery("attempts") } });
    // @ts-expect-error a subquery of Dates for a text column
    select(Outbound).where({ consumer: { notIn: select(Outbound).asSubquery("nextAttemptAt") } });
    // @ts-expect-error a single value is not a list
    select(Outbound).where({ id: { in: "x" } });
    expectTypeOf(select(Other).asSubquery("id")).toEqualTypeOf<Subquery<number>>();
  });

  test("like / ilike only on string columns", () => {
    select(Outbound).where({ consumer: { like: "billing-%" } });
    select(Outbound).where({ idempotencyKey: { ilike: "abc%" } });
    select(Outbound).where({ status: { like: "se%" } });
    select(Outbound).where({ consumer: { like: sql.expr`${"x"} || '%'` } });
    // @ts-expect-error like on an integer column
    select(Outbound).where({ attempts: { like: "1%" } });
    // @ts-expect-error ilike on a datetime column
    select(Outbound).where({ nextAttemptAt: { ilike: "2024%" } });
    // @ts-expect-error the pattern is a string
    select(Outbound).where({ consumer: { like: 1 } });
    expectTypeOf(select(Outbound).where({ consumer: { like: "%" } })).not.toBeAny();
  });

  test("expressions are accepted in where", () => {
    select(Outbound).where(sql.raw("attempts < 5"));
    select(Outbound).where(sql.expr`attempts < ${5}`);
    select(Outbound).where({ nextAttemptAt: sql.now() });
    select(Outbound).where({ attempts: sql.raw("1 + 1") });
    // @ts-expect-error a string is not a condition
    select(Outbound).where("attempts < 5");
    // @ts-expect-error a forged expression is not a condition
    select(Outbound).where({ node: { kind: "raw", text: "1 = 1" } });
    // @ts-expect-error a forged expression is not an operand
    select(Outbound).where({ attempts: { lt: { node: { kind: "raw", text: "5" } } } });
    // @ts-expect-error a forged expression is not a statement
    engine.execute({ node: { kind: "raw", text: "DROP TABLE outbound_messages" } });
    expectTypeOf(select(Outbound).where(sql.raw("true"))).not.toBeAny();
  });

  test("and / or / not are typed by the model they are used with", () => {
    select(Outbound).where(or({ status: "queued" }, and({ status: "sending" }, { nextAttemptAt: { lt: sql.now() } })));
    select(Outbound).where(not({ status: { in: ["sent", "failed"] } }));
    select(Outbound).where(and(sql.raw("true"), { attempts: 1 }));
    update(Outbound)
      .set({ status: "queued" })
      .where(or({ attempts: { lt: 5 } }, { updatedAt: null }));
    // @ts-expect-error unknown field inside or()
    select(Outbound).where(or({ status: "queued" }, { nope: 1 }));
    // @ts-expect-error wrong value type inside and()
    select(Outbound).where(and({ attempts: "1" }));
    // @ts-expect-error wrong enum value inside not()
    select(Outbound).where(not({ status: "lost" }));
    const forOther = or<Other>({ title: "x" }, { id: 1 });
    // @ts-expect-error a condition written for another model
    select(Outbound).where(forOther);
    select(Other).where(forOther);
    expectTypeOf(and<Outbound>({ status: "queued" })).not.toBeAny();
  });
});

describe("update", () => {
  test("set takes values and sql.raw / sql.expr / sql.now", () => {
    update(Outbound)
      .set({
        status: "sending",
        attempts: sql.raw("attempts + 1"),
        nextAttemptAt: sql.expr`now() + ${backoff} * interval '1 second'`,
        updatedAt: sql.now(),
      })
      .where({ id: { in: ids } });
    update(Outbound).set({ idempotencyKey: null, updatedAt: null }).allRows();
    // @ts-expect-error unknown field in set
    update(Outbound).set({ nope: 1 });
    // @ts-expect-error a string into an integer column
    update(Outbound).set({ attempts: "1" });
    // @ts-expect-error a stray object is not an expression
    update(Outbound).set({ attempts: { raw: "attempts + 1" } });
    // @ts-expect-error an object shaped like an expression is not one
    update(Outbound).set({ attempts: { node: { kind: "raw", text: "attempts + 1" } } });
    // @ts-expect-error null into a NOT NULL column
    update(Outbound).set({ status: null });
    // @ts-expect-error enum value not in the list
    update(Outbound).set({ status: "lost" });
    // @ts-expect-error unknown field in where
    update(Outbound).set({ status: "sent" }).where({ nope: 1 });
    expectTypeOf(update(Outbound).set({ status: "sent" })).not.toBeAny();
  });

  test("rows: none without returning, the row or the listed fields with it", () => {
    const plain = update(Outbound).set({ status: "sent" }).where({ id: "x" });
    expectTypeOf(engine.execute(plain).rowsAffected()).toEqualTypeOf<Promise<number>>();
    expectTypeOf(engine.execute(plain).all()).toEqualTypeOf<Promise<never[]>>();
    expectTypeOf(engine.execute(plain.returning()).all()).toEqualTypeOf<Promise<Row[]>>();
    expectTypeOf(engine.execute(plain.returning(["id", "attempts"])).all()).toEqualTypeOf<Promise<{ id: string; attempts: number }[]>>();
    // @ts-expect-error unknown field in returning
    plain.returning(["id", "nope"]);
  });

  test("the single-statement claim", () => {
    const claim = update(Outbound)
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
    expectTypeOf(engine.execute(claim).all()).toEqualTypeOf<Promise<Row[]>>();
  });
});

describe("insert", () => {
  const message = {
    id: "5b1a9f43-64a8-4c43-9a7e-1b4a0f0c0a11",
    consumer: "billing",
    idempotencyKey: "k",
    status: "queued",
    nextAttemptAt: new Date(),
  } as const;

  test("values: required fields, optional fields, types", () => {
    insert(Outbound).values(message);
    insert(Outbound).values([message, { ...message, attempts: 2, updatedAt: null }]);
    insert(Outbound).values({ ...message, nextAttemptAt: sql.now(), attempts: sql.raw("0") });
    // @ts-expect-error a required field is missing
    insert(Outbound).values({ id: "x", status: "queued", nextAttemptAt: new Date() });
    // @ts-expect-error unknown field
    insert(Outbound).values({ ...message, nope: 1 });
    // @ts-expect-error a string into an integer column
    insert(Outbound).values({ ...message, attempts: "1" });
    // @ts-expect-error a stray object is not an expression
    insert(Outbound).values({ ...message, attempts: { raw: "1" } });
    // @ts-expect-error null into a NOT NULL column
    insert(Outbound).values({ ...message, consumer: null });
    // @ts-expect-error unknown field in one of several rows
    insert(Outbound).values([message, { ...message, nope: 1 }]);
    expectTypeOf(insert(Outbound).values(message)).not.toBeAny();
  });

  test("returning types", () => {
    const q = insert(Outbound).values(message);
    expectTypeOf(engine.execute(q).all()).toEqualTypeOf<Promise<never[]>>();
    expectTypeOf(engine.execute(q.returning()).all()).toEqualTypeOf<Promise<Row[]>>();
    expectTypeOf(engine.execute(q.returning(["id"])).all()).toEqualTypeOf<Promise<{ id: string }[]>>();
    // @ts-expect-error unknown field in returning
    q.returning(["nope"]);
  });

  test("conflict clauses: targets and predicates are checked", () => {
    const inserted = insert(Outbound)
      .values(message)
      .onConflictDoNothing(["consumer", "idempotencyKey"], { where: { idempotencyKey: { isNull: false } } })
      .returning();
    expectTypeOf(engine.execute(inserted).all()).toEqualTypeOf<Promise<Row[]>>();
    insert(Outbound)
      .values(message)
      .onConflictDoUpdate(
        ["consumer", "idempotencyKey"],
        { status: "queued", nextAttemptAt: new Date(), attempts: sql.excluded("attempts") },
        { indexWhere: { idempotencyKey: { isNull: false } }, updateWhere: { attempts: { lt: 5 } } },
      );
    // @ts-expect-error unknown field in a conflict target
    insert(Outbound).values(message).onConflictDoNothing(["consumer", "nope"]);
    // @ts-expect-error unknown field in a conflict target
    insert(Outbound).values(message).onConflictDoUpdate(["nope"], { status: "queued" });
    // @ts-expect-error unknown field in the conflict set
    insert(Outbound).values(message).onConflictDoUpdate(["id"], { nope: 1 });
    // @ts-expect-error wrong type in the conflict set
    insert(Outbound).values(message).onConflictDoUpdate(["id"], { attempts: "1" });
    const conflicting = insert(Outbound).values(message);
    // @ts-expect-error unknown field in the index predicate
    conflicting.onConflictDoNothing(["id"], { where: { nope: { isNull: false } } });
    // @ts-expect-error wrong value in updateWhere
    conflicting.onConflictDoUpdate(["id"], { status: "queued" }, { updateWhere: { attempts: { lt: "5" } } });
    expectTypeOf(insert(Outbound).values(message).ignoreDuplicates()).not.toBeAny();
  });
});

describe("deleteFrom", () => {
  test("where and returning", () => {
    const q = deleteFrom(Outbound).where({ status: "sent" });
    expectTypeOf(engine.execute(q).rowsAffected()).toEqualTypeOf<Promise<number>>();
    expectTypeOf(engine.execute(q.returning()).all()).toEqualTypeOf<Promise<Row[]>>();
    expectTypeOf(engine.execute(q.returning(["id", "consumer"])).all()).toEqualTypeOf<Promise<{ id: string; consumer: string }[]>>();
    // @ts-expect-error unknown field in where
    deleteFrom(Outbound).where({ nope: 1 });
    // @ts-expect-error unknown field in returning
    q.returning(["nope"]);
  });
});

describe("results", () => {
  test("accessors of execute()", () => {
    const result = engine.execute(select(Outbound, ["id", "attempts"]));
    type R = { id: string; attempts: number };
    expectTypeOf(result.all()).toEqualTypeOf<Promise<R[]>>();
    expectTypeOf(result.first()).toEqualTypeOf<Promise<R | undefined>>();
    expectTypeOf(result.one()).toEqualTypeOf<Promise<R>>();
    expectTypeOf(result.oneOrNull()).toEqualTypeOf<Promise<R | null>>();
    expectTypeOf(result.scalar()).toEqualTypeOf<Promise<string | number | undefined>>();
    expectTypeOf(result.rowsAffected()).toEqualTypeOf<Promise<number>>();
    expectTypeOf(engine.execute(select(Outbound, ["id"])).scalar()).toEqualTypeOf<Promise<string | undefined>>();
  });

  test("raw statements yield records", () => {
    expectTypeOf(engine.execute(sql.raw("select 1")).all()).toEqualTypeOf<Promise<Record<string, unknown>[]>>();
  });

  test("transactions carry the callback's type and the same execute()", async () => {
    const claimed = engine.transaction(async (tx) => {
      const rows = await tx.execute(select(Outbound, ["id"]).forUpdate({ skipLocked: true })).all();
      expectTypeOf(rows).toEqualTypeOf<{ id: string }[]>();
      expectTypeOf(tx.depth).toEqualTypeOf<number>();
      return rows.map((row) => row.id);
    });
    expectTypeOf(claimed).toEqualTypeOf<Promise<string[]>>();
  });

  test("execute() refuses what is not a statement", () => {
    // @ts-expect-error a plain object is not a statement
    engine.execute({ sql: "select 1" });
    // @ts-expect-error a string is not a statement
    engine.execute("select 1");
    expectTypeOf(engine.compile(select(Outbound)).sql).toEqualTypeOf<string>();
  });
});

describe("the dialect contract's visibility", () => {
  test("engine.core and the compiler's hooks are not public", () => {
    // @ts-expect-error the engine's internals are protected
    engine.core;
    const compiler = {} as import("../src/index.js").SqlCompiler;
    expectTypeOf(compiler.compile).toBeFunction();
    // @ts-expect-error compiler hooks are protected: only a dialect's subclass calls them
    compiler.condition;
    // @ts-expect-error compiler hooks are protected
    compiler.quoteIdentifier;
  });
});
