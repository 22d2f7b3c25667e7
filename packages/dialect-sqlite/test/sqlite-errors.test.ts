import { ConstraintViolationError, createEngine, insert, QueryError, RetryableTransactionError, select, sql } from "tempest-db-js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { capabilitiesForVersion, classifySqliteError, sqliteCapabilities } from "../src/index.js";
import type { TestDatabase } from "./support/engines.js";
import { deferred, openDatabase, targets } from "./support/engines.js";
import { Child, Counter, Parent } from "./support/models.js";

async function failure(run: Promise<unknown>): Promise<QueryError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(QueryError.isInstance(error)).toBe(true);
  return error as QueryError;
}

describe.each(targets)("driver errors on a %s database", (target) => {
  let db: TestDatabase;

  beforeEach(async () => {
    db = openDatabase(target);
    await db.engine.createAll([Parent, Child, Counter]);
    await db.engine.execute(insert(Parent).values({ id: 1 })).rowsAffected();
  });

  afterEach(() => db.close());

  it("values that do not match the placeholders are a QueryError of kind syntax, not a ConnectionError", async () => {
    // A "$" in the template skips build-time detection of quoted holes, so the driver sees this one.
    const error = await failure(db.engine.execute(sql.expr`SELECT '$' AS a, 'x${"S3CRET-value"}' AS b`).all());
    expect(error.name).toBe("QueryError");
    expect(error.kind).toBe("syntax");
    expect(error.message).toMatch(/inside quotes is text, not a parameter/);
    expect(error.message).not.toContain("S3CRET");
  });

  it("a primary key collision is a unique-violation naming the column", async () => {
    const error = await failure(db.engine.execute(insert(Parent).values({ id: 1 })).rowsAffected());
    expect(ConstraintViolationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: "unique-violation", driverCode: "SQLITE_CONSTRAINT_PRIMARYKEY", constraint: "parents.id" });
  });

  it("foreign keys are enforced: a missing parent is a foreign-key-violation", async () => {
    const error = await failure(db.engine.execute(insert(Child).values({ id: 1, parentId: 99 })).rowsAffected());
    expect(ConstraintViolationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: "foreign-key-violation", driverCode: "SQLITE_CONSTRAINT_FOREIGNKEY" });
  });

  it("NULL in a NOT NULL column is a not-null-violation", async () => {
    const error = await failure(db.engine.execute(sql.raw(`INSERT INTO "children" ("id", "parent_id") VALUES (1, NULL)`)).rowsAffected());
    expect(error).toMatchObject({ kind: "not-null-violation", driverCode: "SQLITE_CONSTRAINT_NOTNULL", constraint: "children.parent_id" });
  });

  it("a syntax error is kind syntax and not retryable", async () => {
    const error = await failure(db.engine.execute(sql.raw("SELEC 1")).all());
    expect(error).toMatchObject({ kind: "syntax", driverCode: "SQLITE_ERROR", retryable: false, sql: "SELEC 1" });
  });

  it("other SQLite errors keep their code under kind other", async () => {
    const error = await failure(db.engine.execute(sql.raw("SELECT * FROM nowhere")).all());
    expect(error).toMatchObject({ kind: "other", driverCode: "SQLITE_ERROR" });
    expect(error.message).toContain("no such table: nowhere");
  });
});

describe("a write lock held by another connection", () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = openDatabase("file");
    await db.engine.createAll([Counter]);
  });
  afterEach(() => db.close());

  it("is SQLITE_BUSY after busy_timeout: a retryable lock-timeout, and retryOnDeadlock gets through once it is released", async () => {
    let release = () => {};
    const busy: QueryError[] = [];
    const other = createEngine(db.url, {
      driver: { busyTimeoutMs: 0 },
      // The moment the other engine has been refused, let the holder commit.
      onQuery: (event) => {
        if (!event.error) return;
        busy.push(event.error);
        release();
      },
    });
    // Holds the write lock until the other engine has been refused once.
    const holdLock = async (id: number) => {
      const hold = deferred();
      const entered = deferred();
      release = () => hold.resolve();
      const done = db.engine.transaction(async (tx) => {
        await tx.execute(insert(Counter).values({ id, value: id })).rowsAffected();
        entered.resolve();
        await hold.promise;
      });
      await entered.promise;
      // Wrapped: an async function returning the promise itself would wait for the commit.
      return { committed: done };
    };
    try {
      const first = await holdLock(1);
      const error = await failure(other.execute(insert(Counter).values({ id: 2, value: 2 })).rowsAffected());
      expect(RetryableTransactionError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ kind: "lock-timeout", driverCode: "SQLITE_BUSY", retryable: true });
      await first.committed;

      const second = await holdLock(3);
      const retried = other.transaction(async (tx) => tx.execute(insert(Counter).values({ id: 4, value: 4 })).rowsAffected(), {
        retryOnDeadlock: 20,
      });
      expect(await retried).toBe(1);
      await second.committed;
      // Refused once per holder: BEGIN IMMEDIATE of the retried transaction failed, then succeeded.
      expect(busy.map((e) => [e.kind, e.sql])).toEqual([
        ["lock-timeout", other.compile(insert(Counter).values({ id: 2, value: 2 })).sql],
        ["lock-timeout", "BEGIN IMMEDIATE"],
      ]);
      expect((await db.engine.execute(select(Counter, ["id"]).orderBy("id")).all()).map((r) => r.id)).toEqual([1, 3, 4]);
    } finally {
      await other.close();
    }
  });
});

describe("classifySqliteError", () => {
  it.each([
    ["SQLITE_BUSY_SNAPSHOT", "database is locked", "lock-timeout"],
    ["SQLITE_LOCKED_SHAREDCACHE", "database table is locked", "lock-timeout"],
    ["SQLITE_CONSTRAINT_UNIQUE", "UNIQUE constraint failed: t.a, t.b", "unique-violation"],
    ["SQLITE_CONSTRAINT_CHECK", "CHECK constraint failed: positive", "check-violation"],
    ["SQLITE_CONSTRAINT", "UNIQUE constraint failed: t.a", "unique-violation"],
    ["SQLITE_CONSTRAINT_TRIGGER", "custom abort", "other"],
    ["SQLITE_ERROR", 'unrecognized token: "\'"', "syntax"],
    ["SQLITE_ERROR", "incomplete input", "syntax"],
    ["SQLITE_IOERR_WRITE", "disk I/O error", "connection"],
    ["SQLITE_NOTADB", "file is not a database", "connection"],
    ["SQLITE_FULL", "database or disk is full", "other"],
  ] as const)("%s (%s) is %s", (code, message, kind) => {
    const error = Object.assign(new Error(message), { code });
    expect(classifySqliteError(error)).toMatchObject({ kind, driverCode: code, message });
  });

  it("names the constraint as SQLite does, and copes with errors that are not SqliteError", () => {
    const unique = Object.assign(new Error("UNIQUE constraint failed: t.a, t.b"), { code: "SQLITE_CONSTRAINT_UNIQUE" });
    expect(classifySqliteError(unique).constraint).toBe("t.a, t.b");
    expect(classifySqliteError(new TypeError("The database connection is not open"))).toMatchObject({
      kind: "connection",
      driverCode: undefined,
    });
    expect(classifySqliteError("weird")).toEqual({ kind: "other", driverCode: undefined, constraint: undefined, message: "weird" });
  });
});

describe("capabilities", () => {
  it("the engine reports the table for this SQLite after inspecting its version", async () => {
    const engine = createEngine("sqlite::memory:");
    await engine.execute(sql.raw("SELECT 1")).all();
    expect(engine.capabilities).toEqual(sqliteCapabilities);
    // Flags SQLite does not declare keep core's safe defaults.
    expect(sqliteCapabilities).toMatchObject({
      rowLocks: false,
      shareLocks: false,
      skipLocked: false,
      noWait: false,
      lockOf: false,
      returningInsert: true,
      returningUpdate: true,
      returningDelete: true,
      limitInSubquery: true,
      conflictTarget: true,
      conflictTargetWhere: true,
      onDuplicateKey: false,
      partialIndexes: true,
      savepoints: true,
      listenNotify: false,
      serializedWrites: true,
      maxParams: 32766,
    });
    await engine.close();
  });

  it("an older linked SQLite loses what it lacks: RETURNING before 3.35, upsert targets before 3.24", () => {
    expect(capabilitiesForVersion("3.53.2", sqliteCapabilities)).toEqual(sqliteCapabilities);
    expect(capabilitiesForVersion("3.34.1", sqliteCapabilities)).toMatchObject({
      returningUpdate: false,
      conflictTarget: true,
      maxParams: 32766,
    });
    expect(capabilitiesForVersion("3.31.0", sqliteCapabilities)).toMatchObject({ returningInsert: false, maxParams: 999 });
    expect(capabilitiesForVersion("3.22.0", sqliteCapabilities)).toMatchObject({ conflictTarget: false, conflictTargetWhere: false });
  });
});
