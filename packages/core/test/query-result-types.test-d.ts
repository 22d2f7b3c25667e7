import { describe, expectTypeOf, test } from "vitest";
import type { Engine, ExecutedQuery, InferModel, QueryResult, TransactionHandle } from "../src/index.js";
import { deleteFrom, insert, select, sql, update } from "../src/index.js";
import { Outbound } from "./support/outbound.js";

declare const engine: Engine;
declare const tx: TransactionHandle;

type Row = InferModel<typeof Outbound>;

describe("await execute()", () => {
  test("awaiting a select resolves to its rows and row count, typed by the selection", async () => {
    const awaited = await engine.execute(select(Outbound, ["id", "attempts"]));
    expectTypeOf(awaited).toEqualTypeOf<ExecutedQuery<{ id: string; attempts: number }>>();
    expectTypeOf(awaited.rows).toEqualTypeOf<{ id: string; attempts: number }[]>();
    expectTypeOf(awaited.rowsAffected).toEqualTypeOf<number>();
  });

  test("a whole-model select, and the same inside a transaction", async () => {
    expectTypeOf((await engine.execute(select(Outbound))).rows).toEqualTypeOf<Row[]>();
    expectTypeOf((await tx.execute(select(Outbound, ["id"]))).rows).toEqualTypeOf<{ id: string }[]>();
  });

  test("writes without returning resolve to a result with no row type to read", async () => {
    const inserted = await engine.execute(insert(Outbound).values({ id: "a", consumer: "c", status: "queued", nextAttemptAt: new Date() }));
    expectTypeOf(inserted.rowsAffected).toEqualTypeOf<number>();
    expectTypeOf(await engine.execute(update(Outbound).set({ attempts: 1 }).where({ id: "a" }))).toExtend<ExecutedQuery<unknown>>();
    expectTypeOf(await engine.execute(deleteFrom(Outbound).where({ id: "a" }))).toExtend<ExecutedQuery<unknown>>();
  });

  test("a raw statement resolves to records", async () => {
    expectTypeOf((await engine.execute(sql.raw("SELECT 1"))).rows).toEqualTypeOf<Record<string, unknown>[]>();
  });

  test("QueryResult is a PromiseLike of ExecutedQuery; catch and finally keep the result type", () => {
    const result = engine.execute(select(Outbound, ["id"]));
    expectTypeOf(result).toExtend<PromiseLike<ExecutedQuery<{ id: string }>>>();
    expectTypeOf(result.catch(() => "fallback" as const)).toEqualTypeOf<Promise<ExecutedQuery<{ id: string }> | "fallback">>();
    expectTypeOf(result.finally(() => {})).toEqualTypeOf<Promise<ExecutedQuery<{ id: string }>>>();
    expectTypeOf(result.then((r) => r.rows.length)).toEqualTypeOf<Promise<number>>();
    expectTypeOf(result).toEqualTypeOf<QueryResult<{ id: string }>>();
  });

  test("the result object is read-only", async () => {
    const awaited = await engine.execute(select(Outbound, ["id"]));
    // @ts-expect-error rows is read-only
    awaited.rows = [];
    // @ts-expect-error rowsAffected is read-only
    awaited.rowsAffected = 1;
  });
});
