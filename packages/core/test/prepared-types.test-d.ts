import { describe, expectTypeOf, test } from "vitest";
import type { Engine, Expression, InferModel, PlaceholderValues, PreparedStatement, QueryResult, RowStream } from "../src/index.js";
import { deleteFrom, insert, op, select } from "../src/index.js";
import { Outbound } from "./support/outbound.js";

declare const engine: Engine;

describe("engine.prepare", () => {
  test('a list placeholder ("uuid[]") is an array of the kind\'s values, for op.in', () => {
    const byIds = engine.prepare({ ids: "uuid[]" }, (p) => {
      expectTypeOf(p.ids).toEqualTypeOf<Expression<readonly string[]>>();
      return select(Outbound).where({ id: op.in(p.ids) });
    });
    byIds.execute({ ids: ["a", "b"] });
    // @ts-expect-error a single value for a list placeholder
    byIds.execute({ ids: "a" });
    // @ts-expect-error numbers for a uuid list
    byIds.execute({ ids: [1] });
  });

  test("the values object is typed from the declared placeholders, the rows from the statement", () => {
    const byId = engine.prepare({ id: "uuid" }, (p) => {
      expectTypeOf(p.id).toEqualTypeOf<Expression<string>>();
      return select(Outbound).where({ id: p.id });
    });
    expectTypeOf(byId).toEqualTypeOf<PreparedStatement<{ id: "uuid" }, InferModel<typeof Outbound>>>();
    expectTypeOf(byId.execute({ id: "x" })).toEqualTypeOf<QueryResult<InferModel<typeof Outbound>>>();
    // @ts-expect-error a number for a uuid placeholder
    byId.execute({ id: 1 });
    // @ts-expect-error the placeholder is missing
    byId.execute({});
    // @ts-expect-error null for a placeholder not declared nullable
    byId.execute({ id: null });
  });

  test('"kind | null" takes null; each kind takes its JavaScript type', () => {
    type V = PlaceholderValues<{ key: "text | null"; at: "datetime"; n: "integer"; big: "bigint"; ok: "boolean" }>;
    expectTypeOf<V>().toEqualTypeOf<{
      readonly key: string | null;
      readonly at: Date;
      readonly n: number;
      readonly big: bigint | number;
      readonly ok: boolean;
    }>();
    const add = engine.prepare({ id: "uuid", key: "text | null" }, (p) =>
      insert(Outbound).values({ id: p.id, consumer: "c", idempotencyKey: p.key, status: "queued", nextAttemptAt: new Date() }),
    );
    add.execute({ id: "x", key: null });
    // @ts-expect-error an unknown kind
    engine.prepare({ id: "int" }, (p) => select(Outbound).where({ id: p.id }));
  });
});

describe("prepared stream()", () => {
  test("streams the rows execute() returns, typed alike; values, options and on are checked as execute()'s", async () => {
    const due = engine.prepare({ consumer: "text", min: "integer" }, (p) =>
      select(Outbound, ["id", "attempts"])
        .where({ consumer: p.consumer, attempts: { gte: p.min } })
        .orderBy("id"),
    );
    expectTypeOf(due.stream({ consumer: "c", min: 1 })).toEqualTypeOf<RowStream<{ id: string; attempts: number }>>();
    for await (const row of due.stream({ consumer: "c", min: 1 }, { batchSize: 100 })) {
      expectTypeOf(row).toEqualTypeOf<Awaited<ReturnType<ReturnType<typeof due.execute>["all"]>>[number]>();
    }
    await engine.transaction(async (tx) => {
      for await (const batch of due.stream({ consumer: "c", min: 1 }, {}, tx).batches()) {
        expectTypeOf(batch).toEqualTypeOf<{ id: string; attempts: number }[]>();
      }
    });
    // @ts-expect-error a number for a text placeholder
    due.stream({ consumer: 1, min: 1 });
    // @ts-expect-error a placeholder is missing
    due.stream({ consumer: "c" });
    // @ts-expect-error batchSize is a number
    due.stream({ consumer: "c", min: 1 }, { batchSize: "10" });
    // @ts-expect-error `on` is an executor, not an options object
    due.stream({ consumer: "c", min: 1 }, {}, { batchSize: 10 });
  });

  test("a statement that returns no rows has no stream()", () => {
    const remove = engine.prepare({ id: "uuid" }, (p) => deleteFrom(Outbound).where({ id: p.id }));
    expectTypeOf(remove.execute({ id: "x" })).toEqualTypeOf<QueryResult<never>>();
    // @ts-expect-error no rows to stream: run it with execute()
    remove.stream({ id: "x" });
  });
});
