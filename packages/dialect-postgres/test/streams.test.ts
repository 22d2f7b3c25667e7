import type { QueryEvent } from "tempest-db-js";
import { column, createEngine, insert, Model, QueryError, select, sql } from "tempest-db-js";
import { collectGarbageUntil } from "tempest-db-js/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresDialect } from "../src/index.js";
import { PG_URL } from "./pg-url.js";

class StreamItem extends Model {
  static tablename = "tempest_stream_items";
  id = column.integer().primaryKey();
  label = column.text().notNull();
  at = column.datetime().notNull();
}

class StreamLog extends Model {
  static tablename = "tempest_stream_log";
  id = column.integer().primaryKey();
}

const SECRET = "S3CRET-stream-value";
const ROWS = 3000;
const events: QueryEvent[] = [];
// One connection: a stream that left its cursor or transaction open would show on the next statement.
const engine = createEngine(PG_URL, { dialect: postgresDialect, poolSize: 1, onQuery: (e) => events.push(e) });
const ordered = select(StreamItem).orderBy("id");

/** True when the session has no open cursor and is not inside a transaction. */
async function sessionIsClean(): Promise<boolean> {
  const row = await engine
    .execute(sql.raw("SELECT (SELECT count(*) FROM pg_cursors)::int AS cursors, now() = statement_timestamp() AS own_transaction"))
    .one();
  return row.cursors === 0 && row.own_transaction === true;
}

/** Reads one row, then lets the iterator go without break, return() or throw. */
async function readOneAndDrop(rows: AsyncIterable<unknown>): Promise<void> {
  await readOne(rows);
}

/** Reads one row and returns the iterator, for a test that must check the stream before dropping it. */
async function readOne(rows: AsyncIterable<unknown>): Promise<AsyncIterator<unknown>> {
  const iterator = rows[Symbol.asyncIterator]();
  await iterator.next();
  return iterator;
}

beforeAll(async () => {
  await engine.dropAll([StreamItem, StreamLog]);
  await engine.createAll([StreamItem, StreamLog]);
  const t0 = Date.UTC(2026, 0, 1);
  const rows = Array.from({ length: ROWS }, (_, i) => ({ id: i + 1, label: `item ${i}`, at: new Date(t0 + i * 1000) }));
  for (let i = 0; i < ROWS; i += 1000) await engine.execute(insert(StreamItem).values(rows.slice(i, i + 1000))).rowsAffected();
});

afterAll(async () => {
  await engine.dropAll([StreamItem, StreamLog]);
  await engine.close();
});

describe("PostgreSQL streams (server-side cursors)", () => {
  it("outside a transaction the cursor lives in one of its own, ended on the last row and on a break", async () => {
    let n = 0;
    for await (const row of engine.stream(ordered, { batchSize: 256 })) expect(row.id).toBe(++n);
    expect(n).toBe(ROWS);
    expect(await sessionIsClean()).toBe(true);
    for await (const row of engine.stream(ordered, { batchSize: 100 })) if (row.id === 150) break;
    expect(await sessionIsClean()).toBe(true);
  });

  it("statements on the transaction run between fetches; the cursor reads the rows as of its DECLARE", async () => {
    await engine.execute(sql.raw(`DELETE FROM "tempest_stream_log"`)).rowsAffected();
    const seen = await engine.transaction(async (tx) => {
      let count = 0;
      for await (const row of tx.stream(
        select(StreamItem, ["id"])
          .where({ id: { lte: 200 } })
          .orderBy("id"),
        { batchSize: 16 },
      )) {
        count++;
        // A write per row, on the same connection, while the cursor is open.
        await tx.execute(insert(StreamLog).values({ id: row.id })).rowsAffected();
        if (row.id === 10) await tx.execute(insert(StreamItem).values({ id: ROWS + 1, label: "late", at: new Date() })).rowsAffected();
      }
      const logged = await tx.execute(sql.raw(`SELECT count(*)::int AS n FROM "tempest_stream_log"`)).one();
      expect(logged.n).toBe(200);
      return count;
    });
    // The row inserted mid-stream matched the where, but a cursor does not see writes made after it opened.
    expect(seen).toBe(200);
    expect(await engine.execute(select(StreamItem).where({ id: ROWS + 1 })).all()).toHaveLength(1);
    await engine.execute(sql.raw(`DELETE FROM "tempest_stream_items" WHERE id > ${ROWS}`)).rowsAffected();
    expect(await sessionIsClean()).toBe(true);
  });

  it("a break inside a transaction closes the cursor and the transaction goes on to commit", async () => {
    await engine.transaction(async (tx) => {
      for await (const row of tx.stream(ordered, { batchSize: 50 })) if (row.id === 75) break;
      const open = await tx.execute(sql.raw("SELECT count(*)::int AS n FROM pg_cursors")).one();
      expect(open.n).toBe(0);
      await tx.execute(insert(StreamLog).values({ id: 100_000 })).rowsAffected();
    });
    expect(await engine.execute(select(StreamLog).where({ id: 100_000 })).all()).toHaveLength(1);
  });

  it("an iterator dropped mid-read is closed once collected: its cursor and transaction end, or its cursor alone in a transaction", async () => {
    const text = engine.compile(ordered).sql;
    const ended = () => events.filter((e) => e.sql === text).length;
    events.length = 0;
    await readOneAndDrop(engine.stream(ordered, { batchSize: 100 }));
    expect(await collectGarbageUntil(() => ended() === 1)).toBe(true);
    // The engine's one connection came back rolled back, with no cursor open.
    expect(await sessionIsClean()).toBe(true);
    await engine.transaction(async (tx) => {
      // Held until its cursor is seen open: a collection before that check would close it early.
      const held: { iterator?: AsyncIterator<unknown> } = { iterator: await readOne(tx.stream(ordered, { batchSize: 100 })) };
      expect((await tx.execute(sql.raw("SELECT count(*)::int AS n FROM pg_cursors")).one()).n).toBe(1);
      held.iterator = undefined;
      expect(await collectGarbageUntil(() => ended() === 2)).toBe(true);
      expect((await tx.execute(sql.raw("SELECT count(*)::int AS n FROM pg_cursors")).one()).n).toBe(0);
      await tx.execute(insert(StreamLog).values({ id: 300_000 })).rowsAffected();
    });
    expect(await engine.execute(select(StreamLog).where({ id: 300_000 })).all()).toHaveLength(1);
    expect(await sessionIsClean()).toBe(true);
  });

  it("an error mid-stream is a QueryError with the SQL and no bound value; the connection comes back clean", async () => {
    const failing = sql.expr`SELECT id, CASE WHEN id = 1500 THEN (${SECRET} || id::text)::int ELSE id END AS v FROM "tempest_stream_items" ORDER BY id`;
    let seen = 0;
    const error = await (async () => {
      for await (const _ of engine.stream(failing, { batchSize: 100 })) seen++;
    })().catch((e: unknown) => e);
    expect(QueryError.isInstance(error)).toBe(true);
    expect(seen).toBe(1400);
    expect((error as QueryError).sql).toContain("$1 || id::text");
    expect((error as QueryError).params).toBe("[redacted]");
    expect(`${(error as Error).message} ${JSON.stringify((error as Error).cause)}`).not.toContain(SECRET);
    expect(events.some((e) => e.sql === (error as QueryError).sql && e.error !== undefined)).toBe(true);
    expect(await sessionIsClean()).toBe(true);
  });

  it("inside a transaction a failed fetch fails the transaction, which rolls back", async () => {
    const failing = sql.expr`SELECT id, 10 / (id - 30) AS v FROM "tempest_stream_items" ORDER BY id`;
    const outcome = await engine
      .transaction(async (tx) => {
        await tx.execute(insert(StreamLog).values({ id: 200_000 })).rowsAffected();
        for await (const _ of tx.stream(failing, { batchSize: 10 })) {
          // consumed until the fetch that reaches id 30
        }
      })
      .catch((e: unknown) => e);
    expect(QueryError.isInstance(outcome)).toBe(true);
    expect((outcome as Error).message).toContain("division by zero");
    expect(await engine.execute(select(StreamLog).where({ id: 200_000 })).all()).toEqual([]);
    expect(await sessionIsClean()).toBe(true);
  });

  it("a slow consumer holds one batch: the next is fetched only when the loop asks", async () => {
    events.length = 0;
    let seen = 0;
    for await (const _ of engine.stream(ordered, { batchSize: 40 })) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (++seen === 90) break;
    }
    expect(events.filter((e) => e.sql === engine.compile(ordered).sql).map((e) => e.rowCount)).toEqual([120]);
  });
});
