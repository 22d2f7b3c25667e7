import { describe, expect, it } from "vitest";
import { cte, cteRecursive } from "../builder/cte.js";
import { select } from "../builder/select.js";
import type { Engine } from "../engine/engine.js";
import { UnsupportedFeatureError, ValidationError } from "../errors.js";
import { ConformanceCustomer as Customer, ConformanceOrder as Order } from "./conformance-models.js";
import { shopOrders, useShop } from "./conformance-queries.js";

/**
 * CTEs and set operations over the shop tables on the dialect's real server: every column kind the
 * shop has (integers, numeric text, enums, datetimes, NULLs, counts) reads back as the same
 * JavaScript value through a CTE or a set operation as it does from the table.
 */
export function cteQueryTests(engineOf: () => Engine): void {
  describe("CTEs and set operations over the shop", () => {
    const shop = useShop(engineOf);

    it("a CTE of whole rows decodes each kind exactly like the table (numeric text, enum, datetimes, NULL)", async () => {
      const open = cte("open_or_paid", select(Order).where({ status: { in: ["open", "paid"] } }));
      const rows = await shop.engine.execute(select(open).orderBy("id")).all();
      expect(rows).toEqual(shopOrders.filter((o) => o.status !== "shipped"));
    });

    it("an aggregate CTE joined to its table: counts and sums read as numbers on every database", async () => {
      const spent = cte(
        "spent",
        select(Order, "o")
          .columns((q) => ({ customerId: "o.customerId", orders: q.count(), total: q.sum("o.total"), last: q.max("o.createdAt") }))
          .groupBy("o.customerId"),
      );
      const rows = await shop.engine
        .execute(
          select(Customer, "c")
            .leftJoin(spent, "s", "s.customerId", "c.id")
            .columns({ name: "c.name", orders: "s.orders", total: "s.total", last: "s.last" })
            .orderBy("c.id"),
        )
        .all();
      expect(rows).toEqual([
        { name: "Ada", orders: 2, total: 5250, last: shopOrders[1]?.createdAt },
        { name: "Brian", orders: 2, total: 2999, last: shopOrders[5]?.createdAt },
        { name: "Chen", orders: 1, total: 100, last: shopOrders[3]?.createdAt },
        { name: "Dora", orders: null, total: null, last: null },
      ]);
    });

    it("a recursive CTE walks the referral tree from its roots", async () => {
      const tree = cteRecursive(
        "referrals",
        select(Customer, "c").columns({ id: "c.id", name: "c.name" }).where({ "c.referredBy": null }),
        (self) => select(Customer, "c").innerJoin(self, "r", "r.id", "c.referredBy").columns({ id: "c.id", name: "c.name" }),
      );
      const rows = await shop.engine.execute(select(tree, "t").orderBy("t.id")).all();
      expect(rows.map((r) => r.name)).toEqual(["Ada", "Brian", "Chen", "Dora"]);
    });

    it("a union of two tables' projections, ordered by an enum-free key with NULLs last", async () => {
      const q = select(Order, "o")
        .columns({ id: "o.id", ref: "o.customerId" })
        .where({ "o.status": "open" })
        .unionAll(select(Customer, "c").columns({ id: "c.id", ref: "c.referredBy" }))
        .orderBy("ref")
        .orderBy("id");
      const rows = await shop.engine.execute(q).all();
      expect(rows).toEqual([
        { id: 2, ref: 1 },
        { id: 3, ref: 1 },
        { id: 13, ref: 3 },
        { id: 1, ref: null },
        { id: 4, ref: null },
        { id: 14, ref: null },
      ]);
    });

    it("set operations keep enums, numeric text and datetimes as the table reads them; ordering by an enum uses its declared order", async () => {
      const cols = ["id", "status", "amount", "shippedAt"] as const;
      const q = select(Order, cols)
        .where({ total: { gte: 1000 } })
        .except(select(Order, cols).where({ status: "paid" }))
        .orderBy("status", "desc")
        .orderBy("id");
      const rows = await shop.engine.execute(q).all();
      expect(rows).toEqual([
        { id: 11, status: "shipped", amount: "40.00", shippedAt: shopOrders[1]?.shippedAt },
        { id: 15, status: "shipped", amount: "20.00", shippedAt: shopOrders[5]?.shippedAt },
      ]);
    });

    it("a CTE over a set operation, limited parts included", async () => {
      const extremes = cte(
        "extremes",
        select(Order, ["id", "total"])
          .orderBy("total", "desc")
          .limit(1)
          .unionAll(select(Order, ["id", "total"]).orderBy("total").limit(1)),
      );
      const rows = await shop.engine.execute(select(extremes).orderBy("total")).all();
      expect(rows).toEqual([
        { id: 13, total: 100 },
        { id: 11, total: 4000 },
      ]);
    });

    it("intersect / except [all] agree with JavaScript, or the dialect refuses ALL by name", async () => {
      const statuses = (max: number) => select(Order, ["status"]).where({ total: { lte: max } });
      expect(await shop.engine.execute(statuses(1000).intersect(statuses(600)).orderBy("status")).all()).toEqual([{ status: "open" }]);
      expect(await shop.engine.execute(statuses(5000).except(statuses(1000)).orderBy("status")).all()).toEqual([{ status: "shipped" }]);
      const all = statuses(5000).exceptAll(statuses(1000)).orderBy("status");
      if (!shop.engine.capabilities.exceptAll) {
        expect(() => shop.engine.compile(all)).toThrow(UnsupportedFeatureError);
        return;
      }
      expect(await shop.engine.execute(all).all()).toEqual([{ status: "paid" }, { status: "shipped" }, { status: "shipped" }]);
    });

    it("a lock on a part of a set operation is refused before anything is sent, the same on every dialect", () => {
      expect(() =>
        select(Order, ["id"])
          .forUpdate()
          .union(select(Order, ["id"])),
      ).toThrow(ValidationError);
    });
  });
}
