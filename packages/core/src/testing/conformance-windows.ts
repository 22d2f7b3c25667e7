import { describe, expect, it } from "vitest";
import { select } from "../builder/select.js";
import type { Engine } from "../engine/engine.js";
import { UnsupportedFeatureError, ValidationError } from "../errors.js";
import { ConformanceCustomer as Customer, ConformanceOrder as Order } from "./conformance-models.js";
import { shopMinute as at, useShop } from "./conformance-queries.js";
import type { RowCase } from "./conformance-row-cases.js";
import { rowCaseTests } from "./conformance-row-cases.js";
import { windowExpressionTests } from "./conformance-window-expressions.js";

/**
 * Window functions on the dialect's real server, over the shop of the query cases: the same
 * JavaScript values on every database, or the dialect's typed refusal where its capability table
 * says it lacks the construct.
 */
export function windowTests(engineOf: () => Engine): void {
  describe("window functions", () => {
    const shop = useShop(engineOf);

    const newestFirst = { partitionBy: ["o.customerId"], orderBy: [["o.createdAt", "desc"], "o.id"] } as const;
    const perOrder: RowCase[] = [
      {
        name: "rowNumber and lag with a default over each customer's orders, newest first",
        query: () =>
          select(Order, "o")
            .columns((q) => ({ id: "o.id", n: q.rowNumber().over(newestFirst), newer: q.lag("o.total", { default: 0 }).over(newestFirst) }))
            .orderBy("id"),
        rows: [
          { id: 10, n: 2, newer: 4000 },
          { id: 11, n: 1, newer: 0 },
          { id: 12, n: 2, newer: 2000 },
          { id: 13, n: 1, newer: 0 },
          { id: 14, n: 1, newer: 0 },
          { id: 15, n: 1, newer: 0 },
        ],
      },
      {
        name: "rank and denseRank by an enum sort in its declaration order",
        query: () =>
          select(Order)
            .columns((q) => ({
              id: "id",
              rank: q.rank().over({ orderBy: ["status"] }),
              dense: q.denseRank().over({ orderBy: ["status"] }),
            }))
            .orderBy("id"),
        rows: [
          { id: 10, rank: 3, dense: 2 },
          { id: 11, rank: 5, dense: 3 },
          { id: 12, rank: 3, dense: 2 },
          { id: 13, rank: 1, dense: 1 },
          { id: 14, rank: 1, dense: 1 },
          { id: 15, rank: 5, dense: 3 },
        ],
      },
    ];
    rowCaseTests(shop, perOrder);

    it("running and moving aggregates over rows frames", async () => {
      const running = select(Order)
        .columns((q) => {
          const upToHere = { orderBy: ["id"], frame: { rows: ["unboundedPreceding", "currentRow"] } } as const;
          return { id: "id", total: q.sum("total").over(upToHere), orders: q.count().over(upToHere) };
        })
        .orderBy("id");
      expect((await shop.engine.execute(running).all()).map((r) => [r.total, r.orders])).toEqual([
        [1250, 1],
        [5250, 2],
        [6249, 3],
        [6349, 4],
        [6850, 5],
        [8850, 6],
      ]);
      const moving = select(Order)
        .columns((q) => ({ avg: q.avg("total").over({ orderBy: ["id"], frame: { rows: [{ preceding: 1 }, "currentRow"] } }) }))
        .orderBy("id");
      expect(await shop.engine.execute(moving).scalars()).toEqual([1250, 2625, 2499.5, 549.5, 300.5, 1250.5]);
    });

    it("lead of a nullable column; the select orders by it with NULL as the largest value", async () => {
      const query = select(Order)
        .columns((q) => ({ id: "id", nextShipped: q.lead("shippedAt").over({ orderBy: ["id"] }) }))
        .orderBy("nextShipped", "desc")
        .orderBy("id");
      expect(await shop.engine.execute(query).all()).toEqual([
        { id: 11, nextShipped: null },
        { id: 12, nextShipped: null },
        { id: 13, nextShipped: null },
        { id: 15, nextShipped: null },
        { id: 10, nextShipped: at(30) },
        { id: 14, nextShipped: at(20) },
      ]);
    });

    it("a window over groups: customers ranked by revenue", async () => {
      const query = select(Customer, "c")
        .innerJoin(Order, "o", "o.customerId", "c.id")
        .columns((q) => ({ name: "c.name", revenue: q.sum("o.total"), place: q.rank().over({ orderBy: [[q.sum("o.total"), "desc"]] }) }))
        .groupBy("c.id", "c.name")
        .orderBy("place");
      expect(await shop.engine.execute(query).all()).toEqual([
        { name: "Ada", revenue: 5250, place: 1 },
        { name: "Brian", revenue: 2999, place: 2 },
        { name: "Chen", revenue: 100, place: 3 },
      ]);
    });

    it("range frames with an offset and groups frames where the database has them, a typed refusal where not", async () => {
      const caps = shop.engine.capabilities;
      const near = select(Order)
        .columns((q) => ({ near: q.sum("total").over({ orderBy: ["total"], frame: { range: [{ preceding: 1000 }, "currentRow"] } }) }))
        .orderBy("id");
      if (caps.windowFunctions && caps.windowRangeOffset) {
        expect(await shop.engine.execute(near).scalars()).toEqual([2750, 4000, 1600, 100, 601, 3250]);
      } else {
        expect(() => shop.engine.compile(near)).toThrow(UnsupportedFeatureError);
      }
      const peers = select(Order)
        .columns((q) => ({ n: q.count().over({ orderBy: ["status"], frame: { groups: [{ preceding: 1 }, "currentRow"] } }) }))
        .orderBy("id");
      if (caps.windowFunctions && caps.windowGroups) {
        expect(await shop.engine.execute(peers).scalars()).toEqual([4, 4, 4, 2, 2, 4]);
      } else {
        expect(() => shop.engine.compile(peers)).toThrow(UnsupportedFeatureError);
      }
    });

    it("several windows in one select where the database computes them right, a typed refusal where not", async () => {
      const two = select(Order)
        .columns((q) => ({ id: "id", n: q.rowNumber().over({ orderBy: [["total", "desc"]] }), all: q.count().over({}) }))
        .orderBy("id");
      if (shop.engine.capabilities.windowsPerSelect >= 2) {
        expect((await shop.engine.execute(two).all()).map((r) => [r.n, r.all])).toEqual([
          [3, 6],
          [1, 6],
          [4, 6],
          [6, 6],
          [5, 6],
          [2, 6],
        ]);
      } else {
        expect(() => shop.engine.compile(two)).toThrow(UnsupportedFeatureError);
      }
    });

    windowExpressionTests(shop);

    it("a window with a lock, in where or in having, refused when built", () => {
      const ranked = select(Order).columns((q) => ({ id: "id", n: q.rowNumber().over({ orderBy: ["id"] }) }));
      expect(() => ranked.forUpdate()).toThrow(/window function/);
      expect(() => ranked.having({ n: { lte: 2 } })).toThrow(ValidationError);
    });
  });
}
