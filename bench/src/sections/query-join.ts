import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "@tempest-db-js/dialect-sqlite";
import Database from "better-sqlite3";
import { count as dcount, desc as ddesc, eq as deq, gt as dgt, sum as dsum } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { Kysely, SqliteDialect } from "kysely";
import { do_not_optimize, measure } from "mitata";
import { column, createEngine, insert, Model, op, select } from "tempest-db-js";
import type { Row, SectionResult } from "../lib/report.js";
import { check } from "../lib/report.js";
import { median, sample } from "../lib/stats.js";

class Customer extends Model {
  static tablename = "shop_customers";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  name = column.text().notNull();
}

class Order extends Model {
  static tablename = "shop_orders";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  customerId = column.integer().notNull();
  status = column.text().notNull();
}

class OrderItem extends Model {
  static tablename = "shop_order_items";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  orderId = column.integer().notNull();
  priceCents = column.integer().notNull();
}

const dCustomers = sqliteTable("shop_customers", { id: integer("id").primaryKey(), name: text("name").notNull() });
const dOrders = sqliteTable("shop_orders", {
  id: integer("id").primaryKey(),
  customerId: integer("customer_id").notNull(),
  status: text("status").notNull(),
});
const dItems = sqliteTable("shop_order_items", {
  id: integer("id").primaryKey(),
  orderId: integer("order_id").notNull(),
  priceCents: integer("price_cents").notNull(),
});

interface Schema {
  shop_customers: { id: number; name: string };
  shop_orders: { id: number; customer_id: number; status: string };
  shop_order_items: { id: number; order_id: number; price_cents: number };
}

const RAW = `SELECT c.id AS id, c.name AS name, COUNT(*) AS items, SUM(i.price_cents) AS revenue FROM shop_customers AS c INNER JOIN shop_orders AS o ON o.customer_id = c.id INNER JOIN shop_order_items AS i ON i.order_id = o.id WHERE o.status = ? GROUP BY c.id, c.name HAVING SUM(i.price_cents) > ? ORDER BY SUM(i.price_cents) DESC LIMIT 10`;

/**
 * A 3-table join with GROUP BY, HAVING and ORDER BY an aggregate: "top customers by revenue of paid
 * orders". Built and compiled to SQLite SQL by each library (fresh builder per call), then executed
 * on SQLite against raw better-sqlite3 (one prepared statement).
 */
export async function queryJoin(quick: boolean): Promise<SectionResult> {
  const customers = quick ? 50 : 500;
  const dir = mkdtempSync(join(tmpdir(), "tempest-bench-join-"));
  const file = join(dir, "shop.db");
  const engine = createEngine(`sqlite://${file}`);
  await engine.createAll([Customer, Order, OrderItem]);
  const orders: { id: number; customerId: number; status: string }[] = [];
  const items: { id: number; orderId: number; priceCents: number }[] = [];
  for (let c = 1; c <= customers; c++) {
    for (let k = 0; k < 8; k++) {
      const id = orders.length + 1;
      orders.push({ id, customerId: c, status: k % 3 === 0 ? "open" : "paid" });
      for (let j = 0; j < 3; j++) items.push({ id: items.length + 1, orderId: id, priceCents: ((id * 7919 + j * 31) % 5000) + 1 });
    }
  }
  await engine
    .execute(insert(Customer).values(Array.from({ length: customers }, (_, i) => ({ id: i + 1, name: `customer ${i + 1}` }))))
    .rowsAffected();
  for (let i = 0; i < orders.length; i += 1000) await engine.execute(insert(Order).values(orders.slice(i, i + 1000))).rowsAffected();
  for (let i = 0; i < items.length; i += 1000) await engine.execute(insert(OrderItem).values(items.slice(i, i + 1000))).rowsAffected();

  const raw = new Database(file);
  const rawStatement = raw.prepare(RAW);
  const kysely = new Kysely<Schema>({ dialect: new SqliteDialect({ database: new Database(file) }) });
  const db = drizzle(new Database(file));

  const tempestQuery = () =>
    select(Customer, "c")
      .innerJoin(Order, "o", "o.customerId", "c.id")
      .innerJoin(OrderItem, "i", "i.orderId", "o.id")
      .where({ "o.status": "paid" })
      .columns((q) => ({ id: "c.id", name: "c.name", items: q.count(), revenue: q.sum("i.priceCents") }))
      .groupBy("c.id", "c.name")
      .having({ revenue: op.gt(1000) })
      .orderBy("revenue", "desc")
      .limit(10);
  const kyselyQuery = () =>
    kysely
      .selectFrom("shop_customers as c")
      .innerJoin("shop_orders as o", "o.customer_id", "c.id")
      .innerJoin("shop_order_items as i", "i.order_id", "o.id")
      .where("o.status", "=", "paid")
      .select((eb) => ["c.id", "c.name", eb.fn.countAll<number>().as("items"), eb.fn.sum<number>("i.price_cents").as("revenue")])
      .groupBy(["c.id", "c.name"])
      .having((eb) => eb.fn.sum("i.price_cents"), ">", 1000)
      .orderBy((eb) => eb.fn.sum("i.price_cents"), "desc")
      .limit(10);
  const drizzleQuery = () =>
    db
      .select({ id: dCustomers.id, name: dCustomers.name, items: dcount(), revenue: dsum(dItems.priceCents) })
      .from(dCustomers)
      .innerJoin(dOrders, deq(dOrders.customerId, dCustomers.id))
      .innerJoin(dItems, deq(dItems.orderId, dOrders.id))
      .where(deq(dOrders.status, "paid"))
      .groupBy(dCustomers.id, dCustomers.name)
      .having(dgt(dsum(dItems.priceCents), 1000))
      .orderBy(ddesc(dsum(dItems.priceCents)))
      .limit(10);

  // Every contender returns the same customers in the same order.
  const expected = (rawStatement.all("paid", 1000) as { id: number }[]).map((r) => r.id);
  const same = (rows: { id: number }[], who: string) => {
    if (JSON.stringify(rows.map((r) => r.id)) !== JSON.stringify(expected)) throw new Error(`${who} returned other rows`);
  };
  same(await engine.execute(tempestQuery()).all(), "tempest");
  same(await kyselyQuery().execute(), "kysely");
  same(drizzleQuery().all() as { id: number }[], "drizzle");

  const compileCases: [string, () => unknown][] = [
    ["tempest: fresh build + compile", () => engine.compile(tempestQuery())],
    ["kysely: fresh build + compile", () => kyselyQuery().compile()],
    ["drizzle: fresh build + toSQL", () => drizzleQuery().toSQL()],
  ];
  const compileRows: Row[] = [];
  for (const [name, fn] of compileCases) {
    const stats = await measure(
      () => {
        do_not_optimize(fn());
      },
      quick ? { min_cpu_time: 20e6, min_samples: 12, warmup_samples: 4 } : { min_cpu_time: 1500e6 },
    );
    compileRows.push({ name, value: stats.p50 / 1000, unit: "µs", extra: { p99: stats.p99 / 1000 } });
  }

  const runs = quick ? 20 : 400;
  const rounds = quick ? 2 : 9;
  const executeCases: [string, () => Promise<unknown> | unknown][] = [
    ["raw better-sqlite3 (prepared)", () => rawStatement.all("paid", 1000)],
    ["tempest", () => engine.execute(tempestQuery()).all()],
    ["kysely", () => kyselyQuery().execute()],
    ["drizzle", () => drizzleQuery().all()],
  ];
  const executeRows: Row[] = [];
  for (const [name, fn] of executeCases) {
    const times = await sample(rounds, async () => {
      for (let i = 0; i < runs; i++) await fn();
    });
    executeRows.push({ name, value: (median(times) / runs) * 1000, unit: "µs" });
  }
  await engine.close();
  await kysely.destroy();
  raw.close();
  rmSync(dir, { recursive: true, force: true });

  const value = (rows: Row[], name: string) => rows.find((r) => r.name === name)?.value as number;
  return {
    id: "query-join",
    title: "7. A 3-table join with GROUP BY, HAVING and ORDER BY an aggregate (top customers by revenue)",
    groups: [
      {
        title: "Build + compile to SQLite SQL, µs per statement (mitata p50)",
        rows: compileRows,
        baselines: ["kysely: fresh build + compile"],
        checks: [
          check(
            "tempest fresh ÷ kysely fresh",
            value(compileRows, "tempest: fresh build + compile") / value(compileRows, "kysely: fresh build + compile"),
            "≤",
            0.3,
          ),
        ],
        notes: [`tempest: ${engine.compile(tempestQuery()).sql}`],
      },
      {
        title: `Execution on SQLite (${customers} customers, ${orders.length} orders, ${items.length} items), µs per query, median of ${rounds} rounds of ${runs}`,
        rows: executeRows,
        baselines: ["raw better-sqlite3 (prepared)"],
        checks: [
          check("tempest ÷ raw", value(executeRows, "tempest") / value(executeRows, "raw better-sqlite3 (prepared)"), "≤", 1.3),
          check("tempest ÷ kysely", value(executeRows, "tempest") / value(executeRows, "kysely"), "≤", 1),
          check("tempest ÷ drizzle", value(executeRows, "tempest") / value(executeRows, "drizzle"), "≤", 1),
        ],
        notes: ["Every contender builds its query afresh per run (raw prepares once); all return the same ten customers."],
      },
    ],
  };
}
