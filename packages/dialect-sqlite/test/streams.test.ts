import { insert, QueryError, StreamOpenError, select, sql, TransactionFinishedError } from "tempest-db-js";
import { collectGarbageUntil } from "tempest-db-js/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TestDatabase } from "./support/engines.js";
import { openDatabase, targets } from "./support/engines.js";
import { Counter } from "./support/models.js";

const SECRET = "S3CRET-stream-value";

/** Whether the statement ran: false when refused because a stream holds the connection, as it is until then (never a wait). */
function ran(statement: Promise<unknown>): Promise<boolean> {
  return statement.then(
    () => true,
    (error: unknown) => {
      expect(StreamOpenError.isInstance(error)).toBe(true);
      return false;
    },
  );
}

/** Reads one row, then lets the iterator go without break, return() or throw. */
async function readOneAndDrop(rows: AsyncIterable<unknown>): Promise<unknown> {
  return (await readOne(rows)).first;
}

/** Reads one row and returns it with the iterator, for a test that must check the stream before dropping it. */
async function readOne(rows: AsyncIterable<unknown>): Promise<{ first: unknown; iterator: AsyncIterator<unknown> }> {
  const iterator = rows[Symbol.asyncIterator]();
  return { first: (await iterator.next()).value, iterator };
}

describe.each(targets)("streams on a %s database", (target) => {
  let db: TestDatabase;

  beforeEach(async () => {
    db = openDatabase(target);
    await db.engine.createAll([Counter]);
    const rows = Array.from({ length: 2000 }, (_, i) => ({ id: i + 1, value: i * 3 }));
    for (let i = 0; i < rows.length; i += 500) await db.engine.execute(insert(Counter).values(rows.slice(i, i + 500))).rowsAffected();
  });

  afterEach(() => db.close());

  const ordered = select(Counter).orderBy("id");

  it("a statement on the engine while a stream reads is refused with a StreamOpenError naming the stream, and nothing is sent", async () => {
    const { engine } = db;
    let refused: unknown;
    let seen = 0;
    for await (const row of engine.stream(ordered, { batchSize: 50 })) {
      seen++;
      if (row.id === 10) {
        refused = await engine
          .execute(insert(Counter).values({ id: 9999, value: 1 }))
          .rowsAffected()
          .catch((e: unknown) => e);
        // A transaction would wait for the connection the stream holds: refused the same way.
        const tx = await engine.transaction(async () => 1).catch((e: unknown) => e);
        expect(StreamOpenError.isInstance(tx)).toBe(true);
      }
    }
    expect(seen).toBe(2000);
    expect(StreamOpenError.isInstance(refused)).toBe(true);
    expect((refused as StreamOpenError).streamSql).toBe(engine.compile(ordered).sql);
    expect((refused as Error).message).toContain('FROM "counters"');
    expect(await engine.execute(select(Counter).where({ id: 9999 })).all()).toEqual([]);
    // Once the stream ended the connection is free again.
    expect(await engine.execute(insert(Counter).values({ id: 9999, value: 1 })).rowsAffected()).toBe(1);
  });

  it("a stream whose rows fit in one batch still refuses statements until its loop ends, instead of a wait that never ends", async () => {
    const { engine } = db;
    const few = select(Counter).where({ id: { lte: 2 } });
    const refusals: unknown[] = [];
    for await (const row of engine.stream(few)) {
      // The driver has read every row already; the stream still holds the engine's one connection.
      refusals.push(
        await engine
          .execute(select(Counter).where({ id: row.id }))
          .all()
          .catch((e: unknown) => e),
      );
    }
    expect(refusals.map((e) => StreamOpenError.isInstance(e))).toEqual([true, true]);
    expect(await engine.execute(few).all()).toHaveLength(2);
  });

  it("inside a transaction, a statement on it while its stream reads is refused without failing the transaction", async () => {
    const { engine } = db;
    await engine.transaction(async (tx) => {
      for await (const row of tx.stream(ordered, { batchSize: 100 })) {
        if (row.id === 5) {
          const error = await tx
            .execute(insert(Counter).values({ id: 9998, value: 1 }))
            .rowsAffected()
            .catch((e: unknown) => e);
          expect(StreamOpenError.isInstance(error)).toBe(true);
          break;
        }
      }
      // After the break the connection is free: the transaction goes on and commits.
      await tx.execute(insert(Counter).values({ id: 9997, value: 1 })).rowsAffected();
    });
    expect(await engine.execute(select(Counter, ["id"]).where({ id: { in: [9997, 9998] } })).all()).toEqual([{ id: 9997 }]);
  });

  it("a stream left open when the transaction callback returns is closed before COMMIT; reading it later is refused", async () => {
    const { engine } = db;
    let kept: AsyncIterator<unknown> | undefined;
    await engine.transaction(async (tx) => {
      kept = tx.stream(ordered, { batchSize: 10 })[Symbol.asyncIterator]();
      expect((await kept.next()).value).toEqual({ id: 1, value: 0 });
    });
    const late = await kept?.next().catch((e: unknown) => e);
    expect(TransactionFinishedError.isInstance(late)).toBe(true);
    expect(await engine.execute(select(Counter).where({ id: 1 })).all()).toHaveLength(1);
  });

  it("an iterator dropped mid-read keeps the connection busy only until it is collected; then the engine goes on", async () => {
    const { engine } = db;
    // Held until the connection is seen busy: a collection before that check would free it early.
    const held: { read?: { first: unknown; iterator: AsyncIterator<unknown> } } = {
      read: await readOne(engine.stream(ordered, { batchSize: 10 })),
    };
    expect(held.read?.first).toEqual({ id: 1, value: 0 });
    const free = () => ran(engine.execute(select(Counter, ["id"]).where({ id: 2 })).all());
    expect(await free()).toBe(false);
    held.read = undefined;
    expect(await collectGarbageUntil(free)).toBe(true);
    expect(await engine.execute(insert(Counter).values({ id: 9996, value: 1 })).rowsAffected()).toBe(1);
  });

  it("an iterator dropped inside a transaction is reset once collected: the transaction goes on and commits", async () => {
    const { engine } = db;
    await engine.transaction(async (tx) => {
      await readOneAndDrop(tx.stream(ordered, { batchSize: 10 }));
      const write = () => ran(tx.execute(insert(Counter).values({ id: 9995, value: 1 })).rowsAffected());
      expect(await collectGarbageUntil(write)).toBe(true);
    });
    expect(await engine.execute(select(Counter, ["id"]).where({ id: 9995 })).all()).toEqual([{ id: 9995 }]);
  });

  it("an error mid-stream is a QueryError with the SQL and no bound value, after the rows before it; the engine goes on", async () => {
    const { engine } = db;
    const failing = sql.expr`SELECT id, CASE WHEN id = 1500 THEN json_extract(${SECRET}, '$') ELSE id END AS v FROM counters ORDER BY id`;
    let seen = 0;
    const error = await (async () => {
      for await (const _ of engine.stream(failing, { batchSize: 100 })) seen++;
    })().catch((e: unknown) => e);
    expect(QueryError.isInstance(error)).toBe(true);
    expect(seen).toBe(1400);
    expect((error as QueryError).sql).toContain("json_extract(?");
    expect((error as QueryError).params).toBe("[redacted]");
    expect(JSON.stringify(error) + String((error as Error).message) + String((error as Error).cause)).not.toContain(SECRET);
    expect(await engine.execute(select(Counter).where({ id: 1 })).all()).toHaveLength(1);
  });

  it("a slow consumer holds one batch: the stream reads the next only when the loop asks", async () => {
    const read: number[] = [];
    const watched = openDatabase(target, { onQuery: (e) => (e.sql.includes("ORDER BY") ? read.push(e.rowCount) : undefined) });
    try {
      await watched.engine.createAll([Counter]);
      const rows = Array.from({ length: 300 }, (_, i) => ({ id: i + 1, value: i }));
      await watched.engine.execute(insert(Counter).values(rows)).rowsAffected();
      let seen = 0;
      for await (const _ of watched.engine.stream(ordered, { batchSize: 40 })) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (++seen === 90) break;
      }
      // 90 rows consumed: three batches of 40 read, not the table.
      expect(read).toEqual([120]);
    } finally {
      await watched.close();
    }
  });
});
