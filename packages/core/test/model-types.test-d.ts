import { describe, expectTypeOf, test } from "vitest";
import type { Expression, InferInsert, InferModel, JsonValue, ModelClass, RowOf } from "../src/index.js";
import { column, index, Model, sql, uniqueIndex } from "../src/index.js";
import { Outbound } from "./support/outbound.js";

type Status = "queued" | "sending" | "sent" | "failed";

describe("the guide's model", () => {
  test("is a model class as written (static naming without override)", () => {
    expectTypeOf(Outbound).toExtend<ModelClass>();
    expectTypeOf(Outbound.naming).toEqualTypeOf<string>();
    expectTypeOf(Outbound.tablename).toEqualTypeOf<string>();
  });

  test("InferModel is the full row", () => {
    expectTypeOf<InferModel<typeof Outbound>>().toEqualTypeOf<{
      id: string;
      consumer: string;
      idempotencyKey: string | null;
      status: Status;
      attempts: number;
      nextAttemptAt: Date;
      updatedAt: Date | null;
    }>();
    expectTypeOf<RowOf<Outbound>>().toEqualTypeOf<InferModel<typeof Outbound>>();
  });

  test("InferInsert: NOT NULL without default required; default and nullable optional", () => {
    expectTypeOf<InferInsert<typeof Outbound>>().toEqualTypeOf<{
      id: string | Expression<any>;
      consumer: string | Expression<any>;
      status: Status | Expression<any>;
      nextAttemptAt: Date | Expression<any>;
      idempotencyKey?: string | null | Expression<any>;
      attempts?: number | Expression<any>;
      updatedAt?: Date | null | Expression<any>;
    }>();
    const minimal: InferInsert<typeof Outbound> = { id: "x", consumer: "c", status: "queued", nextAttemptAt: new Date() };
    expectTypeOf(minimal).toExtend<InferInsert<typeof Outbound>>();
    // @ts-expect-error consumer is NOT NULL without a default
    const missing: InferInsert<typeof Outbound> = { id: "x", status: "queued", nextAttemptAt: new Date() };
    expectTypeOf(missing).not.toBeAny();
  });
});

describe("column builders", () => {
  class Every extends Model {
    static tablename = "every";

    id = column.uuid().primaryKey().defaultRandom();
    serial = column.bigint().notNull();
    label = column.varchar(40).notNull().default("none");
    price = column.numeric(10, 2);
    ratio = column.real().notNull();
    flag = column.boolean().notNull().default(false);
    day = column.date();
    payload = column.json<{ a: number }>();
    anyJson = column.json();
    blob = column.bytes();
    createdAt = column.datetime().notNull().default(sql.now());
    renamed = column.text().notNull().name("other_name");
    notAColumn = 42;
  }

  test("value types per kind", () => {
    expectTypeOf<InferModel<typeof Every>>().toEqualTypeOf<{
      id: string;
      serial: bigint;
      label: string;
      price: string | null;
      ratio: number;
      flag: boolean;
      day: string | null;
      payload: { a: number } | null;
      anyJson: JsonValue | null;
      blob: Uint8Array | null;
      createdAt: Date;
      renamed: string;
    }>();
  });

  test("defaultRandom / default make NOT NULL columns optional on insert", () => {
    type Insert = InferInsert<typeof Every>;
    type RequiredKeys = { [K in keyof Insert]-?: {} extends Pick<Insert, K> ? never : K }[keyof Insert];
    expectTypeOf<RequiredKeys>().toEqualTypeOf<"serial" | "ratio" | "renamed">();
  });

  test("a default must have the column's type", () => {
    column.integer().default(1);
    column.datetime().default(sql.now());
    // @ts-expect-error a string default on an integer column
    column.integer().default("1");
    // @ts-expect-error defaultRandom is for uuid/string columns only
    column.integer().defaultRandom();
    // @ts-expect-error enum default outside the list
    column.enum("a", "b").default("c");
    expectTypeOf(column.enum("a", "b").default("a")).toHaveProperty("__hasDefault").toEqualTypeOf<true>();
  });

  test("index declarations are checked against the model", () => {
    uniqueIndex<Outbound>("ok", ["consumer", "idempotencyKey"]).where({ idempotencyKey: { isNull: false } });
    // @ts-expect-error unknown field in an index
    index<Outbound>("bad", ["consumer", "nope"]);
    // @ts-expect-error unknown field in a partial index predicate
    uniqueIndex<Outbound>("bad", ["consumer"]).where({ nope: { isNull: false } });
    // @ts-expect-error wrong value type in a partial index predicate
    uniqueIndex<Outbound>("bad", ["consumer"]).where({ attempts: "1" });
    expectTypeOf(uniqueIndex<Outbound>("ok", ["consumer"])).not.toBeAny();
  });
});
