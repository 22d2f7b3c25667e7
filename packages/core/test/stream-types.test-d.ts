import { describe, expectTypeOf, test } from "vitest";
import type { Engine, InferModel, RowStream, TransactionHandle } from "../src/index.js";
import { select, sql } from "../src/index.js";
import { ConformanceCustomer as Customer, ConformanceOrder as Order } from "../src/testing/index.js";
import { Outbound } from "./support/outbound.js";

declare const engine: Engine;
declare const tx: TransactionHandle;

type Row = InferModel<typeof Outbound>;

describe("stream()", () => {
  test("a stream's rows are typed exactly as .all()'s rows, on the engine and on a transaction", async () => {
    const query = select(Outbound, ["id", "attempts"]);
    type AllRow = Awaited<ReturnType<ReturnType<typeof engine.execute<{ id: string; attempts: number }>>["all"]>>[number];
    expectTypeOf(engine.stream(query)).toEqualTypeOf<RowStream<{ id: string; attempts: number }>>();
    for await (const row of engine.stream(query, { batchSize: 100 })) expectTypeOf(row).toEqualTypeOf<AllRow>();
    for await (const row of tx.stream(select(Outbound))) expectTypeOf(row).toEqualTypeOf<Row>();
    const all = await engine.execute(select(Outbound)).all();
    for await (const row of engine.stream(select(Outbound))) expectTypeOf(row).toEqualTypeOf<(typeof all)[number]>();
  });

  test("a joined select streams the nested, nullable rows .all() returns", async () => {
    const joined = select(Order, "o").leftJoin(Customer, "c", "c.id", "o.customerId");
    const all = await engine.execute(joined).all();
    for await (const row of engine.stream(joined)) expectTypeOf(row).toEqualTypeOf<(typeof all)[number]>();
  });

  test("batches() yields arrays of the same rows; raw SQL streams untyped records", async () => {
    for await (const batch of engine.stream(select(Outbound, ["id"])).batches()) expectTypeOf(batch).toEqualTypeOf<{ id: string }[]>();
    for await (const row of engine.stream(sql.raw("SELECT 1 AS one"))) expectTypeOf(row).toEqualTypeOf<Record<string, unknown>>();
  });

  test("batchSize is a number; unknown options are refused", () => {
    // @ts-expect-error batchSize is a number
    engine.stream(select(Outbound), { batchSize: "10" });
    // @ts-expect-error no such option
    engine.stream(select(Outbound), { highWaterMark: 10 });
  });
});
