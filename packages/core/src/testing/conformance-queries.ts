import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, or } from "../builder/condition.js";
import { insert } from "../builder/insert-builder.js";
import { op } from "../builder/op.js";
import { count, exists, notExists, ref, scalar } from "../builder/query-helpers.js";
import { select } from "../builder/select.js";
import type { Engine } from "../engine/engine.js";
import { UnsupportedFeatureError, ValidationError } from "../errors.js";
import { sql } from "../expression/sql.js";
import { ConformanceJob, ConformanceCustomer as Customer, ConformanceOrder as Order } from "./conformance-models.js";

/** The shop's clock: minute `minute` of 4 January 2026, 11:00 UTC. */
export const shopMinute = (minute: number) => new Date(Date.UTC(2026, 0, 4, 11, minute));
const at = shopMinute;

export const shopCustomers = [
  { id: 1, name: "Ada", referredBy: null, createdAt: at(0) },
  { id: 2, name: "Brian", referredBy: 1, createdAt: at(1) },
  { id: 3, name: "Chen", referredBy: 1, createdAt: at(2) },
  { id: 4, name: "Dora", referredBy: null, createdAt: at(3) },
];

export const shopOrders = [
  { id: 10, customerId: 1, status: "paid" as const, total: 1250, amount: "12.50", createdAt: at(10), shippedAt: null },
  { id: 11, customerId: 1, status: "shipped" as const, total: 4000, amount: "40.00", createdAt: at(11), shippedAt: at(30) },
  { id: 12, customerId: 2, status: "paid" as const, total: 999, amount: "9.99", createdAt: at(12), shippedAt: null },
  { id: 13, customerId: 3, status: "open" as const, total: 100, amount: "1.00", createdAt: at(12), shippedAt: null },
  { id: 14, customerId: null, status: "open" as const, total: 501, amount: "5.01", createdAt: at(14), shippedAt: null },
  { id: 15, customerId: 2, status: "shipped" as const, total: 2000, amount: "20.00", createdAt: at(15), shippedAt: at(20) },
];

/**
 * The shop tables of the query cases, created and filled before the describe block's tests and dropped
 * after them; `engine` is the engine the cases run on, set once the block starts.
 */
export function useShop(engineOf: () => Engine): { readonly engine: Engine } {
  const shop = { engine: undefined as unknown as Engine };
  const models = [Customer, Order];
  beforeAll(async () => {
    shop.engine = engineOf();
    await shop.engine.dropAll(models);
    await shop.engine.createAll(models);
    await shop.engine.execute(insert(Customer).values(shopCustomers)).rowsAffected();
    await shop.engine.execute(insert(Order).values(shopOrders)).rowsAffected();
  });
  afterAll(async () => {
    await shop.engine.dropAll(models);
  });
  return shop;
}

/**
 * The query language on the dialect's real server: joins, projections, aggregates, subqueries, locks
 * and typed raw SQL, each with the same rows (the same JavaScript values) on every database, or the
 * dialect's typed refusal where the capability table says it lacks the construct.
 */
export function queryTests(engineOf: () => Engine): void {
  describe("queries over joins, aggregates and subqueries", () => {
    const shop = useShop(engineOf);

    it("the newest orders with the customer's name: an inner join, one object per source", async () => {
      const newest = select(Order, "o")
        .innerJoin(Customer, "c", "c.id", "o.customerId")
        .orderBy("o.createdAt", "desc")
        .orderBy("o.id", "desc")
        .limit(3);
      const rows = await shop.engine.execute(newest).all();
      expect(rows.map((r) => [r.o.id, r.c.name])).toEqual([
        [15, "Brian"],
        [13, "Chen"],
        [12, "Brian"],
      ]);
      expect(rows[0]).toEqual({ o: shopOrders[5], c: shopCustomers[1] });
    });

    it("a left join: the joined source is null when no row matches (its primary key is NULL)", async () => {
      const rows = await shop.engine
        .execute(
          select(Order, "o")
            .leftJoin(Customer, "c", "c.id", "o.customerId")
            .where({ "o.id": op.in([13, 14]) })
            .orderBy("o.id"),
        )
        .all();
      expect(rows).toEqual([
        { o: shopOrders[3], c: shopCustomers[2] },
        { o: shopOrders[4], c: null },
      ]);
    });

    it("a flat projection across sources, and a self-join through aliases", async () => {
      const referrals = select(Customer, "c")
        .innerJoin(Customer, "r", "r.id", "c.referredBy")
        .columns({ customer: "c.name", referrer: "r.name" })
        .orderBy("c.id");
      expect(await shop.engine.execute(referrals).all()).toEqual([
        { customer: "Brian", referrer: "Ada" },
        { customer: "Chen", referrer: "Ada" },
      ]);
    });

    it("a join condition in the where language, with a typed reference to another source", async () => {
      const query = select(Customer, "c")
        .leftJoin(Order, "o", { "o.customerId": ref(Customer, "c", "id"), "o.status": "shipped" })
        .columns({ name: "c.name", shipped: "o.id" })
        .orderBy("c.id")
        .orderBy("o.id");
      expect(await shop.engine.execute(query).all()).toEqual([
        { name: "Ada", shipped: 11 },
        { name: "Brian", shipped: 15 },
        { name: "Chen", shipped: null },
        { name: "Dora", shipped: null },
      ]);
    });

    it("right and full joins where the database has them, a typed refusal where not", async () => {
      const right = select(Order, "o")
        .rightJoin(Customer, "c", "c.id", "o.customerId")
        .columns({ name: "c.name", order: "o.id" })
        .orderBy("c.id")
        .orderBy("o.id");
      const full = select(Order, "o")
        .fullJoin(Customer, "c", "c.id", "o.customerId")
        .columns({ order: "o.id", name: "c.name" })
        .orderBy("o.id", "asc", { nulls: "last" });
      const caps = shop.engine.capabilities;
      if (caps.rightJoin) {
        const rows = await shop.engine.execute(right).all();
        expect(rows.filter((r) => r.order === null)).toEqual([{ name: "Dora", order: null }]);
        expect(rows).toHaveLength(6);
      } else {
        expect(() => shop.engine.compile(right)).toThrow(UnsupportedFeatureError);
      }
      if (caps.fullJoin) {
        const rows = await shop.engine.execute(full).all();
        expect(rows).toHaveLength(7);
        expect(rows.at(-1)).toEqual({ order: null, name: "Dora" });
        expect(rows.find((r) => r.order === 14)).toEqual({ order: 14, name: null });
      } else {
        expect(() => shop.engine.compile(full)).toThrow(UnsupportedFeatureError);
      }
    });

    it("count per status: group by, count as a number on every database", async () => {
      const perStatus = select(Order).columns({ status: "status", orders: count() }).groupBy("status").orderBy("status");
      expect(await shop.engine.execute(perStatus).all()).toEqual([
        { status: "open", orders: 2 },
        { status: "paid", orders: 2 },
        { status: "shipped", orders: 2 },
      ]);
    });

    it("top customers by revenue: sum, group by, having, order by the aggregate", async () => {
      const top = select(Customer, "c")
        .innerJoin(Order, "o", "o.customerId", "c.id")
        .columns((q) => ({ id: "c.id", name: "c.name", revenue: q.sum("o.total"), orders: q.count() }))
        .groupBy("c.id", "c.name")
        .having({ revenue: op.gt(1000) })
        .orderBy("revenue", "desc")
        .limit(5);
      expect(await shop.engine.execute(top).all()).toEqual([
        { id: 1, name: "Ada", revenue: 5250, orders: 2 },
        { id: 2, name: "Brian", revenue: 2999, orders: 2 },
      ]);
    });

    it("avg, min, max, count distinct: the same JavaScript values everywhere; null over no rows", async () => {
      const stats = select(Order).columns((q) => ({
        avg: q.avg("total"),
        min: q.min("createdAt"),
        max: q.max("total"),
        customers: q.countDistinct("customerId"),
        rows: q.count(),
      }));
      expect(await shop.engine.execute(stats).one()).toEqual({ avg: 8850 / 6, min: at(10), max: 4000, customers: 3, rows: 6 });
      const none = await shop.engine.execute(stats.where({ total: op.lt(0) })).one();
      expect(none).toEqual({ avg: null, min: null, max: null, customers: 0, rows: 0 });
      const thirds = select(Order)
        .columns((q) => ({ avg: q.avg("total") }))
        .where({ id: op.in([12, 13, 14]) });
      expect(await shop.engine.execute(thirds).one()).toEqual({ avg: 1600 / 3 });
    });

    it("sum and avg of a numeric column: an exact decimal string, or refused where the database has no exact decimals", async () => {
      const amounts = select(Order)
        .columns((q) => ({ sum: q.sum("amount"), avg: q.avg("amount") }))
        .where({ id: op.in([12, 13, 14]) });
      if (!shop.engine.capabilities.exactDecimalAggregates) {
        expect(() => shop.engine.compile(amounts)).toThrow(UnsupportedFeatureError);
        return;
      }
      expect(await shop.engine.execute(amounts).one()).toEqual({ sum: "16.00", avg: "5.333333333333333333333333333333" });
      const halves = select(Order)
        .columns((q) => ({ avg: q.avg("amount") }))
        .where({ id: op.in([10, 11]) });
      expect(await shop.engine.execute(halves).one()).toEqual({ avg: "26.25" });
    });

    it("distinct, and NULLS FIRST / LAST the same on every database", async () => {
      const statuses = select(Order).columns({ status: "status" }).distinct().orderBy("status", "desc");
      expect(await shop.engine.execute(statuses).scalars()).toEqual(["shipped", "paid", "open"]);
      const first = select(Order).columns({ id: "id" }).orderBy("shippedAt", "asc", { nulls: "first" }).orderBy("id");
      expect(await shop.engine.execute(first).scalars()).toEqual([10, 12, 13, 14, 15, 11]);
      const last = select(Order).columns({ id: "id" }).orderBy("shippedAt", "desc", { nulls: "last" }).orderBy("id");
      expect(await shop.engine.execute(last).scalars()).toEqual([11, 15, 10, 12, 13, 14]);
    });

    it("a join sorts like a plain select: NULL as the largest value, an outer-joined column nullable", async () => {
      const byName = (direction: "asc" | "desc") =>
        select(Order, "o")
          .leftJoin(Customer, "c", "c.id", "o.customerId")
          .columns({ id: "o.id" })
          .where({ "o.id": op.in([12, 13, 14]) })
          .orderBy("c.name", direction);
      expect(await shop.engine.execute(byName("asc")).scalars()).toEqual([12, 13, 14]);
      expect(await shop.engine.execute(byName("desc")).scalars()).toEqual([14, 13, 12]);
      const shipped = select(Order, "o").columns({ id: "o.id" }).orderBy("o.shippedAt").orderBy("o.id");
      expect(await shop.engine.execute(shipped).scalars()).toEqual([15, 11, 10, 12, 13, 14]);
    });

    it("keyset pagination on (createdAt, id)", async () => {
      const page = (after?: { createdAt: Date; id: number }) => {
        const query = select(Order).orderBy("createdAt", "desc").orderBy("id", "desc").limit(2);
        return after
          ? query.where(or({ createdAt: op.lt(after.createdAt) }, and({ createdAt: after.createdAt }, { id: op.lt(after.id) })))
          : query;
      };
      const seen: number[] = [];
      let cursor: { createdAt: Date; id: number } | undefined;
      for (;;) {
        const rows = await shop.engine.execute(page(cursor)).all();
        if (rows.length === 0) break;
        seen.push(...rows.map((r) => r.id));
        const last = rows[rows.length - 1] as (typeof rows)[number];
        cursor = { createdAt: last.createdAt, id: last.id };
      }
      expect(seen).toEqual([15, 14, 13, 12, 11, 10]);
    });

    it("customers with no order (notExists, correlated) and with one (exists)", async () => {
      const ordersOf = select(Order, "o").where({ "o.customerId": ref(Customer, "c", "id") });
      expect(await shop.engine.execute(select(Customer, "c").where(notExists(ordersOf)).orderBy("c.id")).all()).toEqual([shopCustomers[3]]);
      const buyers = select(Customer, "c").columns({ id: "c.id" }).where(exists(ordersOf)).orderBy("c.id");
      expect(await shop.engine.execute(buyers).scalars()).toEqual([1, 2, 3]);
    });

    it("scalar subqueries in the projection and in conditions; in / notIn a projecting select", async () => {
      const withCounts = select(Customer, "c")
        .columns({
          name: "c.name",
          orders: scalar(
            select(Order, "o")
              .columns({ n: count() })
              .where({ "o.customerId": ref(Customer, "c", "id") }),
          ),
        })
        .orderBy("c.id");
      expect(await shop.engine.execute(withCounts).all()).toEqual([
        { name: "Ada", orders: 2 },
        { name: "Brian", orders: 2 },
        { name: "Chen", orders: 1 },
        { name: "Dora", orders: 0 },
      ]);
      const aboveAverage = select(Order)
        .columns({ id: "id" })
        .where({ total: op.gt(scalar(select(Order).columns((q) => ({ avg: q.avg("total") })))) })
        .orderBy("id");
      expect(await shop.engine.execute(aboveAverage).scalars()).toEqual([11, 15]);
      const paying = select(Order).columns({ customerId: "customerId" }).where({ status: "paid" });
      expect(
        await shop.engine
          .execute(
            select(Customer)
              .where({ id: op.in(paying) })
              .orderBy("id"),
          )
          .scalars(),
      ).toEqual([1, 2]);
      expect(
        await shop.engine
          .execute(
            select(Customer)
              .where({ id: op.notIn(paying) })
              .orderBy("id"),
          )
          .scalars(),
      ).toEqual([3, 4]);
    });

    it("a queue's health in one statement: messages per status and consumer, and the oldest due", async () => {
      await shop.engine.execute(select(ConformanceJob)).all();
      const health = select(ConformanceJob)
        .columns((q) => ({ status: "status", consumer: "consumer", messages: q.count(), oldestDue: q.min("nextAttemptAt") }))
        .groupBy("status", "consumer")
        .orderBy("status")
        .orderBy("consumer");
      const rows = await shop.engine.execute(health).all();
      for (const row of rows) {
        expect(typeof row.messages).toBe("number");
        expect(row.oldestDue).toBeInstanceOf(Date);
      }
    });

    it("locks with joins: FOR UPDATE OF an alias, and the constructs no database can lock, refused when built", async () => {
      const claim = () => select(Order, "o").innerJoin(Customer, "c", "c.id", "o.customerId").where({ "o.status": "paid" });
      const locked = claim().forUpdate({ of: ["o"] });
      const caps = shop.engine.capabilities;
      if (caps.rowLocks && caps.lockOf) {
        const rows = await shop.engine.transaction(async (tx) => tx.execute(locked).all());
        expect(rows.map((r) => r.o.id).sort()).toEqual([10, 12]);
      } else {
        expect(() => shop.engine.compile(locked)).toThrow(UnsupportedFeatureError);
      }
      expect(() => claim().forUpdate({ of: ["x"] })).toThrow(/not an alias of this query/);
      expect(() => select(Order, "o").leftJoin(Customer, "c", "c.id", "o.customerId").forUpdate()).toThrow(
        /nullable side of an outer join/,
      );
      expect(() =>
        select(Order, "o")
          .leftJoin(Customer, "c", "c.id", "o.customerId")
          .forUpdate({ of: ["c"] }),
      ).toThrow(ValidationError);
      expect(() => select(Order).columns({ status: "status" }).groupBy("status").forUpdate()).toThrow(/GROUP BY/);
      expect(() => select(Order).columns({ status: "status" }).distinct().forUpdate()).toThrow(/DISTINCT/);
      expect(() => select(Order).forUpdate().columns({ n: count() })).toThrow(/aggregate/);
    });

    it("a typed raw query: declared row type and kinds, decoded the same on every database", async () => {
      const report = sql.typed(
        sql.expr`SELECT customer_id AS "customerId", COUNT(*) AS "orders", MAX(created_at) AS "lastAt", SUM(total) AS "cents" FROM tempest_conformance_orders WHERE status <> ${"open"} GROUP BY customer_id ORDER BY customer_id`,
        { customerId: "integer?", orders: "integer", lastAt: "datetime", cents: "integer" },
      );
      expect(await shop.engine.execute(report).all()).toEqual([
        { customerId: 1, orders: 2, lastAt: at(11), cents: 5250 },
        { customerId: 2, orders: 2, lastAt: at(15), cents: 2999 },
      ]);
    });

    it("unknown aliases and fields, and aggregates no database computes alike, are refused when built", () => {
      expect(() => select(Order, "o").where({ "x.id": 1 } as never)).toThrow(ValidationError);
      expect(() => select(Order, "o").orderBy("o.nope" as never)).toThrow(/has no field/);
      expect(() => select(Order).innerJoin(Customer, "c", "c.id", "customerId" as never)).toThrow(/name the root's alias/);
      expect(() => select(Order, "o").innerJoin(Customer, "o" as never, "o.id", "o.id")).toThrow(/already used/);
      expect(() => select(Order, "o").columns((q) => ({ s: q.sum("o.status" as never) }))).toThrow(/needs a number column/);
      expect(() => select(Order, "bad alias")).toThrow(/an alias is letters/);
    });
  });
}
