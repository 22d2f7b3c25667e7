import { ConnectionError, createEngine, type Executor, QueryError, type QueryEvent, sql, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresDialect } from "../src/index.js";
import { PG_URL } from "./pg-url.js";

// Every test opens its own engine: a new pool, so its first connection holds no prepared statement.
const setup = createEngine(PG_URL, { dialect: postgresDialect, poolSize: 1 });

beforeAll(async () => {
  await setup.execute(sql.raw("DROP TABLE IF EXISTS ps_items")).rowsAffected();
  await setup.execute(sql.raw("DROP TABLE IF EXISTS ps_stale")).rowsAffected();
  await setup.execute(sql.raw("CREATE TABLE ps_items (id integer PRIMARY KEY, label text NOT NULL)")).rowsAffected();
  await setup.execute(sql.raw("INSERT INTO ps_items VALUES (1, 'one'), (2, 'two'), (3, 'three')")).rowsAffected();
});

afterAll(async () => {
  await setup.execute(sql.raw("DROP TABLE IF EXISTS ps_items")).rowsAffected();
  await setup.execute(sql.raw("DROP TABLE IF EXISTS ps_stale")).rowsAffected();
  await setup.close();
});

interface Prepared {
  name: string;
  statement: string;
}

/** The connection's server-side prepared statements (a statement without parameters: never prepared itself). */
const preparedOn = async (on: Executor): Promise<Prepared[]> => {
  const rows = await on.execute(sql.raw("SELECT name, statement FROM pg_prepared_statements")).all();
  return rows
    .map((row) => ({ name: String(row.name), statement: String(row.statement) }))
    .sort((a, b) => a.statement.localeCompare(b.statement));
};

const TEMPEST_NAME = /^tempest_\d+$/;

describe("named prepared statements on PostgreSQL", () => {
  it("a parameterised statement is prepared under a tempest_ name the second time one connection runs it; once-run and parameterless ones are not", async () => {
    const sent: string[] = [];
    const engine = createEngine(PG_URL, { dialect: postgresDialect, onQuery: (event) => sent.push(event.sql) });
    try {
      await engine.transaction(async (tx) => {
        expect(await preparedOn(tx)).toEqual([]);
        const byId = (id: number) => tx.execute(sql.expr`SELECT label FROM ps_items WHERE id = ${id}`).all();
        expect(await byId(1)).toEqual([{ label: "one" }]);
        expect(await preparedOn(tx)).toEqual([]); // seen once: run unnamed
        expect(await byId(2)).toEqual([{ label: "two" }]);
        // Run once only, and a statement without parameters run three times.
        expect(await tx.execute(sql.expr`SELECT count(*)::int AS n FROM ps_items WHERE id > ${1}`).all()).toEqual([{ n: 2 }]);
        for (let i = 0; i < 3; i++)
          expect(await tx.execute(sql.raw("SELECT label FROM ps_items WHERE id = 3")).all()).toEqual([{ label: "three" }]);

        const prepared = await preparedOn(tx);
        expect(prepared).toEqual([{ name: expect.stringMatching(TEMPEST_NAME), statement: "SELECT label FROM ps_items WHERE id = $1" }]);
        // The prepared text is exactly the one the engine sent.
        expect(sent).toContain(prepared[0]?.statement);

        // Later runs use that statement: same name, still one, right rows.
        expect(await byId(3)).toEqual([{ label: "three" }]);
        expect(await byId(4)).toEqual([]);
        expect(await preparedOn(tx)).toEqual(prepared);
      });
    } finally {
      await engine.close();
    }
  });

  it("statementCacheSize: 2 keeps at most two per connection, least recently used deallocated, results unchanged", async () => {
    const engine = createEngine(PG_URL, { dialect: postgresDialect, driver: { statementCacheSize: 2 } });
    // Five distinct texts: SELECT $1::int + k AS v.
    const plus = (on: Executor, k: number, n: number) => on.execute(sql.expr`SELECT ${n}::int + ${sql.raw(String(k))} AS v`).scalar();
    const text = (k: number) => `SELECT $1::int + ${k} AS v`;
    try {
      await engine.transaction(async (tx) => {
        for (let k = 1; k <= 5; k++) {
          expect(await plus(tx, k, 10)).toBe(10 + k);
          expect(await plus(tx, k, 20)).toBe(20 + k);
          const prepared = await preparedOn(tx);
          expect(prepared.length).toBeLessThanOrEqual(2);
          expect(prepared.every((p) => TEMPEST_NAME.test(p.name))).toBe(true);
        }
        expect((await preparedOn(tx)).map((p) => p.statement)).toEqual([text(4), text(5)]);

        // An evicted statement runs again, correctly, and is prepared again in place of the least recently used.
        expect(await plus(tx, 1, 100)).toBe(101);
        expect(await plus(tx, 1, 200)).toBe(201);
        expect((await preparedOn(tx)).map((p) => p.statement)).toEqual([text(1), text(5)]);
        expect(await plus(tx, 5, 1)).toBe(6);
        expect(await plus(tx, 4, 1)).toBe(5);
        expect((await preparedOn(tx)).map((p) => p.statement)).toEqual([text(4), text(5)]);
      });
    } finally {
      await engine.close();
    }
  });

  // pg queues statements issued concurrently on one client (Promise.all in a transaction); an eviction
  // queues its DEALLOCATE among them, and pg's record of parsed names must follow the server's.
  it("concurrent statements in one transaction: a parse in flight when its name is evicted does not leave the name behind", async () => {
    const engine = createEngine(PG_URL, { dialect: postgresDialect, driver: { statementCacheSize: 1 } });
    try {
      const results = await engine.transaction(async (tx) => {
        const a = () => tx.execute(sql.expr`SELECT ${1}::int AS a`).scalar();
        const b = () => tx.execute(sql.expr`SELECT ${2}::int AS b`).scalar();
        await a();
        await b();
        // a is parsed under its name while b's turn evicts that name: afterwards a must be parsed again.
        const both = await Promise.all([a(), b()]);
        return { both, again: await a(), prepared: await preparedOn(tx) };
      });
      expect(results).toEqual({
        both: [1, 2],
        again: 1,
        prepared: [{ name: expect.stringMatching(TEMPEST_NAME), statement: "SELECT $1::int AS a" }],
      });
    } finally {
      await engine.close();
    }
  });

  it("concurrent statements in one transaction: a prepared statement queued before its name is evicted is not parsed twice", async () => {
    const engine = createEngine(PG_URL, { dialect: postgresDialect, driver: { statementCacheSize: 1 } });
    try {
      const results = await engine.transaction(async (tx) => {
        const a = () => tx.execute(sql.expr`SELECT ${1}::int AS a`).scalar();
        const b = () => tx.execute(sql.expr`SELECT ${2}::int AS b`).scalar();
        await a();
        await a(); // prepared
        await b();
        // a waits behind a slow statement, under a name the server holds, while b evicts that name.
        const [, ...values] = await Promise.all([tx.execute(sql.raw("SELECT pg_sleep(0.05)")).all(), a(), b(), a()]);
        return { values, prepared: await preparedOn(tx) };
      });
      expect(results).toEqual({
        values: [1, 2, 1],
        prepared: [{ name: expect.stringMatching(TEMPEST_NAME), statement: "SELECT $1::int AS a" }],
      });
    } finally {
      await engine.close();
    }
  });

  it("preparedStatements: false prepares nothing", async () => {
    const engine = createEngine(PG_URL, { dialect: postgresDialect, driver: { preparedStatements: false } });
    try {
      await engine.transaction(async (tx) => {
        for (let id = 1; id <= 3; id++) {
          expect(await tx.execute(sql.expr`SELECT label FROM ps_items WHERE id = ${id}`).scalar()).toBe(["one", "two", "three"][id - 1]);
        }
        expect(await preparedOn(tx)).toEqual([]);
      });
    } finally {
      await engine.close();
    }
  });

  it("a table recreated with other column types: outside a transaction the stale statement is run again unnamed; inside one it fails (0A000) and the next run is fresh", async () => {
    const engine = createEngine(PG_URL, { dialect: postgresDialect, poolSize: 1 });
    const text = "SELECT v FROM ps_stale WHERE id = $1";
    const select = (on: Executor = engine) => on.execute(sql.expr`SELECT v FROM ps_stale WHERE id = ${1}`).all();
    const recreate = async (type: string, value: string) => {
      await engine.execute(sql.raw("DROP TABLE IF EXISTS ps_stale")).rowsAffected();
      await engine.execute(sql.raw(`CREATE TABLE ps_stale (id integer PRIMARY KEY, v ${type})`)).rowsAffected();
      await engine.execute(sql.raw(`INSERT INTO ps_stale VALUES (1, ${value})`)).rowsAffected();
    };
    try {
      await recreate("integer", "7");
      expect(await select()).toEqual([{ v: 7 }]);
      expect(await select()).toEqual([{ v: 7 }]);
      // poolSize 1: the engine's statements all run on the one connection.
      const before = await preparedOn(engine);
      expect(before).toEqual([{ name: expect.stringMatching(TEMPEST_NAME), statement: text }]);

      // Outside a transaction: the failed run changed nothing, so it is run again unnamed.
      await recreate("text", "'seven'");
      expect(await select()).toEqual([{ v: "seven" }]);
      expect(await select()).toEqual([{ v: "seven" }]);
      expect(await select()).toEqual([{ v: "seven" }]);
      const after = await preparedOn(engine);
      // The stale name stays until it is evicted like any other; the text now runs under a new one.
      expect(after.map((p) => p.statement)).toEqual([text, text]);
      expect(after.map((p) => p.name)).toContain(before[0]?.name);

      // Inside a transaction the server has aborted it: the error is the caller's, no retry.
      await recreate("integer", "8");
      const error = await engine.transaction(async (tx) => select(tx)).catch((e: unknown) => e);
      expect(QueryError.isInstance(error)).toBe(true);
      expect(ConnectionError.isInstance(error)).toBe(false);
      expect((error as QueryError).driverCode).toBe("0A000");
      expect(await select()).toEqual([{ v: 8 }]);
    } finally {
      await engine.close();
    }
  });

  it('parameter types of a prepared insert: an integer column that was a timestamp takes 0 (was: date/time field value out of range: "0")', async () => {
    const engine = createEngine(PG_URL, { dialect: postgresDialect, poolSize: 1 });
    const insert = (v: unknown) =>
      engine.execute(sql.expr`INSERT INTO ps_stale (id, v) VALUES (${Number(Math.random().toString().slice(2, 8))}, ${v})`).rowsAffected();
    const recreate = async (type: string) => {
      await engine.execute(sql.raw("DROP TABLE IF EXISTS ps_stale")).rowsAffected();
      await engine.execute(sql.raw(`CREATE TABLE ps_stale (id integer PRIMARY KEY, v ${type})`)).rowsAffected();
    };
    try {
      await recreate("timestamptz(3)");
      expect(await insert("2024-01-01T00:00:00Z")).toBe(1);
      expect(await insert("2024-01-02T00:00:00Z")).toBe(1);
      await recreate("integer");
      expect(await insert(0)).toBe(1);
      expect(await insert(5)).toBe(1);
      const rows = await engine.execute(sql.raw("SELECT v FROM ps_stale ORDER BY v")).all();
      expect(rows).toEqual([{ v: 0 }, { v: 5 }]);
    } finally {
      await engine.close();
    }
  });

  it("invalid driver options throw ValidationError from createEngine itself; valid ones and pg.Pool keys are accepted", async () => {
    for (const [options, message] of [
      [{ preparedStatements: "yes" }, "preparedStatements must be true or false, got yes"],
      [{ statementCacheSize: 0 }, "statementCacheSize must be a positive integer, got 0"],
      [{ statementCacheSize: 2.5 }, "statementCacheSize must be a positive integer, got 2.5"],
    ] as const) {
      let thrown: unknown;
      try {
        createEngine(PG_URL, { dialect: postgresDialect, driver: options });
      } catch (error) {
        thrown = error;
      }
      expect(ValidationError.isInstance(thrown)).toBe(true);
      expect((thrown as ValidationError).message).toBe(message);
    }

    // Unknown keys are pg.Pool options: passed through, not refused.
    const events: QueryEvent[] = [];
    const engine = createEngine(PG_URL, {
      dialect: postgresDialect,
      driver: { preparedStatements: true, statementCacheSize: 5, application_name: "x" },
      onQuery: (event) => events.push(event),
    });
    try {
      expect(await engine.execute(sql.raw("SELECT current_setting('application_name') AS name")).scalar()).toBe("x");
      expect(events).toHaveLength(1);
    } finally {
      await engine.close();
    }
  });
});
