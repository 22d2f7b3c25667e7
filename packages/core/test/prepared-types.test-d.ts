import { describe, expectTypeOf, test } from "vitest";
import type { Engine, Expression, InferModel, PlaceholderValues, PreparedStatement, QueryResult } from "../src/index.js";
import { insert, select } from "../src/index.js";
import { Outbound } from "./support/outbound.js";

declare const engine: Engine;

describe("engine.prepare", () => {
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
