import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DriverConnection, DriverQuery } from "tempest-db-js";
import { ConnectionError, createEngine, insert, type QueryError, select, sql, ValidationError } from "tempest-db-js";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteDriver } from "../src/index.js";
import { deferred, openDatabase } from "./support/engines.js";
import { Counter } from "./support/models.js";

const dir = mkdtempSync(join(tmpdir(), "tempest-sqlite-driver-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const fileUrl = () => `sqlite://${join(dir, `driver-${++files}.db`)}`;

function driver(url: string, options: Record<string, unknown> = {}): SqliteDriver {
  return new SqliteDriver({ url, poolSize: 10, statementTimeoutMs: undefined, options });
}

const q = (text: string, params: unknown[] = []): DriverQuery => ({ sql: text, params, rowMode: "array" });
const pragma = async (connection: DriverConnection, name: string) => (await connection.query(q(`PRAGMA ${name}`))).rows[0];

describe("connection setup", () => {
  it("a file database runs in WAL mode with foreign keys, synchronous=NORMAL and the configured busy timeout", async () => {
    const d = driver(fileUrl(), { busyTimeoutMs: 1234 });
    const c = await d.acquire();
    try {
      expect(await pragma(c, "journal_mode")).toEqual(["wal"]);
      expect(await pragma(c, "foreign_keys")).toEqual([1]);
      expect(await pragma(c, "synchronous")).toEqual([1]);
      expect(await pragma(c, "busy_timeout")).toEqual([1234]);
    } finally {
      c.release();
      await d.close();
    }
  });

  it("the busy timeout defaults to 5000 ms; :memory: also enforces foreign keys", async () => {
    const d = driver("sqlite::memory:");
    const c = await d.acquire();
    try {
      expect(await pragma(c, "busy_timeout")).toEqual([5000]);
      expect(await pragma(c, "foreign_keys")).toEqual([1]);
      expect(await pragma(c, "journal_mode")).toEqual(["memory"]);
    } finally {
      c.release();
      await d.close();
    }
  });

  it("refuses unknown or malformed driver options in createEngine, before anything connects", () => {
    for (const [options, message] of [
      [{ busyTimeout: 10 }, 'Unknown SQLite driver option "busyTimeout"'],
      [{ busyTimeoutMs: -1 }, "busyTimeoutMs must be a non-negative integer"],
      [{ statementCacheSize: 0 }, "statementCacheSize must be a positive integer"],
    ] as const) {
      expect(() => createEngine("sqlite::memory:", { driver: options })).toThrow(message);
      expect(() => createEngine("sqlite::memory:", { driver: options })).toThrow(ValidationError);
    }
  });

  it("a file that cannot be opened is a ConnectionError carrying SQLITE_CANTOPEN", async () => {
    const engine = createEngine(`sqlite://${join(dir, "missing", "dir", "x.db")}`);
    const error = await engine
      .execute(sql.raw("SELECT 1"))
      .all()
      .catch((e: unknown) => e);
    expect(ConnectionError.isInstance(error)).toBe(true);
    expect((error as QueryError).driverCode).toBe("SQLITE_CANTOPEN");
    await engine.close();
  });
});

describe("the connection mutex", () => {
  it("hands the connection out first come, first served", async () => {
    const d = driver("sqlite::memory:");
    const order: number[] = [];
    const first = await d.acquire();
    const waiting = [2, 3, 4].map((n) =>
      d.acquire().then(async (c) => {
        order.push(n);
        await new Promise((resolve) => setImmediate(resolve));
        c.release();
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    first.release();
    await Promise.all(waiting);
    expect(order).toEqual([2, 3, 4]);
    await d.close();
  });

  it("a second release() of one connection does not let two holders in", async () => {
    const d = driver("sqlite::memory:");
    const first = await d.acquire();
    let secondHeld = false;
    let thirdHeld = false;
    const second = d.acquire().then((c) => {
      secondHeld = true;
      return c;
    });
    const third = d.acquire().then((c) => {
      thirdHeld = true;
      return c;
    });
    first.release();
    first.release();
    const c2 = await second;
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect([secondHeld, thirdHeld]).toEqual([true, false]);
    await expect(first.query(q("SELECT 1"))).rejects.toThrow("already released");
    c2.release();
    (await third).release();
    await d.close();
  });

  it("close() waits for the current holder, then refuses new acquires", async () => {
    const d = driver(fileUrl());
    const c = await d.acquire();
    await c.query(q("CREATE TABLE t (x INTEGER)"));
    let closed = false;
    const closing = d.close().then(() => {
      closed = true;
    });
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    expect((await c.query(q("INSERT INTO t VALUES (1)"))).rowsAffected).toBe(1);
    c.release();
    await closing;
    await expect(d.acquire()).rejects.toThrow("closed");
  });

  it("engine.close() during a transaction lets it commit first", async () => {
    const url = fileUrl();
    const engine = createEngine(url);
    await engine.createAll([Counter]);
    const entered = deferred();
    const hold = deferred();
    const tx = engine.transaction(async (t) => {
      await t.execute(insert(Counter).values({ id: 1, value: 1 })).rowsAffected();
      entered.resolve();
      await hold.promise;
      await t.execute(insert(Counter).values({ id: 2, value: 2 })).rowsAffected();
    });
    await entered.promise;
    const closing = engine.close();
    hold.resolve();
    await Promise.all([tx, closing]);
    const reopened = createEngine(url);
    expect(await reopened.execute(select(Counter, ["id"]).orderBy("id")).all()).toEqual([{ id: 1 }, { id: 2 }]);
    await reopened.close();
  });
});

describe("runNow: a statement on an idle connection, without lending it", () => {
  it("runs at once when the connection is idle, and declines while a holder has it or others wait for it", async () => {
    const d = driver("sqlite::memory:");
    expect(d.runNow(q("CREATE TABLE t (x INTEGER)"))).toEqual({ rows: [], rowsAffected: 0 });
    expect(d.runNow(q("INSERT INTO t VALUES (?), (?)", [1, 2]))?.rowsAffected).toBe(2);
    const held = await d.acquire();
    expect(d.runNow(q("SELECT x FROM t"))).toBeUndefined();
    const queued = d.acquire();
    held.release();
    // Released, but handed straight to the queued acquire: runNow must not cut in.
    expect(d.runNow(q("SELECT x FROM t"))).toBeUndefined();
    (await queued).release();
    expect(d.runNow(q("SELECT x FROM t ORDER BY x"))?.rows).toEqual([[1], [2]]);
    await d.close();
    expect(d.runNow(q("SELECT 1"))).toBeUndefined();
  });

  it("frees the connection after a failing statement", async () => {
    const url = fileUrl();
    const d = driver(url);
    expect(() => d.runNow(q("SELECT * FROM missing"))).toThrow(/no such table/);
    expect(d.runNow(q("SELECT 1"))?.rows).toEqual([[1]]);
    await d.close();
  });

  it("through the engine: statements outside transactions still emit query events and wait behind a transaction", async () => {
    const events: string[] = [];
    const engine = createEngine("sqlite::memory:", { onQuery: (e) => events.push(e.sql) });
    await engine.createAll([Counter]);
    const entered = deferred();
    const hold = deferred();
    const tx = engine.transaction(async (t) => {
      await t.execute(insert(Counter).values({ id: 1, value: 1 })).rowsAffected();
      entered.resolve();
      await hold.promise;
    });
    await entered.promise;
    let read: unknown;
    const outside = engine
      .execute(select(Counter, ["id"]))
      .all()
      .then((rows) => {
        read = rows;
      });
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(read).toBeUndefined();
    hold.resolve();
    await Promise.all([tx, outside]);
    expect(read).toEqual([{ id: 1 }]);
    expect(await engine.execute(select(Counter, ["id"])).first()).toEqual({ id: 1 });
    expect(events.filter((sql) => sql.startsWith("SELECT")).length).toBe(2);
    await engine.close();
  });
});

describe("a connection released as broken", () => {
  it.each(["file", "memory"] as const)("on a %s database: its open transaction is rolled back and the data kept", async (target) => {
    const d = driver(target === "file" ? fileUrl() : "sqlite::memory:");
    const c = await d.acquire();
    await c.query(q("CREATE TABLE t (x INTEGER)"));
    await c.query(q("INSERT INTO t VALUES (1)"));
    await c.query(q("BEGIN IMMEDIATE"));
    await c.query(q("INSERT INTO t VALUES (2)"));
    c.release(true);
    const next = await d.acquire();
    expect((await next.query(q("SELECT x FROM t"))).rows).toEqual([[1]]);
    // No transaction is left open: a new one can begin.
    await next.query(q("BEGIN IMMEDIATE"));
    await next.query(q("COMMIT"));
    next.release();
    await d.close();
  });
});

describe("the prepared statement cache", () => {
  it("reuses one prepared statement per SQL text, and keeps at most statementCacheSize", async () => {
    const d = driver("sqlite::memory:", { statementCacheSize: 2 });
    const c = await d.acquire();
    for (let i = 0; i < 3; i++) expect((await c.query(q("SELECT ? + 1", [i]))).rows).toEqual([[i + 1]]);
    expect(d.preparedStatementCount).toBe(1);
    await c.query(q("SELECT 2"));
    await c.query(q("SELECT 3"));
    expect(d.preparedStatementCount).toBe(2);
    // An evicted statement is simply prepared again.
    expect((await c.query(q("SELECT ? + 1", [9]))).rows).toEqual([[10]]);
    c.release();
    await d.close();
  });

  it("switches a cached statement between row modes and safe integers per query", async () => {
    const d = driver("sqlite::memory:");
    const c = await d.acquire();
    const text = "SELECT 9007199254740993 AS big";
    expect((await c.query({ sql: text, params: [], rowMode: "array", wantsBigInt: true })).rows).toEqual([[9007199254740993n]]);
    expect((await c.query({ sql: text, params: [], rowMode: "object" })).rows).toEqual([{ big: 9007199254740992 }]);
    expect((await c.query({ sql: text, params: [], rowMode: "object", wantsBigInt: true })).rows).toEqual([{ big: 9007199254740993n }]);
    expect(d.preparedStatementCount).toBe(1);
    c.release();
    await d.close();
  });
});

describe("through the engine", () => {
  it("a file and :memory: database both use one connection per engine", async () => {
    for (const target of ["file", "memory"] as const) {
      const { engine, close } = openDatabase(target);
      await engine.execute(sql.raw("CREATE TEMP TABLE scratch (x INTEGER)")).rowsAffected();
      // A TEMP table is private to its connection: seen from every statement, so there is one.
      await Promise.all(Array.from({ length: 5 }, (_, i) => engine.execute(sql.expr`INSERT INTO scratch VALUES (${i})`).rowsAffected()));
      expect(await engine.execute(sql.raw("SELECT count(*) AS n FROM scratch")).scalar()).toBe(5);
      await close();
    }
  });
});
