import { describe, expectTypeOf, test } from "vitest";
import type { Engine, Expression } from "../src/index.js";
import { cte, cteRecursive, deleteFrom, ref, select } from "../src/index.js";
import { ConformanceCustomer as Customer, ConformanceOrder as Order } from "../src/testing/index.js";

declare const engine: Engine;

const totals = cte(
  "totals",
  select(Order, "o")
    .columns((q) => ({ customerId: "o.customerId", orders: q.count(), spent: q.sum("o.total") }))
    .groupBy("o.customerId"),
);

describe("CTEs read like models", () => {
  test("select(cte) rows are the projection's row", () => {
    expectTypeOf(engine.execute(select(totals)).all()).resolves.items.toEqualTypeOf<{
      customerId: number | null;
      orders: number;
      spent: number | null;
    }>();
  });

  test("a CTE joins under an alias, and its fields are references there", () => {
    const q = select(Customer, "c")
      .innerJoin(totals, "t", "t.customerId", "c.id")
      .columns({ name: "c.name", orders: "t.orders" })
      .where({ "t.orders": { gte: 2 } })
      .orderBy("t.spent", "desc");
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{ name: string; orders: number }>();
    // @ts-expect-error the CTE has no such column
    select(Customer, "c").innerJoin(totals, "t", "t.total", "c.id");
    // @ts-expect-error orders is a number
    select(totals).where({ orders: "many" });
  });

  test("ref(cte, alias, field) is typed like a model's ref", () => {
    expectTypeOf(ref(totals, "t", "orders")).toEqualTypeOf<Expression<number>>();
    expectTypeOf(ref(totals, "t", "customerId")).toEqualTypeOf<Expression<number | null>>();
    // @ts-expect-error no such column
    ref(totals, "t", "nope");
  });

  test("a recursive CTE: the step reads the CTE itself with the anchor's columns", () => {
    const chain = cteRecursive("chain", select(Customer).columns({ id: "id", name: "name" }).where({ id: 1 }), (self) =>
      select(Customer, "c").innerJoin(self, "s", "s.id", "c.referredBy").columns({ id: "c.id", name: "c.name" }),
    );
    expectTypeOf(engine.execute(select(chain)).all()).resolves.items.toEqualTypeOf<{ id: number; name: string }>();
    const anchor = select(Customer).columns({ id: "id" });
    // @ts-expect-error the step must produce the anchor's columns
    cteRecursive("bad", anchor, (s) => select(Customer, "c").innerJoin(s, "s", "s.id", "c.referredBy").columns({ name: "c.name" }));
  });

  test("a data-modifying CTE has its returning row", () => {
    const gone = cte("gone", deleteFrom(Order).where({ status: "open" }).returning(["id", "total"]));
    expectTypeOf(engine.execute(select(gone)).all()).resolves.items.toEqualTypeOf<{ id: number; total: number }>();
  });
});
