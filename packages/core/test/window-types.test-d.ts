import { describe, expectTypeOf, test } from "vitest";
import type { Engine, WindowExpression } from "../src/index.js";
import { op, select, update } from "../src/index.js";
import { ConformanceCustomer as Customer, ConformanceOrder as Order } from "../src/testing/index.js";

declare const engine: Engine;
const byCustomer = { partitionBy: ["o.customerId"], orderBy: [["o.createdAt", "desc"], "o.id"] } as const;

describe("window functions are typed like any selection", () => {
  test("ranks are numbers; lag/lead the column's type or null, the column's type with a default; aggregates as in a group", () => {
    const q = select(Order, "o")
      .leftJoin(Customer, "c", "c.id", "o.customerId")
      .columns((q) => ({
        n: q.rowNumber().over(byCustomer),
        r: q.rank().over({ orderBy: ["o.status"] }),
        d: q.denseRank().over({ orderBy: [["o.total", "desc", { nulls: "last" }]] }),
        previous: q.lag("o.total").over(byCustomer),
        previousOr0: q.lag("o.total", { default: 0 }).over(byCustomer),
        next: q.lead("o.createdAt", { offset: 2 }).over(byCustomer),
        shippedNext: q.lead("o.shippedAt", { default: new Date(0) }).over(byCustomer),
        referrer: q.lag("c.name", { default: "nobody" }).over(byCustomer),
        running: q.sum("o.total").over({ orderBy: ["o.id"], frame: { rows: ["unboundedPreceding", "currentRow"] } }),
        amount: q.sum("o.amount").over({ partitionBy: ["o.status"] }),
        avg: q.avg("o.total").over({ orderBy: ["o.id"], frame: { range: [{ preceding: 10 }, { following: 10 }] } }),
        all: q.count().over({}),
        last: q.max("o.createdAt").over({ orderBy: ["o.id"], frame: { groups: [{ preceding: 1 }, "currentRow"] } }),
      }));
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{
      n: number;
      r: number;
      d: number;
      previous: number | null;
      previousOr0: number;
      next: Date | null;
      shippedNext: Date | null;
      referrer: string | null;
      running: number | null;
      amount: string | null;
      avg: number | null;
      all: number;
      last: Date | null;
    }>();
    q.orderBy("n").orderBy("previous", "desc", { nulls: "last" });
  });

  test("a ranking or offset function needs .over with an orderBy, and takes no frame", () => {
    // @ts-expect-error rowNumber() is not a value until .over(...)
    select(Order).columns((q) => ({ n: q.rowNumber() }));
    // @ts-expect-error rank needs orderBy
    select(Order).columns((q) => ({ n: q.rank().over({ partitionBy: ["status"] }) }));
    // @ts-expect-error an empty orderBy
    select(Order).columns((q) => ({ n: q.rank().over({ orderBy: [] }) }));
    // @ts-expect-error no frame for a ranking function
    select(Order).columns((q) => ({ n: q.rank().over({ orderBy: ["id"], frame: { rows: ["unboundedPreceding", "currentRow"] } }) }));
    // @ts-expect-error a default of another type than the column's
    select(Order).columns((q) => ({ n: q.lag("total", { default: "0" }).over({ orderBy: ["id"] }) }));
    // @ts-expect-error no such field
    select(Order).columns((q) => ({ n: q.lag("nope").over({ orderBy: ["id"] }) }));
    // @ts-expect-error countDistinct has no window form
    select(Order).columns((q) => ({ n: q.countDistinct("total").over({}) }));
    // @ts-expect-error an unknown frame bound
    select(Order).columns((q) => ({ n: q.sum("total").over({ orderBy: ["id"], frame: { rows: ["start", "currentRow"] } }) }));
    // @ts-expect-error window keys are references of the query
    select(Order, "o").columns((q) => ({ n: q.rank().over({ orderBy: ["x.id"] }) }));
  });

  test("a window function is not an Expression: where, having and set do not take it", () => {
    select(Order).columns((q) => {
      const n = q.rowNumber().over({ orderBy: ["id"] });
      expectTypeOf(n).toEqualTypeOf<WindowExpression<number>>();
      // @ts-expect-error not a condition
      select(Order).where(n);
      // @ts-expect-error not an operand
      select(Order).where({ total: op.gt(n) });
      // @ts-expect-error not a value to write
      update(Order).set({ total: n });
      // @ts-expect-error not a having condition
      select(Order).columns({ status: "status" }).having(n);
      return { n };
    });
  });
});
