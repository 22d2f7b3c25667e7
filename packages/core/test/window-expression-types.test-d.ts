import { describe, expectTypeOf, test } from "vitest";
import type { Engine } from "../src/index.js";
import { select } from "../src/index.js";
import { ConformanceCustomer as Customer, ConformanceOrder as Order } from "../src/testing/index.js";

declare const engine: Engine;

describe("typed expressions as window arguments and keys", () => {
  test("aggregates over expressions, lag / lead of expressions, expression keys: exact result types", () => {
    const q = select(Order, "o")
      .leftJoin(Customer, "c", "c.id", "o.customerId")
      .columns((q) => {
        const perDay = { partitionBy: [q.dateTrunc("day", "o.createdAt")], orderBy: [[q.mul("o.total", 2), "desc"], "o.id"] } as const;
        return {
          running: q.sum(q.mul("o.total", 3)).over({ orderBy: ["o.id"], frame: { rows: ["unboundedPreceding", "currentRow"] } }),
          exact: q.sum(q.add("o.amount", 1)).over({}),
          mean: q.avg(q.sub("o.total", 1)).over({ partitionBy: [q.extract("hour", "o.createdAt")] }),
          paid: q.countIf({ "o.status": "paid" }).over({ partitionBy: ["o.customerId"] }),
          big: q.count(q.case({ "o.total": { gt: 1000 } }, 1), {}).over({}),
          filtered: q.sum(q.mul("o.total", 2), { filter: { "o.status": "paid" } }).over({}),
          latest: q.max(q.dateTrunc("hour", "o.createdAt")).over({}),
          n: q.rowNumber().over(perDay),
          previous: q.lag(q.lower("c.name")).over(perDay),
          previousOrNone: q.lag(q.upper("o.status"), { default: "NONE" }).over(perDay),
          next: q.lead(q.add("o.total", 1), { offset: 2, default: 0 }).over(perDay),
          nextDay: q.lead(q.dateTrunc("day", "o.shippedAt")).over(perDay),
        };
      });
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{
      running: number | null;
      exact: string | null;
      mean: number | null;
      paid: number;
      big: number;
      filtered: number | null;
      latest: Date | null;
      n: number;
      previous: string | null;
      previousOrNone: string;
      next: number;
      nextDay: Date | null;
    }>();
  });

  test("a wrong kind, a window in a window, distinct over a window: compile errors", () => {
    // @ts-expect-error sum takes numbers, not a text expression
    select(Order).columns((q) => ({ s: q.sum(q.lower("status")).over({}) }));
    // @ts-expect-error a default of another kind than the expression's
    select(Order).columns((q) => ({ s: q.lag(q.add("total", 1), { default: "0" }).over({ orderBy: ["id"] }) }));
    // @ts-expect-error a default of another kind than the expression's (a text for a datetime)
    select(Order).columns((q) => ({ s: q.lead(q.dateTrunc("day", "createdAt"), { default: "today" }).over({ orderBy: ["id"] }) }));
    // @ts-expect-error a window is no key of another window
    select(Order).columns((q) => ({ s: q.rank().over({ orderBy: [q.rowNumber().over({ orderBy: ["id"] })] }) }));
    // @ts-expect-error a window function is no argument of lag
    select(Order).columns((q) => ({ s: q.lag(q.sum("total").over({})).over({ orderBy: ["id"] }) }));
    // @ts-expect-error no database computes a DISTINCT aggregate over a window
    select(Order).columns((q) => ({ s: q.sum(q.mul("total", 2), { distinct: true }).over({}) }));
    // @ts-expect-error an expression over a field the sources do not have
    select(Order).columns((q) => ({ s: q.sum(q.mul("nope", 2)).over({}) }));
    // @ts-expect-error a bare string is a field, never a value: "1; drop table" is no field
    select(Order).columns((q) => ({ s: q.rank().over({ orderBy: [q.lower("1; drop table")] }) }));
  });
});
