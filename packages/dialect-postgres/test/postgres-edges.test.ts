import {
  ConnectionError,
  column,
  createEngine,
  insert,
  Model,
  QueryError,
  RetryableTransactionError,
  select,
  sql,
  update,
} from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresDialect } from "../src/index.js";
import { PG_URL } from "./pg-url.js";

class Counter extends Model {
  static tablename = "tempest_pg_counters";
  id = column.integer().primaryKey();
  value = column.integer().notNull();
}

const engine = createEngine(PG_URL, { dialect: postgresDialect, poolSize: 4 });

beforeAll(async () => {
  await engine.dropAll([Counter]);
  await engine.createAll([Counter]);
  await engine
    .execute(
      insert(Counter).values([
        { id: 1, value: 0 },
        { id: 2, value: 0 },
      ]),
    )
    .rowsAffected();
});

afterAll(async () => {
  await engine.dropAll([Counter]);
  await engine.close();
});

const pid = async (tx: { execute: typeof engine.execute }) =>
  Number((await tx.execute(sql.raw("SELECT pg_backend_pid() AS pid")).one()).pid);

describe("PostgreSQL beyond single statements", () => {
  it("LISTEN/NOTIFY delivers a notification sent inside a transaction after commit", async () => {
    const received: string[] = [];
    const stop = await engine.listen("tempest_test_channel", (payload) => received.push(payload));
    try {
      await engine.transaction(async (tx) => {
        await tx.notify("tempest_test_channel", "queued:42");
        await new Promise((r) => setTimeout(r, 100));
        expect(received).toEqual([]); // not before commit
      });
      for (let i = 0; i < 50 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(received).toEqual(["queued:42"]);
    } finally {
      await stop();
    }
  });

  it("fn.notify sends from inside a statement, at commit, once per distinct payload", async () => {
    const received: string[] = [];
    const stop = await engine.listen("tempest_test_fn_notify", (payload) => received.push(payload));
    try {
      const notifying = select(Counter, "c")
        .columns((q) => ({ id: "c.id", notified: q.notify(q.val("tempest_test_fn_notify"), q.cast("c.value", "text")) }))
        .orderBy("c.id");
      await engine.transaction(async (tx) => {
        // Two rows of value 0: two calls with one payload, delivered once.
        expect(await tx.execute(notifying).all()).toEqual([
          { id: 1, notified: true },
          { id: 2, notified: true },
        ]);
        await new Promise((r) => setTimeout(r, 100));
        expect(received).toEqual([]); // not before commit
      });
      for (let i = 0; i < 50 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 50));
      expect(received).toEqual(["0"]);
    } finally {
      await stop();
    }
  });

  it("a backend killed mid-transaction rolls back with a typed error, and the pool recovers", async () => {
    const killer = createEngine(PG_URL, { dialect: postgresDialect, poolSize: 1 });
    try {
      const error = await engine
        .transaction(async (tx) => {
          await tx.execute(update(Counter).set({ value: 100 }).where({ id: 1 })).rowsAffected();
          await killer.execute(sql.expr`SELECT pg_terminate_backend(${await pid(tx)})`).all();
          await tx.execute(update(Counter).set({ value: 200 }).where({ id: 2 })).rowsAffected();
        })
        .catch((e: unknown) => e);
      expect(ConnectionError.isInstance(error)).toBe(true);
      expect((error as QueryError).sql).toContain("UPDATE");
      // Every pooled connection works afterwards, and nothing of the transaction was kept.
      const values = await Promise.all(Array.from({ length: 8 }, () => engine.execute(select(Counter).orderBy("id")).all()));
      for (const rows of values)
        expect(rows).toEqual([
          { id: 1, value: 0 },
          { id: 2, value: 0 },
        ]);
    } finally {
      await killer.close();
    }
  });

  it("statementTimeoutMs cancels a slow statement with a typed error", async () => {
    const strict = createEngine(PG_URL, { dialect: postgresDialect, statementTimeoutMs: 100 });
    try {
      const error = (await strict
        .execute(sql.raw("SELECT pg_sleep(2)"))
        .all()
        .catch((e: unknown) => e)) as QueryError;
      expect(QueryError.isInstance(error)).toBe(true);
      expect(error.kind).toBe("statement-timeout");
      expect(await strict.execute(sql.raw("SELECT 1 AS ok")).scalar()).toBe(1);
    } finally {
      await strict.close();
    }
  });

  it("the isolation option reaches the server", async () => {
    const level = await engine.transaction(async (tx) => tx.execute(sql.raw("SHOW transaction_isolation")).scalar(), {
      isolation: "serializable",
    });
    expect(level).toBe("serializable");
    const readOnly = await engine
      .transaction(async (tx) => tx.execute(update(Counter).set({ value: 1 }).where({ id: 1 })).rowsAffected(), { readOnly: true })
      .catch((e: unknown) => e);
    expect(QueryError.isInstance(readOnly)).toBe(true);
  });

  it("a deadlock is a RetryableTransactionError, and retryOnDeadlock runs the callback again until it commits", async () => {
    // Two transactions lock the two rows in opposite orders; the server kills one of them.
    let attempts = 0;
    // Each phase's first two attempts meet here, so both hold their first row before taking the second.
    const makeBarrier = () => {
      let arrived = 0;
      let release!: () => void;
      const all = new Promise<void>((r) => (release = r));
      return () => {
        arrived++;
        if (arrived === 2) release();
        return all;
      };
    };
    let barrier = makeBarrier();
    const swap = (first: number, second: number, retry: number) =>
      engine.transaction(
        async (tx) => {
          attempts++;
          await tx
            .execute(
              update(Counter)
                .set({ value: sql.raw("value + 1") })
                .where({ id: first }),
            )
            .rowsAffected();
          if (attempts <= 2) await barrier();
          await tx
            .execute(
              update(Counter)
                .set({ value: sql.raw("value + 1") })
                .where({ id: second }),
            )
            .rowsAffected();
        },
        { retryOnDeadlock: retry },
      );
    const results = await Promise.allSettled([swap(1, 2, 3), swap(2, 1, 3)]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
    expect(attempts).toBe(3);
    expect(await engine.execute(select(Counter).orderBy("id")).all()).toEqual([
      { id: 1, value: 2 },
      { id: 2, value: 2 },
    ]);
    // Without retries the loser sees the typed error.
    await engine.execute(update(Counter).set({ value: 0 }).allRows()).rowsAffected();
    attempts = 0;
    barrier = makeBarrier();
    const plain = await Promise.allSettled([swap(1, 2, 0), swap(2, 1, 0)]);
    const rejected = plain.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(rejected).toHaveLength(1);
    expect(RetryableTransactionError.isInstance(rejected[0]?.reason)).toBe(true);
    expect((rejected[0]?.reason as QueryError | undefined)?.kind).toBe("deadlock");
  });
});

describe("a parameter-count mistake", () => {
  it("is a QueryError of kind syntax (08P01 from a bind message), not a ConnectionError, and the pool stays usable", async () => {
    // Build-time detection of a quoted hole skips templates with a "$" (PostgreSQL dollar quoting),
    // so this one reaches the server, whose 'x$1' is a string and counts no parameter.
    const error = await engine
      .execute(sql.expr`SELECT '$' AS a, 'x${"S3CRET-value"}' AS b`)
      .all()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(QueryError.isInstance(error)).toBe(true);
    expect(ConnectionError.isInstance(error)).toBe(false);
    expect((error as QueryError).kind).toBe("syntax");
    expect((error as QueryError).driverCode).toBe("08P01");
    expect((error as QueryError).message).toMatch(/inside quotes is text, not a parameter/);
    expect((error as QueryError).message).not.toContain("S3CRET");
    expect(await engine.execute(sql.raw("SELECT 1 AS one")).scalar()).toBe(1);
  });

  it("with quotes around a hole is refused while building, before any SQL is sent", () => {
    expect(() => sql.expr`SELECT ${1} AS a WHERE 'x' = '${"S3CRET-value"}'`).toThrow(/value #2 sits inside a single-quoted string/);
  });
});
