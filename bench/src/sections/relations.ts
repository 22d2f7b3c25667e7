import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import Database from "better-sqlite3";
import { asc, relations as drizzleRelations } from "drizzle-orm";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { integer as pgInteger, pgTable, text as pgText } from "drizzle-orm/pg-core";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import pg from "pg";
import type { Engine } from "tempest-db-js";
import { column, createEngine, index, insert, Model, relation, select } from "tempest-db-js";
import { PG_URL } from "../lib/env.js";
import type { Group, Row, SectionResult } from "../lib/report.js";
import { check } from "../lib/report.js";
import { median, sample } from "../lib/stats.js";

class Customer extends Model {
  static tablename = "rel_customers";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  name = column.text().notNull();
  orders = relation.hasMany(() => Order);
}

class Order extends Model {
  static tablename = "rel_orders";
  static naming = "snake_case";
  static indexes = [index<Order>("rel_orders_customer", ["customerId"])];
  id = column.integer().primaryKey();
  customerId = column
    .integer()
    .notNull()
    .references(() => Customer);
  status = column.text().notNull();
  items = relation.hasMany(() => Item);
}

class Item extends Model {
  static tablename = "rel_items";
  static naming = "snake_case";
  static indexes = [index<Item>("rel_items_order", ["orderId"])];
  id = column.integer().primaryKey();
  orderId = column
    .integer()
    .notNull()
    .references(() => Order);
  sku = column.text().notNull();
  priceCents = column.integer().notNull();
}

function drizzleSchema(
  table: typeof sqliteTable | typeof pgTable,
  int: typeof integer | typeof pgInteger,
  txt: typeof text | typeof pgText,
) {
  const make = table as typeof sqliteTable;
  const i = int as typeof integer;
  const t = txt as typeof text;
  const customers = make("rel_customers", { id: i("id").primaryKey(), name: t("name").notNull() });
  const orders = make("rel_orders", { id: i("id").primaryKey(), customerId: i("customer_id").notNull(), status: t("status").notNull() });
  const items = make("rel_items", {
    id: i("id").primaryKey(),
    orderId: i("order_id").notNull(),
    sku: t("sku").notNull(),
    priceCents: i("price_cents").notNull(),
  });
  const customersRelations = drizzleRelations(customers, ({ many }) => ({ orders: many(orders) }));
  const ordersRelations = drizzleRelations(orders, ({ one, many }) => ({
    customer: one(customers, { fields: [orders.customerId], references: [customers.id] }),
    items: many(items),
  }));
  const itemsRelations = drizzleRelations(items, ({ one }) => ({
    order: one(orders, { fields: [items.orderId], references: [orders.id] }),
  }));
  return { customers, orders, items, customersRelations, ordersRelations, itemsRelations };
}

interface Loaded {
  id: number;
  name: string;
  orders: { id: number; customerId: number; status: string; items: { id: number; orderId: number; sku: string; priceCents: number }[] }[];
}

/** Rows per level read by hand, grouped in plain JavaScript: what `.with()` is measured against. */
function assemble(customers: Loaded[], orders: Loaded["orders"], items: Loaded["orders"][number]["items"]): Loaded[] {
  const byOrder = new Map<number, Loaded["orders"][number]["items"]>();
  for (const item of items) {
    const list = byOrder.get(item.orderId);
    if (list) list.push(item);
    else byOrder.set(item.orderId, [item]);
  }
  const byCustomer = new Map<number, Loaded["orders"]>();
  for (const order of orders) {
    order.items = byOrder.get(order.id) ?? [];
    const list = byCustomer.get(order.customerId);
    if (list) list.push(order);
    else byCustomer.set(order.customerId, [order]);
  }
  for (const customer of customers) customer.orders = byCustomer.get(customer.id) ?? [];
  return customers;
}

async function seed(engine: Engine, customers: number): Promise<void> {
  await engine.dropAll([Customer, Order, Item]);
  await engine.createAll([Customer, Order, Item]);
  const c = Array.from({ length: customers }, (_, k) => ({ id: k + 1, name: `customer ${k + 1}` }));
  const o: { id: number; customerId: number; status: string }[] = [];
  const it: { id: number; orderId: number; sku: string; priceCents: number }[] = [];
  for (const customer of c) {
    for (let k = 0; k < 5; k++) {
      const id = o.length + 1;
      o.push({ id, customerId: customer.id, status: k % 2 === 0 ? "paid" : "open" });
      for (let j = 0; j < 3; j++)
        it.push({ id: it.length + 1, orderId: id, sku: `sku-${(id * 31 + j) % 977}`, priceCents: ((id * 7919 + j) % 5000) + 1 });
    }
  }
  for (const [model, rows] of [
    [Customer, c],
    [Order, o],
    [Item, it],
  ] as const) {
    for (let k = 0; k < rows.length; k += 2000) await engine.execute(insert(model).values(rows.slice(k, k + 2000) as never)).rowsAffected();
  }
}

const tempestLoad = () =>
  select(Customer)
    .orderBy("id")
    .with({ orders: (o) => o.with({ items: true }) });

/**
 * Loading 1,000 customers with their orders and each order's items (5,000 and 15,000 rows), on
 * SQLite and PostgreSQL: `.with()` against raw prepared statements, one per level, assembled in
 * JavaScript, and against Drizzle's relational query (`db.query.customers.findMany({ with })`).
 */
export async function relationLoads(quick: boolean): Promise<SectionResult> {
  const customers = quick ? 100 : 1000;
  const runs = quick ? 3 : 5;
  const rounds = quick ? 2 : 3;
  const groups: Group[] = [];

  // ---- SQLite
  const dir = mkdtempSync(join(tmpdir(), "tempest-bench-relations-"));
  const file = join(dir, "shop.db");
  const sqlite = createEngine(`sqlite://${file}`);
  await seed(sqlite, customers);
  const raw = new Database(file);
  const rawCustomers = raw.prepare("SELECT id, name FROM rel_customers ORDER BY id");
  const rawOrders = raw.prepare(
    "SELECT id, customer_id AS customerId, status FROM rel_orders WHERE customer_id IN (SELECT value FROM json_each(?)) ORDER BY id",
  );
  const rawItems = raw.prepare(
    "SELECT id, order_id AS orderId, sku, price_cents AS priceCents FROM rel_items WHERE order_id IN (SELECT value FROM json_each(?)) ORDER BY id",
  );
  const rawSqlite = (): Loaded[] => {
    const c = rawCustomers.all() as Loaded[];
    const o = rawOrders.all(JSON.stringify(c.map((r) => r.id))) as Loaded["orders"];
    const i = rawItems.all(JSON.stringify(o.map((r) => r.id))) as Loaded["orders"][number]["items"];
    return assemble(c, o, i);
  };
  const dsSchema = drizzleSchema(sqliteTable, integer, text);
  const dSqlite = drizzleSqlite(new Database(file), { schema: dsSchema });
  const drizzleSqliteLoad = () =>
    dSqlite.query.customers.findMany({
      orderBy: [asc(dsSchema.customers.id)],
      with: { orders: { orderBy: [asc(dsSchema.orders.id)], with: { items: { orderBy: [asc(dsSchema.items.id)] } } } },
    });
  same(await sqlite.execute(tempestLoad()).all(), rawSqlite(), "tempest on SQLite");
  same(await drizzleSqliteLoad(), rawSqlite(), "drizzle on SQLite");
  groups.push(
    await measureGroup(
      `SQLite, ${customers} customers → orders → items, ms per load, median of ${rounds} rounds of ${runs}`,
      runs,
      rounds,
      [
        ["raw better-sqlite3, a prepared statement per level", rawSqlite],
        ["tempest .with()", () => sqlite.execute(tempestLoad()).all()],
        ["drizzle db.query.findMany({ with })", () => drizzleSqliteLoad()],
      ],
    ),
  );
  await sqlite.close();
  raw.close();
  rmSync(dir, { recursive: true, force: true });

  // ---- PostgreSQL
  const postgres = createEngine(PG_URL);
  await seed(postgres, customers);
  const pool = new pg.Pool({ connectionString: PG_URL, max: 4 });
  const query = async <R>(name: string, text: string, values: unknown[]): Promise<R[]> =>
    (await pool.query({ name, text, values })).rows as R[];
  const rawPg = async (): Promise<Loaded[]> => {
    const c = await query<Loaded>("rel_c", "SELECT id, name FROM rel_customers ORDER BY id", []);
    const o = await query<Loaded["orders"][number]>(
      "rel_o",
      'SELECT id, customer_id AS "customerId", status FROM rel_orders WHERE customer_id = ANY($1) ORDER BY id',
      [c.map((r) => r.id)],
    );
    const i = await query<Loaded["orders"][number]["items"][number]>(
      "rel_i",
      'SELECT id, order_id AS "orderId", sku, price_cents AS "priceCents" FROM rel_items WHERE order_id = ANY($1) ORDER BY id',
      [o.map((r) => r.id)],
    );
    return assemble(c, o, i);
  };
  const dpSchema = drizzleSchema(pgTable, pgInteger, pgText);
  const dpPool = new pg.Pool({ connectionString: PG_URL, max: 4 });
  const dPg = drizzlePg(dpPool, { schema: dpSchema as never }) as unknown as ReturnType<typeof drizzleSqlite<typeof dsSchema>>;
  const drizzlePgLoad = () =>
    dPg.query.customers.findMany({
      orderBy: [asc(dpSchema.customers.id as never)],
      with: { orders: { orderBy: [asc(dpSchema.orders.id as never)], with: { items: { orderBy: [asc(dpSchema.items.id as never)] } } } },
    });
  same(await postgres.execute(tempestLoad()).all(), await rawPg(), "tempest on PostgreSQL");
  same(await drizzlePgLoad(), await rawPg(), "drizzle on PostgreSQL");
  groups.push(
    await measureGroup(
      `PostgreSQL, ${customers} customers → orders → items, ms per load, median of ${rounds} rounds of ${runs}`,
      runs,
      rounds,
      [
        ["raw pg, a prepared statement per level", rawPg],
        ["tempest .with()", () => postgres.execute(tempestLoad()).all()],
        ["drizzle db.query.findMany({ with })", () => drizzlePgLoad()],
      ],
    ),
  );
  await postgres.dropAll([Customer, Order, Item]);
  await postgres.close();
  await pool.end();
  await dpPool.end();
  return {
    id: "relations",
    title: "9. Relation loads: customers → orders → items, .with() beside raw statements per level and Drizzle's relational query",
    groups,
  };
}

function same(actual: unknown, expected: unknown, who: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${who} loaded other rows`);
}

async function measureGroup(
  title: string,
  runs: number,
  rounds: number,
  cases: [string, () => Promise<unknown> | unknown][],
): Promise<Group> {
  const rows: Row[] = [];
  for (const [name, fn] of cases) {
    const times = await sample(rounds, async () => {
      for (let i = 0; i < runs; i++) await fn();
    });
    rows.push({ name, value: median(times) / runs, unit: "ms" });
  }
  const value = (name: string) => rows.find((r) => r.name === name)?.value as number;
  const [rawName, tempestName, drizzleName] = cases.map((c) => c[0]) as [string, string, string];
  return {
    title,
    rows,
    baselines: [rawName],
    checks: [
      check("tempest ÷ raw per level", value(tempestName) / value(rawName), "≤", 1.3),
      check("tempest ÷ drizzle", value(tempestName) / value(drizzleName), "≤", 1),
    ],
    notes: [
      "Every contender loads the same nested objects (checked before timing), ordered by id at each level.",
      "tempest runs the three statements in one read-only REPEATABLE READ transaction (BEGIN and COMMIT included); raw runs them without one.",
    ],
  };
}
