import {
  column,
  insert,
  Model,
  QueryError,
  StreamEndedTransactionError,
  StreamOpenError,
  select,
  sql,
  TransactionFailedError,
} from "tempest-db-js";
import { collectGarbageUntil } from "tempest-db-js/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeEngines, testEngine } from "./support.js";

class StreamItem extends Model {
  static tablename = "tempest_stream_items";
  id = column.integer().primaryKey();
  label = column.text().notNull();
}

class StreamLog extends Model {
  static tablename = "tempest_stream_log";
  id = column.integer().primaryKey();
}

const SECRET = "S3CRET-stream-value";
const ROWS = 3000;
const engine = testEngine({ poolSize: 3 });
const ordered = select(StreamItem).orderBy("id");

beforeAll(async () => {
  await engine.dropAll([StreamItem, StreamLog]);
  await engine.createAll([StreamItem, StreamLog]);
  const rows = Array.from({ length: ROWS }, (_, i) => ({ id: i + 1, label: `item ${i}` }));
  for (let i = 0; i < ROWS; i += 1000) await engine.execute(insert(StreamItem).values(rows.slice(i, i + 1000))).rowsAffected();
});

afterAll(async () => {
  await engine.dropAll([StreamItem, StreamLog]);
  await closeEngines();
});

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

/** Wide rows that do not fit the socket buffers, so the server is still sending when the client pauses. */
function wideQuery(marker: string) {
  return sql.raw(`SELECT id, REPEAT('x', 8000) AS pad, '${marker}' AS marker FROM tempest_stream_items ORDER BY id`);
}

/** How many statements carrying `marker` the server is running, seen from a connection of its own. */
function runningOn(watcher: ReturnType<typeof testEngine>, marker: string) {
  return async () =>
    Number(
      await watcher
        .execute(
          sql.raw(
            `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE '%${marker}%' AND INFO NOT LIKE '%PROCESSLIST%'`,
          ),
        )
        .scalar(),
    );
}

const logged = async (id: number) => (await engine.execute(select(StreamLog).where({ id })).all()).length;

describe("MySQL streams (mysql2 text protocol)", () => {
  it("a break inside a transaction closes the connection: the transaction rejects with StreamEndedTransactionError, its writes gone", async () => {
    let refused: unknown;
    const outcome = await engine
      .transaction(async (tx) => {
        await tx.execute(insert(StreamLog).values({ id: 1 })).rowsAffected();
        for await (const row of tx.stream(ordered, { batchSize: 100 })) if (row.id === 150) break;
        refused = await tx
          .execute(insert(StreamLog).values({ id: 2 }))
          .rowsAffected()
          .catch((e: unknown) => e);
        return "returned";
      })
      .catch((e: unknown) => e);
    expect(StreamEndedTransactionError.isInstance(outcome)).toBe(true);
    expect(TransactionFailedError.isInstance(outcome)).toBe(true);
    expect((outcome as Error).message).toContain("closing its connection");
    expect((outcome as StreamEndedTransactionError).streamSql).toBe(engine.compile(ordered).sql);
    expect(StreamEndedTransactionError.isInstance(refused)).toBe(true);
    expect(await logged(1)).toBe(0);
    expect(await logged(2)).toBe(0);
  });

  it("a transaction whose stream is read to the end commits; a statement issued mid-stream is refused and sends nothing", async () => {
    await engine.transaction(async (tx) => {
      let n = 0;
      for await (const row of tx.stream(ordered, { batchSize: 500 })) {
        n++;
        if (row.id === 10) {
          const error = await tx
            .execute(insert(StreamLog).values({ id: 3 }))
            .rowsAffected()
            .catch((e: unknown) => e);
          expect(StreamOpenError.isInstance(error)).toBe(true);
          expect((error as StreamOpenError).streamSql).toBe(engine.compile(ordered).sql);
        }
      }
      expect(n).toBe(ROWS);
      await tx.execute(insert(StreamLog).values({ id: 4 })).rowsAffected();
    });
    expect(await logged(3)).toBe(0);
    expect(await logged(4)).toBe(1);
  });

  it("an error mid-stream is a QueryError whose SQL and err.sql carry placeholders, not the client-formatted values", async () => {
    const failing = sql.expr`SELECT t.id, CASE WHEN t.id >= 1500 THEN (SELECT CONCAT(${SECRET}, c.id) FROM tempest_stream_items c WHERE c.id <= t.id - 1498) ELSE t.label END AS v FROM tempest_stream_items t ORDER BY t.id`;
    let seen = 0;
    const error = await (async () => {
      for await (const _ of engine.stream(failing, { batchSize: 100 })) seen++;
    })().catch((e: unknown) => e);
    expect(QueryError.isInstance(error)).toBe(true);
    expect((error as QueryError).message).toMatch(/more than 1 row/);
    expect(seen).toBe(1499);
    const cause = (error as Error).cause as { sql?: string };
    expect(cause.sql).toBe(engine.compile(failing).sql);
    expect(`${(error as Error).message} ${JSON.stringify(error)} ${JSON.stringify(cause)} ${String(cause)}`).not.toContain(SECRET);
    // The connection read the error packet to its end and is pooled again.
    expect(await engine.execute(select(StreamItem).where({ id: 1 })).all()).toHaveLength(1);
  });

  it("an iterator dropped mid-read is closed once collected: its connection is destroyed and the server stops sending", async () => {
    const marker = `tempest_abandoned_${process.pid}`;
    const running = runningOn(testEngine({ poolSize: 1 }), marker);
    // Held until the server is seen running it: a collection before that check would close it early.
    const held: { iterator?: AsyncIterator<unknown> } = { iterator: await readOne(engine.stream(wideQuery(marker), { batchSize: 50 })) };
    expect(await running()).toBe(1);
    held.iterator = undefined;
    expect(await collectGarbageUntil(async () => (await running()) === 0)).toBe(true);
    expect(await engine.execute(select(StreamItem).where({ id: 1 })).all()).toHaveLength(1);
  });

  it("an iterator dropped inside a transaction is closed once collected: the transaction rejects with StreamEndedTransactionError, its writes gone", async () => {
    let after: unknown;
    const outcome = await engine
      .transaction(async (tx) => {
        await tx.execute(insert(StreamLog).values({ id: 5 })).rowsAffected();
        await readOneAndDrop(tx.stream(ordered, { batchSize: 100 }));
        const refused = async () => {
          after = await tx
            .execute(insert(StreamLog).values({ id: 6 }))
            .rowsAffected()
            .catch((e: unknown) => e);
          return StreamEndedTransactionError.isInstance(after);
        };
        // Refused with StreamOpenError (nothing sent) until collected, with StreamEndedTransactionError after.
        expect(await refused()).toBe(false);
        expect(StreamOpenError.isInstance(after)).toBe(true);
        expect(await collectGarbageUntil(refused)).toBe(true);
        return "returned";
      })
      .catch((e: unknown) => e);
    expect(StreamEndedTransactionError.isInstance(outcome)).toBe(true);
    expect(StreamEndedTransactionError.isInstance(after)).toBe(true);
    expect(await logged(5)).toBe(0);
    expect(await logged(6)).toBe(0);
  });

  it("a slow consumer pauses the connection: the server waits on its socket instead of the rows piling up in memory", async () => {
    const marker = `tempest_backpressure_${process.pid}`;
    const wide = wideQuery(marker);
    const running = runningOn(testEngine({ poolSize: 1 }), marker);
    let seen = 0;
    let stillSending: unknown;
    for await (const _ of engine.stream(wide, { batchSize: 50 })) {
      if (++seen === 50) {
        // 3000 rows of 8 kB (24 MB) do not fit the socket buffers: had the client read on, the
        // statement would be over by now.
        await new Promise((resolve) => setTimeout(resolve, 500));
        stillSending = await running();
        break;
      }
    }
    expect(stillSending).toBe(1);
    // The break destroyed that connection: its statement ends with it.
    for (let i = 0; i < 50 && (await running()) !== 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await running()).toBe(0);
  });
});
