import { insert, select } from "tempest-db-js";
import { ConformanceCustomer as Customer, ConformanceOrder as Order, shopCustomers, shopOrders } from "tempest-db-js/testing";
import { describe, expect, it } from "vitest";
import { openDatabase, targets } from "./support/engines.js";

const later = new Date("2030-01-01T00:00:00.000Z");

describe.each(targets)("window functions on SQLite (%s)", (target) => {
  it("compiles LEAD with its default and NULLS LAST keys, and reads datetimes back as Dates", async () => {
    const db = openDatabase(target);
    try {
      await db.engine.createAll([Customer, Order]);
      await db.engine.execute(insert(Customer).values(shopCustomers)).rowsAffected();
      await db.engine.execute(insert(Order).values(shopOrders)).rowsAffected();
      const query = select(Order)
        .columns((q) => ({ id: "id", next: q.lead("shippedAt", { default: later }).over({ orderBy: [["shippedAt", "desc"], "id"] }) }))
        .orderBy("id");
      const { sql, params } = db.engine.compile(query);
      expect(sql).toBe(
        'SELECT "tempest_conformance_orders"."id" AS "id", LEAD("shipped_at", 1, ?) OVER (ORDER BY "tempest_conformance_orders"."shipped_at" DESC NULLS FIRST, "tempest_conformance_orders"."id" ASC) AS "next" FROM "tempest_conformance_orders" ORDER BY "tempest_conformance_orders"."id" ASC',
      );
      expect(params).toEqual([later.toISOString()]);
      // In the window's order: 10, 12, 13, 14 (NULL is the largest value: first descending), 11 (minute 30), 15 (minute 20).
      expect(await db.engine.execute(query).all()).toEqual([
        { id: 10, next: null },
        { id: 11, next: shopOrders[5]?.shippedAt },
        { id: 12, next: null },
        { id: 13, next: null },
        { id: 14, next: shopOrders[1]?.shippedAt },
        { id: 15, next: later },
      ]);
    } finally {
      await db.close();
    }
  });
});
