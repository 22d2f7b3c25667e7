import { describe, expectTypeOf, test } from "vitest";
import type { Engine, JsonValue } from "../src/index.js";
import { count, exists, notExists, ref, scalar, select, sql } from "../src/index.js";
import { ConformanceCustomer as Customer, ConformanceOrder as Order } from "../src/testing/index.js";

declare const engine: Engine;
type OrderRow = {
  id: number;
  customerId: number | null;
  status: "open" | "paid" | "shipped";
  total: number;
  amount: string;
  createdAt: Date;
  shippedAt: Date | null;
};
type CustomerRow = { id: number; name: string; referredBy: number | null; createdAt: Date };

describe("joins", () => {
  test("an inner join returns one object per source, keyed by alias", () => {
    const q = select(Order, "o").innerJoin(Customer, "c", "c.id", "o.customerId");
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{ o: OrderRow; c: CustomerRow }>();
  });

  test("a left-joined source is nullable, and cannot be used as non-null", () => {
    const q = select(Order, "o").leftJoin(Customer, "c", "c.id", "o.customerId");
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{ o: OrderRow; c: CustomerRow | null }>();
    async function use() {
      const row = await engine.execute(q).one();
      // @ts-expect-error c may be null
      row.c.name;
      expectTypeOf(row.c?.name).toEqualTypeOf<string | undefined>();
    }
    void use;
  });

  test("right and full joins make the earlier sources nullable", () => {
    const right = select(Order, "o").rightJoin(Customer, "c", "c.id", "o.customerId");
    expectTypeOf(engine.execute(right).all()).resolves.items.toEqualTypeOf<{ o: OrderRow | null; c: CustomerRow }>();
    const full = select(Order, "o").fullJoin(Customer, "c", "c.id", "o.customerId");
    expectTypeOf(engine.execute(full).all()).resolves.items.toEqualTypeOf<{ o: OrderRow | null; c: CustomerRow | null }>();
  });

  test("references are checked: an unknown alias or field, a source not in the query", () => {
    const q = select(Order, "o").innerJoin(Customer, "c", "c.id", "o.customerId");
    q.where({ "c.name": "Ada", "o.status": "paid", total: { gt: 5 } });
    // @ts-expect-error no source named x
    q.where({ "x.name": "Ada" });
    // @ts-expect-error Customer has no field nope
    q.orderBy("c.nope");
    // @ts-expect-error a value of the wrong type for the column
    q.where({ "c.name": 5 });
    // @ts-expect-error "c" is not in a query that did not join it
    select(Order, "o").where({ "c.name": "Ada" });
    // @ts-expect-error the join condition names a source the query does not have
    select(Order, "o").innerJoin(Customer, "c", "c.id", "z.customerId");
  });
});

describe("projections and aggregates", () => {
  test("a flat projection: references keep their type, a left-joined one becomes nullable", () => {
    const q = select(Order, "o").leftJoin(Customer, "c", "c.id", "o.customerId").columns({ order: "o.id", customer: "c.name" });
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{ order: number; customer: string | null }>();
  });

  test("aggregate types: count number, sum of integers number | null, of numeric string | null, min/max the column's", () => {
    const q = select(Order).columns((q) => ({
      n: q.count(),
      distinct: q.countDistinct("customerId"),
      cents: q.sum("total"),
      amount: q.sum("amount"),
      avg: q.avg("total"),
      avgAmount: q.avg("amount"),
      first: q.min("createdAt"),
      top: q.max("total"),
      all: count(),
    }));
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{
      n: number;
      distinct: number;
      cents: number | null;
      amount: string | null;
      avg: number | null;
      avgAmount: string | null;
      first: Date | null;
      top: number | null;
      all: number;
    }>();
    // @ts-expect-error sum takes number-valued fields only
    select(Order).columns((q) => ({ s: q.sum("createdAt") }));
  });

  test("having is typed by the projection: an aggregate compared with the wrong type does not compile", () => {
    const q = select(Order).columns({ status: "status", n: count() }).groupBy("status");
    q.having({ n: { gte: 2 } });
    // @ts-expect-error n is a number
    q.having({ n: { gte: "2" } });
    // @ts-expect-error not a key of the projection
    q.having({ total: { gt: 1 } });
    q.orderBy("n", "desc", { nulls: "last" });
    // @ts-expect-error neither a reference nor a key of the projection
    q.orderBy("nope");
  });
});

describe("subqueries", () => {
  test("exists / notExists are conditions; scalar is a typed value; a one-key select is an in operand", () => {
    const ordersOf = select(Order, "o").where({ "o.customerId": ref(Customer, "c", "id") });
    select(Customer, "c").where(exists(ordersOf));
    select(Customer, "c").where(notExists(ordersOf));
    const n = scalar(select(Order).columns({ n: count() }));
    const q = select(Customer).columns({ name: "name", orders: n });
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{ name: string; orders: number | null }>();
    select(Customer).where({ id: { in: select(Order).columns({ c: "customerId" }) } });
    // @ts-expect-error a subquery of strings for a number column
    select(Customer).where({ id: { in: select(Order).columns({ s: "status" }) } });
    expectTypeOf(ref(Customer, "c", "name")).toEqualTypeOf<import("../src/index.js").Expression<string, "text">>();
  });
});

describe("typed raw SQL", () => {
  test("the declared kinds make the row type; scalars() reads the first column", () => {
    const q = sql.typed(sql.expr`SELECT 1 AS "n"`, { n: "integer", at: "datetime?", doc: "json", big: "bigint" });
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{ n: number; at: Date | null; doc: JsonValue; big: bigint }>();
    expectTypeOf(engine.execute(select(Order).columns({ id: "id" })).scalars()).toEqualTypeOf<Promise<number[]>>();
    // @ts-expect-error not a column kind
    sql.typed(sql.expr`SELECT 1`, { n: "int" });
  });
});
