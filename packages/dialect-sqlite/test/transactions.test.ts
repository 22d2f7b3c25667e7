import type { QueryEvent, TransactionHandle } from "tempest-db-js";
import { ConstraintViolationError, insert, isTransaction, QueryError, select, sql, update, ValidationError } from "tempest-db-js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TestDatabase } from "./support/engines.js";
import { deferred, openDatabase, targets } from "./support/engines.js";
import { Counter } from "./support/models.js";

describe.each(targets)("transactions on a %s database", (target) => {
  let db: TestDatabase;
  const events: QueryEvent[] = [];

  beforeEach(async () => {
    events.length = 0;
    db = openDatabase(target, { onQuery: (event) => events.push(event) });
    await db.engine.createAll([Counter]);
    await db.engine.execute(insert(Counter).values({ id: 1, value: 0 })).rowsAffected();
  });

  afterEach(() => db.close());

  const read = async () => (await db.engine.execute(select(Counter, ["value"]).where({ id: 1 })).one()).value;

  it("isTransaction: true for a transaction handle at any depth, false for the engine and for look-alikes", async () => {
    const { engine } = db;
    expect(isTransaction(engine)).toBe(false);
    expect(isTransaction({ depth: 1, execute: () => undefined })).toBe(false);
    expect(isTransaction(null)).toBe(false);
    const seen = await engine.transaction(async (tx) => [isTransaction(tx), await tx.transaction(async (nested) => isTransaction(nested))]);
    expect(seen).toEqual([true, true]);
    expect(await engine.reserve(async (session) => isTransaction(session))).toBe(false);
  });

  it("engineKey: one empty, frozen object per engine, shared by its transactions, savepoints and sessions", async () => {
    const { engine } = db;
    const key = engine.engineKey;
    expect(Object.isFrozen(key)).toBe(true);
    expect(Object.keys(key)).toEqual([]);
    expect(Object.getPrototypeOf(key)).toBeNull();
    const keys = await engine.transaction(async (tx) => [tx.engineKey, await tx.transaction(async (nested) => nested.engineKey)]);
    expect(keys).toEqual([key, key]);
    expect(keys[0]).toBe(key);
    expect(keys[1]).toBe(key);
    expect(await engine.reserve(async (session) => session.engineKey)).toBe(key);
    const other = openDatabase(target);
    try {
      expect(other.engine.engineKey).not.toBe(key);
    } finally {
      other.close();
    }
  });

  it("a transaction on the free connection begins at once; one asked for while it is held waits for it", async () => {
    const { engine } = db;
    const held = deferred();
    const order: string[] = [];
    const first = engine.transaction(async (tx) => {
      order.push("first begins");
      await held.promise;
      await tx.execute(update(Counter).set({ value: 1 }).where({ id: 1 })).rowsAffected();
      order.push("first ends");
    });
    // Begun within the call: the connection was free, so BEGIN ran and the callback started without a tick.
    expect(order).toEqual(["first begins"]);
    const second = engine.transaction(async (tx) => {
      order.push("second begins");
      return (await tx.execute(select(Counter, ["value"]).where({ id: 1 })).one()).value;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(["first begins"]);
    held.resolve();
    await first;
    expect(await second).toBe(1);
    expect(order).toEqual(["first begins", "first ends", "second begins"]);
    const controls = events.map((e) => e.sql).filter((text) => /^(BEGIN|COMMIT|ROLLBACK)/.test(text));
    expect(controls).toEqual(["BEGIN IMMEDIATE", "COMMIT", "BEGIN IMMEDIATE", "COMMIT"]);
  });

  it("concurrent engine.transaction() calls are serialized on the one connection: no lost update, no nested BEGIN", async () => {
    const { engine } = db;
    // A read-modify-write with an await in the middle loses updates if two transactions interleave.
    const increment = () =>
      engine.transaction(async (tx) => {
        const { value } = await tx.execute(select(Counter, ["value"]).where({ id: 1 })).one();
        await new Promise((resolve) => setImmediate(resolve));
        await tx
          .execute(
            update(Counter)
              .set({ value: value + 1 })
              .where({ id: 1 }),
          )
          .rowsAffected();
        return value;
      });
    const seen = await Promise.all(Array.from({ length: 25 }, increment));
    expect(await read()).toBe(25);
    // FIFO: each transaction saw the value the one before it left.
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(events.filter((e) => e.error)).toEqual([]);
  });

  it("a plain statement issued while a transaction is open waits for its COMMIT", async () => {
    const { engine } = db;
    const hold = deferred();
    const entered = deferred();
    const tx = engine.transaction(async (t) => {
      await t.execute(update(Counter).set({ value: 41 }).where({ id: 1 })).rowsAffected();
      entered.resolve();
      await hold.promise;
      await t.execute(update(Counter).set({ value: 42 }).where({ id: 1 })).rowsAffected();
    });
    await entered.promise;
    const outside = read();
    // Give the outside read every chance to run (it would, without the mutex) before committing.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    hold.resolve();
    await tx;
    // Had it run inside the open transaction it would have seen 41.
    expect(await outside).toBe(42);
  });

  it("a statement on the engine inside its own transaction callback is refused instead of hanging", async () => {
    const { engine } = db;
    const error = await engine
      .transaction(async (t) => {
        await t.execute(update(Counter).set({ value: 7 }).where({ id: 1 })).rowsAffected();
        await engine.execute(select(Counter).where({ id: 1 })).all();
      })
      .catch((e: unknown) => e);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("tx.execute");
    const nested = await engine.transaction(async () => engine.transaction(async () => 1)).catch((e: unknown) => e);
    expect(ValidationError.isInstance(nested)).toBe(true);
    // The transaction rolled back and the engine is usable.
    expect(await read()).not.toBe(7);
  });

  it("the refusal finds the engine however deep the callback reached it: helpers, .then chains, Promise.all, streams", async () => {
    const { engine } = db;
    const viaEngine = () => engine.execute(select(Counter).where({ id: 1 })).all();
    async function helper(depth: number): Promise<unknown> {
      await new Promise((resolve) => setImmediate(resolve));
      return depth === 0 ? viaEngine() : helper(depth - 1);
    }
    const shapes: Record<string, (t: TransactionHandle) => Promise<unknown>> = {
      "an async helper five awaits down": async () => helper(5),
      "a .then chain": (t) =>
        t
          .execute(select(Counter))
          .all()
          .then(() => viaEngine()),
      "Promise.all": async () => Promise.all([helper(1), Promise.resolve(1)]),
      "a stream": async () => {
        for await (const row of engine.stream(select(Counter))) return row;
        return undefined;
      },
      "a nested engine.transaction after an await": async (t) => {
        await t.execute(select(Counter)).all();
        return engine.transaction(async (inner) => inner.execute(select(Counter)).all());
      },
    };
    for (const [shape, body] of Object.entries(shapes)) {
      const error = await engine.transaction(body).catch((e: unknown) => e);
      expect(ValidationError.isInstance(error), shape).toBe(true);
      expect((error as Error).message, shape).toContain("tx.execute");
    }
    expect(await read()).toBe(0);
  });

  it("only the engine's own callback is refused: other code waits its turn, another engine runs", async () => {
    const { engine } = db;
    const other = openDatabase(target);
    try {
      await other.engine.createAll([Counter]);
      await other.engine.execute(insert(Counter).values({ id: 1, value: 5 })).rowsAffected();
      const entered = deferred();
      const hold = deferred();
      const timerRan = deferred();
      let fromTimer: Promise<number> | undefined;
      const tx = engine.transaction(async (t) => {
        await t.execute(update(Counter).set({ value: 3 }).where({ id: 1 })).rowsAffected();
        // Another engine inside this callback: its own connection, nothing to wait for.
        expect((await other.engine.execute(select(Counter, ["value"]).where({ id: 1 })).one()).value).toBe(5);
        // Code the callback starts and does not wait for runs after the transaction, as any other code does.
        setImmediate(() => {
          fromTimer = read();
          timerRan.resolve();
        });
        entered.resolve();
        await hold.promise;
      });
      await entered.promise;
      await timerRan.promise;
      // Code outside the callback, while the transaction holds the connection: it waits, it is not refused.
      const outside = read();
      hold.resolve();
      await tx;
      expect(await outside).toBe(3);
      expect(await fromTimer).toBe(3);
    } finally {
      await other.close();
    }
  });

  it("a failing statement rolls the transaction back and the engine stays usable", async () => {
    const { engine } = db;
    const error = await engine
      .transaction(async (tx) => {
        await tx.execute(update(Counter).set({ value: 7 }).where({ id: 1 })).rowsAffected();
        await tx.execute(insert(Counter).values({ id: 1, value: 0 })).rowsAffected();
      })
      .catch((e: unknown) => e);
    expect(ConstraintViolationError.isInstance(error)).toBe(true);
    expect((error as QueryError).kind).toBe("unique-violation");
    expect(events.at(-1)?.sql).toBe("ROLLBACK");
    expect(await read()).toBe(0);
    // Both plain statements and new transactions still work.
    await engine.transaction(async (tx) => tx.execute(update(Counter).set({ value: 8 }).where({ id: 1 })).rowsAffected());
    expect(await read()).toBe(8);
  });

  it("a callback that throws rolls back; the error is the callback's", async () => {
    const boom = new Error("boom");
    const error = await db.engine
      .transaction(async (tx) => {
        await tx.execute(update(Counter).set({ value: 9 }).where({ id: 1 })).rowsAffected();
        throw boom;
      })
      .catch((e: unknown) => e);
    expect(error).toBe(boom);
    expect(await read()).toBe(0);
  });

  it("a nested transaction is a savepoint that rolls back alone", async () => {
    await db.engine.transaction(async (tx) => {
      await tx.execute(update(Counter).set({ value: 1 }).where({ id: 1 })).rowsAffected();
      await tx
        .transaction(async (inner) => {
          await inner.execute(update(Counter).set({ value: 2 }).where({ id: 1 })).rowsAffected();
          throw new Error("inner");
        })
        .catch(() => undefined);
      await tx.transaction(async (inner) => inner.execute(insert(Counter).values({ id: 2, value: 5 })).rowsAffected());
    });
    expect(await db.engine.execute(select(Counter).orderBy("id")).all()).toEqual([
      { id: 1, value: 1 },
      { id: 2, value: 5 },
    ]);
  });

  it("readOnly opens a DEFERRED transaction; isolation levels change nothing", async () => {
    const value = await db.engine.transaction(async (tx) => (await tx.execute(select(Counter, ["value"])).one()).value, { readOnly: true });
    await db.engine.transaction(async (tx) => tx.execute(select(Counter, ["value"])).one(), { isolation: "read committed" });
    expect(value).toBe(0);
    expect(events.map((e) => e.sql).filter((s) => s.startsWith("BEGIN"))).toEqual(["BEGIN DEFERRED", "BEGIN IMMEDIATE"]);
  });

  it("a raw multi-statement script runs through exec, and refuses parameters", async () => {
    const { engine } = db;
    const script = `INSERT INTO "counters" VALUES (10, 1); INSERT INTO "counters" VALUES (11, 1); UPDATE "counters" SET "value" = 2 WHERE "id" >= 10;`;
    expect(await engine.execute(sql.raw(script)).rowsAffected()).toBe(4);
    expect(await engine.execute(sql.raw(`SELECT count(*) AS n FROM "counters" WHERE "value" = 2`)).all()).toEqual([{ n: 2 }]);
    const error = await engine
      .execute(sql.expr`DELETE FROM "counters" WHERE "id" = ${10}; DELETE FROM "counters"`)
      .rowsAffected()
      .catch((e: unknown) => e);
    expect(QueryError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("only without parameters");
    expect(await engine.execute(sql.raw(`SELECT count(*) AS n FROM "counters"`)).scalar()).toBe(3);
  });
});
