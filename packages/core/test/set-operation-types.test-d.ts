import { describe, expectTypeOf, test } from "vitest";
import type { Engine } from "../src/index.js";
import { select } from "../src/index.js";
import { ConformanceCustomer as Customer, ConformanceOrder as Order } from "../src/testing/index.js";

declare const engine: Engine;

describe("set operations", () => {
  test("a union of matching projections has their row; a key is nullable where either part's is", () => {
    const q = select(Order, "o")
      .columns({ id: "o.id", customer: "o.customerId" })
      .union(select(Customer, "c").columns({ id: "c.id", customer: "c.referredBy" }));
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{ id: number; customer: number | null }>();
    const strict = select(Order, ["id"]).unionAll(select(Customer, ["id"]));
    expectTypeOf(engine.execute(strict).all()).resolves.items.toEqualTypeOf<{ id: number }>();
  });

  test("every operator chains and orders by an output key", () => {
    const q = select(Order, ["id"])
      .intersect(select(Order, ["id"]))
      .except(select(Customer, ["id"]))
      .intersectAll(select(Order, ["id"]))
      .exceptAll(select(Order, ["id"]))
      .unionAll(select(Order, ["id"]))
      .orderBy("id", "desc")
      .limit(3)
      .offset(1);
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{ id: number }>();
    const ids = select(Order, ["id"]).union(select(Customer, ["id"]));
    // @ts-expect-error not an output of the set operation
    ids.orderBy("total");
  });

  test("parts whose columns differ in count, keys or types do not compile", () => {
    // @ts-expect-error a column more
    select(Order, ["id"]).union(select(Order, ["id", "total"]));
    // @ts-expect-error another key
    select(Order, ["id"]).union(select(Customer, "c").columns({ ident: "c.id" }));
    const totals = select(Order, "o").columns({ v: "o.total" });
    // @ts-expect-error a string where the first part has a number
    totals.union(select(Customer, "c").columns({ v: "c.name" }));
    const compound = select(Order, ["id"]).union(select(Order, ["id"]));
    // @ts-expect-error on a compound too
    compound.except(select(Order, ["total"]));
  });

  test("a set operation has no lock methods", () => {
    const compound = select(Order, ["id"]).union(select(Order, ["id"]));
    // @ts-expect-error no forUpdate on a set operation
    compound.forUpdate();
  });
});
