import { expect, it } from "vitest";
import { insert } from "../builder/insert-builder.js";
import { select } from "../builder/select.js";
import type { Engine, EngineOptions } from "../engine/engine.js";
import type { QueryEvent } from "../engine/query-event.js";
import { StreamEndedTransactionError } from "../errors.js";
import { collectGarbageUntil } from "./collect-garbage.js";
import { ConformanceValue } from "./conformance-models.js";

/**
 * Reads one row (or one batch), then lets the iterator go without break, return() or throw: once
 * this returns nothing refers to it any more.
 */
async function readOneAndDrop(rows: AsyncIterable<unknown>): Promise<void> {
  const iterator = rows[Symbol.asyncIterator]();
  expect((await iterator.next()).done).toBe(false);
}

/**
 * What every streaming dialect owes for an iterator dropped mid-read: the collector taking it ends
 * the statement and gives its connection back; never while a loop still reads it. `seed` fills
 * ConformanceValue with more rows than the batches below.
 */
export function abandonedStreamTests(
  engineOf: () => Engine,
  makeEngine: (options: EngineOptions) => Engine,
  seed: (engine: Engine) => Promise<void>,
  rowCount: number,
): void {
  it("an iterator dropped mid-read is closed once collected: its connection comes back and the engine goes on", async () => {
    await seed(engineOf());
    const events: QueryEvent[] = [];
    // One connection: a stream that kept it would leave nothing for the statements below.
    const engine = makeEngine({ poolSize: 1, onQuery: (event) => events.push(event) });
    try {
      const query = select(ConformanceValue, ["id"]).orderBy("id");
      const text = engine.compile(query).sql;
      const ended = () => events.filter((e) => e.sql === text);
      for (let round = 1; round <= 4; round++) {
        const stream = engine.stream(query, { batchSize: 10 });
        await readOneAndDrop(round % 2 === 0 ? stream.batches() : stream);
        expect(await collectGarbageUntil(() => ended().length === round)).toBe(true);
        expect(ended()[round - 1]?.rowCount).toBe(10);
        expect(await engine.execute(select(ConformanceValue, ["id"]).where({ id: round })).all()).toEqual([{ id: round }]);
      }
    } finally {
      await engine.close();
    }
  });

  it("an iterator a loop is reading is never closed under it, however often the collector runs", async () => {
    const engine = engineOf();
    await seed(engine);
    let n = 0;
    for await (const row of engine.stream(select(ConformanceValue, ["id"]).orderBy("id"), { batchSize: 100 })) {
      expect(row.id).toBe(++n);
      if (n % 100 === 50) await collectGarbageUntil(() => false, 1);
    }
    expect(n).toBe(rowCount);
  });

  it("an iterator dropped inside a transaction is closed once collected; the transaction commits whole or rejects, never half", async () => {
    const engine = engineOf();
    await seed(engine);
    const events: QueryEvent[] = [];
    const watched = makeEngine({ onQuery: (event) => events.push(event) });
    const query = select(ConformanceValue, ["id"]).orderBy("id");
    const text = watched.compile(query).sql;
    const [first, second] = [rowCount + 1, rowCount + 2];
    let after: unknown;
    try {
      const outcome = await watched
        .transaction(async (tx) => {
          await tx.execute(insert(ConformanceValue).values({ id: first })).rowsAffected();
          await readOneAndDrop(tx.stream(query, { batchSize: 10 }));
          expect(await collectGarbageUntil(() => events.some((e) => e.sql === text))).toBe(true);
          after = await tx
            .execute(insert(ConformanceValue).values({ id: second }))
            .rowsAffected()
            .catch((e: unknown) => e);
          return "committed";
        })
        .catch((e: unknown) => e);
      const kept = await engine.execute(select(ConformanceValue, ["id"]).where({ id: { gt: rowCount } })).all();
      if (outcome === "committed") {
        // The stream stopped without ending the transaction (a cursor closed, a statement reset).
        expect(after).toBe(1);
        expect(kept.map((r) => r.id).sort()).toEqual([first, second]);
      } else {
        // The driver closed the connection to stop it (mysql2): the transaction is gone, and says so.
        expect(StreamEndedTransactionError.isInstance(outcome)).toBe(true);
        expect(StreamEndedTransactionError.isInstance(after)).toBe(true);
        expect(kept).toEqual([]);
      }
    } finally {
      await watched.close();
    }
  });
}
