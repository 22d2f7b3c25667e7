import { describe, expect, it } from "vitest";
import { deleteFrom } from "../builder/delete-builder.js";
import { insert } from "../builder/insert-builder.js";
import { select } from "../builder/select.js";
import type { Engine, EngineOptions } from "../engine/engine.js";
import type { QueryEvent } from "../engine/query-event.js";
import { UnsupportedFeatureError, ValidationError } from "../errors.js";
import { sql } from "../expression/sql.js";
import { abandonedStreamTests } from "./conformance-abandoned-streams.js";
import { fullValues } from "./conformance-behaviour.js";
import { ConformanceValue } from "./conformance-models.js";

const ROWS = 1234;

/** Rows of every column kind, some null, enough for several batches of every size tried below. */
function valueRows() {
  return Array.from({ length: ROWS }, (_, i) => {
    if (i % 7 === 3) return { id: i + 1 } as typeof fullValues;
    return {
      ...fullValues,
      id: i + 1,
      textValue: `row ${i} ${fullValues.textValue}`,
      integerValue: i - 600,
      bigintValue: 2n ** 60n + BigInt(i),
      booleanValue: i % 2 === 0,
      jsonValue: { i, list: [i, "x"] },
      enumValue: i % 3 === 0 ? ("red" as const) : ("green" as const),
      flag: i % 5 === 0,
    };
  });
}

async function collect<R>(rows: AsyncIterable<R>): Promise<R[]> {
  const out: R[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

/**
 * What engine.stream() owes on every dialect with a streaming driver: the same rows, in the same
 * order and decoded the same way as `.all()`, for any batch size; an early exit that frees the
 * connection; a stream on a transaction that sees the transaction's writes.
 */
export function streamTests(engineOf: () => Engine, makeEngine: (options: EngineOptions) => Engine, streams = true): void {
  if (!streams) {
    it("stream() is refused with UnsupportedFeatureError: this dialect's driver has no stream()", async () => {
      const error = await collect(engineOf().stream(select(ConformanceValue))).catch((e: unknown) => e);
      expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
      expect((error as UnsupportedFeatureError).feature).toContain("streaming");
      // The connection it took went back: the engine goes on.
      expect(
        await engineOf()
          .execute(select(ConformanceValue).where({ id: -1 }))
          .all(),
      ).toEqual([]);
    });
    return;
  }
  describe("streams", () => {
    const seed = async (engine: Engine) => {
      await engine.execute(deleteFrom(ConformanceValue).allRows()).rowsAffected();
      const rows = valueRows();
      for (let i = 0; i < rows.length; i += 200)
        await engine.execute(insert(ConformanceValue).values(rows.slice(i, i + 200))).rowsAffected();
    };

    it("stream() yields the rows .all() returns, in order and decoded alike, for any batch size", async () => {
      const engine = engineOf();
      await seed(engine);
      const query = select(ConformanceValue).orderBy("id");
      const all = await engine.execute(query).all();
      expect(all).toHaveLength(ROWS);
      for (const batchSize of [7, 100, 1234, 5000]) expect(await collect(engine.stream(query, { batchSize }))).toEqual(all);
      const union = select(ConformanceValue, ["id", "textValue"])
        .where({ id: { lte: 10 } })
        .unionAll(select(ConformanceValue, ["id", "textValue"]).where({ id: { gt: 1200 } }))
        .orderBy("id");
      expect(await collect(engine.stream(union, { batchSize: 9 }))).toEqual(await engine.execute(union).all());
      const raw = sql.raw(`SELECT 1 AS one, 'two' AS two`);
      expect(await collect(engine.stream(raw))).toEqual(await engine.execute(raw).all());
      const empty = select(ConformanceValue).where({ id: -1 });
      expect(await collect(engine.stream(empty))).toEqual([]);
    });

    it("batches() yields the same rows a batch at a time, none larger than batchSize", async () => {
      const engine = engineOf();
      await seed(engine);
      const query = select(ConformanceValue, ["id", "jsonValue"]).orderBy("id");
      const sizes: number[] = [];
      const rows: unknown[] = [];
      for await (const batch of engine.stream(query, { batchSize: 500 }).batches()) {
        sizes.push(batch.length);
        rows.push(...batch);
      }
      expect(Math.max(...sizes)).toBeLessThanOrEqual(500);
      expect(rows).toEqual(await engine.execute(query).all());
    });

    it("a break ends the statement and frees its connection; the engine goes on", async () => {
      const events: QueryEvent[] = [];
      const engine = makeEngine({ onQuery: (event) => events.push(event) });
      try {
        const query = select(ConformanceValue, ["id"]).orderBy("id");
        for (let round = 0; round < 12; round++) {
          let seen = 0;
          for await (const row of engine.stream(query, { batchSize: 10 })) {
            expect(row.id).toBe(seen + 1);
            if (++seen === 25) break;
          }
          expect(seen).toBe(25);
        }
        // Twelve early exits, more than the pool holds: each released its connection.
        expect(await engine.execute(select(ConformanceValue).where({ id: 1 })).all()).toHaveLength(1);
        const streamed = events.filter((e) => e.sql.includes("tempest_conformance_values") && e.rowCount === 30);
        expect(streamed.length).toBe(12);
      } finally {
        await engine.close();
      }
    });

    it("a stream on a transaction reads the transaction's own writes, and the transaction commits after it", async () => {
      const engine = engineOf();
      await seed(engine);
      const count = await engine.transaction(async (tx) => {
        await tx.execute(insert(ConformanceValue).values({ id: ROWS + 1, textValue: "in tx" })).rowsAffected();
        let n = 0;
        let last: unknown;
        for await (const row of tx.stream(select(ConformanceValue, ["id", "textValue"]).orderBy("id"), { batchSize: 300 })) {
          n++;
          last = row;
        }
        expect(last).toEqual({ id: ROWS + 1, textValue: "in tx" });
        return n;
      });
      expect(count).toBe(ROWS + 1);
      expect(await engine.execute(select(ConformanceValue).where({ id: ROWS + 1 })).all()).toHaveLength(1);
    });

    it("stream() refuses what is not a select, a bad batch size and a second read, before anything runs", async () => {
      const engine = engineOf();
      expect(() => engine.stream(deleteFrom(ConformanceValue).allRows() as never)).toThrow(ValidationError);
      expect(() => engine.stream(select(ConformanceValue), { batchSize: 0 })).toThrow(ValidationError);
      const stream = engine.stream(select(ConformanceValue).where({ id: 1 }));
      await collect(stream);
      expect(() => stream[Symbol.asyncIterator]()).toThrow(ValidationError);
    });

    it("a prepared select streams the rows its execute() returns, on the engine and in a transaction; values are checked at the call", async () => {
      const engine = engineOf();
      await seed(engine);
      const between = engine.prepare({ low: "integer", high: "integer" }, (p) =>
        select(ConformanceValue)
          .where({ id: { gte: p.low, lte: p.high } })
          .orderBy("id"),
      );
      const some = { low: 100, high: 1100 };
      expect(await collect(between.stream(some, { batchSize: 64 }))).toEqual(await between.execute(some).all());
      const batches = await engine.transaction(async (tx) => {
        await tx.execute(insert(ConformanceValue).values({ id: ROWS + 1 })).rowsAffected();
        return collect(between.stream({ low: ROWS - 1, high: ROWS + 1 }, { batchSize: 2 }, tx).batches());
      });
      expect(batches.map((batch) => batch.map((row) => row.id))).toEqual([[ROWS - 1, ROWS], [ROWS + 1]]);
      expect(() => between.stream({ low: "1" as never, high: 2 })).toThrow(ValidationError);
      expect(() => between.stream({ low: 1 } as never)).toThrow(ValidationError);
      expect(() => between.stream({ low: 1 } as never)).toThrow('stream: no value for placeholder "high"');
      expect(() => between.stream(some, { batchSize: 0 })).toThrow(ValidationError);
      const write = engine.prepare({ id: "integer" }, (p) => deleteFrom(ConformanceValue).where({ id: p.id }));
      expect(() => (write as unknown as typeof between).stream(some)).toThrow(ValidationError);
      // A statement prepared on an engine not yet ready (its compiler is replaced then) streams too.
      const fresh = makeEngine({});
      try {
        const one = fresh.prepare({ id: "integer" }, (p) => select(ConformanceValue, ["id"]).where({ id: p.id }));
        expect(() => one.stream({ id: 1 }, {}, engine)).toThrow(ValidationError);
        expect(await collect(one.stream({ id: 7 }))).toEqual([{ id: 7 }]);
      } finally {
        await fresh.close();
      }
    });

    abandonedStreamTests(engineOf, makeEngine, seed, ROWS);
  });
}
