import { createEngine, insert, select } from "tempest-db-js";
import { ConformanceCustomer as Customer, ConformanceOrder as Order, shopCustomers, shopOrders } from "tempest-db-js/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresDialect } from "../src/index.js";
import { PG_URL } from "./pg-url.js";

const engine = createEngine(PG_URL, { poolSize: 2, dialect: postgresDialect });
const later = new Date("2030-01-01T00:00:00.000Z");

beforeAll(async () => {
  await engine.dropAll([Customer, Order]);
  await engine.createAll([Customer, Order]);
  await engine.execute(insert(Customer).values(shopCustomers)).rowsAffected();
  await engine.execute(insert(Order).values(shopOrders)).rowsAffected();
});

afterAll(async () => {
  await engine.dropAll([Customer, Order]);
  await engine.close();
});

describe("window functions on PostgreSQL", () => {
  it("LEAD with its default; NULL already sorts as the largest value, so no pinning; ranks decode from bigint to number", async () => {
    const query = select(Order)
      .columns((q) => ({ id: "id", next: q.lead("shippedAt", { default: later }).over({ orderBy: [["shippedAt", "desc"], "id"] }) }))
      .orderBy("id");
    expect(engine.compile(query).sql).toBe(
      'SELECT "tempest_conformance_orders"."id" AS "id", LEAD("shipped_at", 1, $1) OVER (ORDER BY "tempest_conformance_orders"."shipped_at" DESC, "tempest_conformance_orders"."id" ASC) AS "next" FROM "tempest_conformance_orders" ORDER BY "tempest_conformance_orders"."id" ASC',
    );
    expect(await engine.execute(query).all()).toEqual([
      { id: 10, next: null },
      { id: 11, next: shopOrders[5]?.shippedAt },
      { id: 12, next: null },
      { id: 13, next: null },
      { id: 14, next: shopOrders[1]?.shippedAt },
      { id: 15, next: later },
    ]);
    const ranks = select(Order)
      .columns((q) => ({ r: q.rank().over({ orderBy: [["total", "desc"]] }) }))
      .orderBy("id");
    expect(await engine.execute(ranks).scalars()).toEqual([3, 1, 4, 6, 5, 2]);
  });

  it("GROUPS frames run here", async () => {
    const peers = select(Order)
      .columns((q) => ({ n: q.count().over({ orderBy: ["status"], frame: { groups: [{ preceding: 1 }, "currentRow"] } }) }))
      .orderBy("id");
    expect(await engine.execute(peers).scalars()).toEqual([4, 4, 4, 2, 2, 4]);
  });
});
