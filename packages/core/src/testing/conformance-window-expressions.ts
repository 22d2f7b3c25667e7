import { describe, expect, it } from "vitest";
import { select } from "../builder/select.js";
import { UnsupportedFeatureError, ValidationError } from "../errors.js";
import { ConformanceCustomer as Customer, ConformanceOrder as Order } from "./conformance-models.js";
import type { useShop } from "./conformance-queries.js";
import { shopMinute as at } from "./conformance-queries.js";
import type { RowCase } from "./conformance-row-cases.js";
import { rowCaseTests } from "./conformance-row-cases.js";

/**
 * Typed expressions inside windows, on the dialect's real server: aggregates over expressions (with
 * a filter) over a window, lag / lead of an expression, PARTITION BY and ORDER BY an expression.
 * One window per select, so MariaDB (one window per select) runs every case. Run by windowTests.
 */
export function windowExpressionTests(shop: ReturnType<typeof useShop>): void {
  describe("typed expressions in windows", () => {
    const cases: RowCase[] = [
      {
        name: "a running sum of an arithmetic expression, partitioned by an expression (id parity)",
        query: () =>
          select(Order)
            .columns((q) => ({ id: "id", running: q.sum(q.mul("total", 2)).over({ partitionBy: [q.mod("id", 2)], orderBy: ["id"] }) }))
            .orderBy("id"),
        rows: [
          { id: 10, running: 2500 },
          { id: 11, running: 8000 },
          { id: 12, running: 4498 },
          { id: 13, running: 8200 },
          { id: 14, running: 5500 },
          { id: 15, running: 12200 },
        ],
      },
      {
        name: "count and avg of an expression over a partition by a datetime truncation",
        query: () =>
          select(Order)
            .columns((q) => {
              const perMinute = { partitionBy: [q.dateTrunc("minute", "createdAt")] };
              return { id: "id", n: q.count().over(perMinute), mean: q.avg(q.mul("total", 2)).over(perMinute) };
            })
            .orderBy("id"),
        rows: [
          { id: 10, n: 1, mean: 2500 },
          { id: 11, n: 1, mean: 8000 },
          { id: 12, n: 2, mean: 1099 },
          { id: 13, n: 2, mean: 1099 },
          { id: 14, n: 1, mean: 1002 },
          { id: 15, n: 1, mean: 4000 },
        ],
      },
      {
        name: "filtered aggregates over a window partitioned by a comparison",
        query: () =>
          select(Order)
            .columns((q) => {
              const window = { partitionBy: [q.gte("total", 1000)] };
              return {
                id: "id",
                shipped: q.countIf({ status: "shipped" }).over(window),
                paidTotal: q.sum("total", { filter: { status: "paid" } }).over(window),
              };
            })
            .orderBy("id"),
        rows: [
          { id: 10, shipped: 2, paidTotal: 1250 },
          { id: 11, shipped: 2, paidTotal: 1250 },
          { id: 12, shipped: 0, paidTotal: 999 },
          { id: 13, shipped: 0, paidTotal: 999 },
          { id: 14, shipped: 0, paidTotal: 999 },
          { id: 15, shipped: 2, paidTotal: 1250 },
        ],
      },
      {
        name: "lead of an arithmetic expression with a default, ordered by an expression descending",
        query: () =>
          select(Order)
            .columns((q) => ({
              id: "id",
              next: q.lead(q.add("total", 1), { default: 0 }).over({ orderBy: [[q.mod("total", 1000), "desc"], "id"] }),
            }))
            .orderBy("id"),
        rows: [
          { id: 10, next: 101 },
          { id: 11, next: 2001 },
          { id: 12, next: 502 },
          { id: 13, next: 4001 },
          { id: 14, next: 1251 },
          { id: 15, next: 0 },
        ],
      },
      {
        name: "lag of a string function over a left join (NULL where the joined row is missing)",
        query: () =>
          select(Order, "o")
            .leftJoin(Customer, "c", "c.id", "o.customerId")
            .columns((q) => ({ id: "o.id", previous: q.lag(q.lower("c.name")).over({ orderBy: ["o.id"] }) }))
            .orderBy("id"),
        rows: [
          { id: 10, previous: null },
          { id: 11, previous: "ada" },
          { id: 12, previous: "ada" },
          { id: 13, previous: "brian" },
          { id: 14, previous: "chen" },
          { id: 15, previous: null },
        ],
      },
      {
        name: "rank by a nullable expression: NULL is the largest value, ascending and descending",
        query: () =>
          select(Order)
            .columns((q) => ({ id: "id", up: q.rank().over({ orderBy: [q.dateTrunc("minute", "shippedAt")] }) }))
            .orderBy("id"),
        rows: [
          { id: 10, up: 3 },
          { id: 11, up: 2 },
          { id: 12, up: 3 },
          { id: 13, up: 3 },
          { id: 14, up: 3 },
          { id: 15, up: 1 },
        ],
      },
      {
        name: "rank descending by a nullable expression puts NULL first",
        query: () =>
          select(Order)
            .columns((q) => ({ id: "id", down: q.rank().over({ orderBy: [[q.addInterval("shippedAt", 1, "days"), "desc"]] }) }))
            .orderBy("id"),
        rows: [
          { id: 10, down: 1 },
          { id: 11, down: 5 },
          { id: 12, down: 1 },
          { id: 13, down: 1 },
          { id: 14, down: 1 },
          { id: 15, down: 6 },
        ],
      },
      {
        name: "rank by an expression over a left-joined column: the missing row's NULL sorts last",
        query: () =>
          select(Order, "o")
            .leftJoin(Customer, "c", "c.id", "o.customerId")
            .columns((q) => ({ id: "o.id", place: q.rowNumber().over({ orderBy: [q.add("c.id", 0), "o.id"] }) }))
            .orderBy("id"),
        rows: [
          { id: 10, place: 1 },
          { id: 11, place: 2 },
          { id: 12, place: 3 },
          { id: 13, place: 5 },
          { id: 14, place: 6 },
          { id: 15, place: 4 },
        ],
      },
      {
        name: "a grouped select ranked by an aggregate over an expression",
        query: () =>
          select(Order)
            .columns((q) => ({
              status: "status",
              revenue: q.sum(q.mul("total", 2)),
              place: q.rank().over({ orderBy: [[q.sum(q.mul("total", 2)), "desc"]] }),
            }))
            .groupBy("status")
            .orderBy("place"),
        rows: [
          { status: "shipped", revenue: 12000, place: 1 },
          { status: "paid", revenue: 4498, place: 2 },
          { status: "open", revenue: 1202, place: 3 },
        ],
      },
      {
        name: "a grouped select partitioned by its grouping expression",
        query: () =>
          select(Order)
            .columns((q) => ({
              hour: q.dateTrunc("hour", "createdAt"),
              status: "status",
              orders: q.count(),
              share: q.sum(q.count()).over({ partitionBy: [q.dateTrunc("hour", "createdAt")] }),
            }))
            .groupBy("hour", "status")
            .orderBy("status"),
        rows: [
          { hour: at(0), status: "open", orders: 2, share: 6 },
          { hour: at(0), status: "paid", orders: 2, share: 6 },
          { hour: at(0), status: "shipped", orders: 2, share: 6 },
        ],
      },
    ];
    rowCaseTests(shop, cases);

    it("a sum of exact decimals over a window where the database has them, a typed refusal where not", async () => {
      const query = select(Order)
        .columns((q) => ({ all: q.sum(q.add("amount", 1)).over({}) }))
        .orderBy("id");
      if (shop.engine.capabilities.exactDecimalAggregates) {
        expect(await shop.engine.execute(query).scalars()).toEqual(Array(6).fill("94.5"));
      } else {
        expect(() => shop.engine.compile(query)).toThrow(UnsupportedFeatureError);
      }
    });

    it("refused when built: a distinct aggregate over a window, lag of an aggregate, a json key", () => {
      expect(() =>
        select(Order).columns((q) => ({
          n: (q.count(q.mul("total", 2), { distinct: true }) as never as { over(w: object): never }).over({}),
        })),
      ).toThrow(TypeError);
      expect(() => select(Order).columns((q) => ({ n: q.lag(q.sum(q.mul("total", 2))).over({ orderBy: ["id"] }) }))).toThrow(
        ValidationError,
      );
      expect(() =>
        select(Order).columns((q) => ({ n: q.rank().over({ orderBy: [q.rowNumber().over({ orderBy: ["id"] }) as never] }) })),
      ).toThrow(ValidationError);
    });
  });
}
