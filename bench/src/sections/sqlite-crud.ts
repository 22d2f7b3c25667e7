import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "@tempest-db-js/dialect-sqlite";
import Database from "better-sqlite3";
import { and as dand, eq as deq, gt as dgt, sql as dsql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { Kysely, SqliteDialect } from "kysely";
import { createEngine, insert, select, sql } from "tempest-db-js";
import { Item } from "../lib/models.js";
import type { Group, Row, SectionResult } from "../lib/report.js";
import { check } from "../lib/report.js";
import { median, sample } from "../lib/stats.js";

const TABLE = "bench_items";
const CHUNK = 100;
const DDL = `CREATE TABLE ${TABLE} (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL, qty INTEGER NOT NULL, price REAL NOT NULL)`;
const COLUMNS = ["id", "name", "category", "qty", "price"] as const;

interface ItemRow {
  id: number;
  name: string;
  category: string;
  qty: number;
  price: number;
}

const drizzleItems = sqliteTable(TABLE, {
  id: integer("id").primaryKey(),
  name: text("name").notNull(),
  category: text("category").notNull(),
  qty: integer("qty").notNull(),
  price: real("price").notNull(),
});

function makeRows(n: number): ItemRow[] {
  return Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    name: `item ${i + 1}`,
    category: `c${i % 10}`,
    qty: (i * 7919) % 1000,
    price: ((i * 31) % 10000) / 100,
  }));
}

/** The same pseudo-random ids for every library. */
function lookupIds(count: number, n: number): number[] {
  let x = 12345;
  return Array.from({ length: count }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return (x % n) + 1;
  });
}

/** The pragmas tempest's SQLite driver sets on a file database, set on every library's connection alike. */
function tune(db: Database.Database): Database.Database {
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  return db;
}

/**
 * A library's way of doing each operation. The bulk operations (insertAll, scans) are left out by the
 * prepared-statement lanes, which differ from their library's plain lane only in the row-at-a-time
 * operations (insertEach, lookup).
 */
interface Contender {
  readonly name: string;
  reset(): Promise<void> | void;
  insertAll?(rows: readonly ItemRow[]): Promise<unknown> | unknown;
  /** Every row in an INSERT of its own, all in one transaction. */
  insertEach(rows: readonly ItemRow[]): Promise<unknown> | unknown;
  scanAll?(): Promise<unknown[]> | unknown[];
  filterScan?(): Promise<unknown[]> | unknown[];
  lookup(id: number): Promise<unknown> | unknown;
  close(): Promise<void> | void;
}

const TEMPEST_PREPARED = "tempest: engine.prepare";
const DRIZZLE_PREPARED = "drizzle: .prepare()";

export async function sqliteCrud(quick: boolean): Promise<SectionResult> {
  const n = quick ? 500 : 20_000;
  const lookups = quick ? 100 : 1_000;
  const rounds = quick ? 2 : 15;
  const dir = mkdtempSync(join(tmpdir(), "tempest-bench-sqlite-"));
  const rows = makeRows(n);
  const ids = lookupIds(lookups, n);

  // raw better-sqlite3: prepared statements, prepared once.
  const rawDb = tune(new Database(join(dir, "raw.db")));
  rawDb.exec(DDL);
  const rawInsert = rawDb.prepare(`INSERT INTO ${TABLE} (${COLUMNS.join(", ")}) VALUES ${Array(CHUNK).fill("(?, ?, ?, ?, ?)").join(", ")}`);
  const rawScan = rawDb.prepare(`SELECT id, name, category, qty, price FROM ${TABLE}`);
  const rawFilter = rawDb.prepare(`SELECT id, name, category, qty, price FROM ${TABLE} WHERE category = ? AND qty > ?`);
  const rawGet = rawDb.prepare(`SELECT id, name, category, qty, price FROM ${TABLE} WHERE id = ?`);
  const rawInsertOne = rawDb.prepare(`INSERT INTO ${TABLE} (${COLUMNS.join(", ")}) VALUES (?, ?, ?, ?, ?)`);
  const rawInsertEach = rawDb.transaction((all: readonly ItemRow[]) => {
    for (const r of all) rawInsertOne.run(r.id, r.name, r.category, r.qty, r.price);
  });
  const rawInsertAll = rawDb.transaction((all: readonly ItemRow[]) => {
    for (let i = 0; i < all.length; i += CHUNK) {
      const params: unknown[] = [];
      for (const r of all.slice(i, i + CHUNK)) params.push(r.id, r.name, r.category, r.qty, r.price);
      rawInsert.run(params);
    }
  });

  const engine = createEngine(`sqlite://${join(dir, "tempest.db")}`);
  await engine.execute(sql.raw(DDL)).rowsAffected();
  // What an application writes to run one statement shape many times: built and compiled once.
  const insertItem = engine.prepare({ id: "integer", name: "text", category: "text", qty: "integer", price: "real" }, (p) =>
    insert(Item).values({ id: p.id, name: p.name, category: p.category, qty: p.qty, price: p.price }),
  );
  const itemById = engine.prepare({ id: "integer" }, (p) => select(Item).where({ id: p.id }));

  const drizzleDb = drizzle(tune(new Database(join(dir, "drizzle.db"))));
  drizzleDb.run(DDL);
  const drizzleInsertOne = drizzleDb
    .insert(drizzleItems)
    .values({
      id: dsql.placeholder("id"),
      name: dsql.placeholder("name"),
      category: dsql.placeholder("category"),
      qty: dsql.placeholder("qty"),
      price: dsql.placeholder("price"),
    })
    .prepare();
  const drizzleById = drizzleDb
    .select()
    .from(drizzleItems)
    .where(deq(drizzleItems.id, dsql.placeholder("id")))
    .prepare();

  const kyselyDb = new Kysely<{ bench_items: ItemRow }>({
    dialect: new SqliteDialect({ database: tune(new Database(join(dir, "kysely.db"))) }),
  });
  await kyselyDb.executeQuery(sqlCompiled(DDL));

  const contenders: Contender[] = [
    {
      name: "better-sqlite3 (raw)",
      reset: () => void rawDb.exec(`DELETE FROM ${TABLE}`),
      insertAll: (all) => rawInsertAll(all),
      insertEach: (all) => rawInsertEach(all),
      scanAll: () => rawScan.all(),
      filterScan: () => rawFilter.all("c3", 500),
      lookup: (id) => rawGet.get(id),
      close: () => void rawDb.close(),
    },
    {
      name: "tempest",
      reset: async () => void (await engine.execute(sql.raw(`DELETE FROM ${TABLE}`)).rowsAffected()),
      insertAll: (all) =>
        engine.transaction(async (tx) => {
          for (let i = 0; i < all.length; i += CHUNK) await tx.execute(insert(Item).values(all.slice(i, i + CHUNK))).rowsAffected();
        }),
      insertEach: (all) =>
        engine.transaction(async (tx) => {
          for (const r of all) await tx.execute(insert(Item).values(r)).rowsAffected();
        }),
      scanAll: () => engine.execute(select(Item)).all(),
      filterScan: () => engine.execute(select(Item).where({ category: "c3", qty: { gt: 500 } })).all(),
      lookup: (id) => engine.execute(select(Item).where({ id })).first(),
      close: () => engine.close(),
    },
    {
      name: TEMPEST_PREPARED,
      reset: async () => void (await engine.execute(sql.raw(`DELETE FROM ${TABLE}`)).rowsAffected()),
      insertEach: (all) =>
        engine.transaction(async (tx) => {
          for (const r of all) await insertItem.execute(r, tx).rowsAffected();
        }),
      lookup: (id) => itemById.execute({ id }).first(),
      close: () => {}, // the tempest lane closes the engine
    },
    {
      name: "drizzle",
      reset: () => void drizzleDb.delete(drizzleItems).run(),
      insertAll: (all) =>
        drizzleDb.transaction((tx) => {
          for (let i = 0; i < all.length; i += CHUNK)
            tx.insert(drizzleItems)
              .values(all.slice(i, i + CHUNK))
              .run();
        }),
      insertEach: (all) =>
        drizzleDb.transaction((tx) => {
          for (const r of all) tx.insert(drizzleItems).values(r).run();
        }),
      scanAll: () => drizzleDb.select().from(drizzleItems).all(),
      filterScan: () =>
        drizzleDb
          .select()
          .from(drizzleItems)
          .where(dand(deq(drizzleItems.category, "c3"), dgt(drizzleItems.qty, 500)))
          .all(),
      lookup: (id) => drizzleDb.select().from(drizzleItems).where(deq(drizzleItems.id, id)).get(),
      close: () => void drizzleDb.$client.close(),
    },
    {
      name: DRIZZLE_PREPARED,
      reset: () => void drizzleDb.delete(drizzleItems).run(),
      // Drizzle's transaction on better-sqlite3 runs its callback synchronously; the prepared query runs on the same connection.
      insertEach: (all) =>
        drizzleDb.transaction(() => {
          for (const r of all) drizzleInsertOne.run(r as unknown as Record<string, unknown>);
        }),
      lookup: (id) => drizzleById.get({ id }),
      close: () => {}, // the drizzle lane closes the database
    },
    {
      name: "kysely",
      reset: async () => void (await kyselyDb.deleteFrom(TABLE).execute()),
      insertAll: (all) =>
        kyselyDb.transaction().execute(async (trx) => {
          for (let i = 0; i < all.length; i += CHUNK)
            await trx
              .insertInto(TABLE)
              .values(all.slice(i, i + CHUNK))
              .execute();
        }),
      insertEach: (all) =>
        kyselyDb.transaction().execute(async (trx) => {
          for (const r of all) await trx.insertInto(TABLE).values(r).execute();
        }),
      scanAll: () => kyselyDb.selectFrom(TABLE).selectAll().execute(),
      filterScan: () => kyselyDb.selectFrom(TABLE).selectAll().where("category", "=", "c3").where("qty", ">", 500).execute(),
      lookup: (id) => kyselyDb.selectFrom(TABLE).selectAll().where("id", "=", id).executeTakeFirst(),
      close: () => kyselyDb.destroy(),
    },
  ];

  // Each library must return the same rows before any of them is timed.
  const expectedFilter = rows.filter((r) => r.category === "c3" && r.qty > 500).length;
  for (const c of contenders) {
    await c.reset();
    await c.insertEach(rows);
    const one = (await c.lookup(ids[0] as number)) as ItemRow;
    const bulk = c.insertAll && c.scanAll && c.filterScan;
    if (bulk) {
      await c.reset();
      await c.insertAll?.(rows);
    }
    const all = bulk ? await c.scanAll?.() : undefined;
    const filtered = bulk ? await c.filterScan?.() : undefined;
    if ((bulk && (all?.length !== n || filtered?.length !== expectedFilter)) || one?.id !== ids[0] || one.name !== `item ${ids[0]}`) {
      throw new Error(`${c.name}: wrong results (${all?.length} rows, ${filtered?.length} filtered, lookup ${JSON.stringify(one)})`);
    }
  }
  // The prepared lanes share a database with their library's plain lane, which the last check filled.

  /** Each operation, and the lanes it is measured on (a lane lacking the operation is left out). */
  const bulkOnly = (c: Contender) => c.insertAll !== undefined;
  const everyLane = () => true;
  const ops: [string, (c: Contender) => boolean, (c: Contender) => Promise<number>, string][] = [
    [
      `insert ${n.toLocaleString("en-US")} rows in one transaction (${CHUNK}-row INSERTs)`,
      bulkOnly,
      (c) =>
        time(
          () => c.insertAll?.(rows),
          () => c.reset(),
        ),
      "tempest",
    ],
    [
      `insert ${n.toLocaleString("en-US")} rows one at a time (single-row INSERTs) in one transaction`,
      everyLane,
      (c) =>
        time(
          () => c.insertEach(rows),
          () => c.reset(),
        ),
      TEMPEST_PREPARED,
    ],
    [`scan all ${n.toLocaleString("en-US")} rows`, bulkOnly, (c) => time(() => c.scanAll?.()), "tempest"],
    [`filter scan (category = 'c3' AND qty > 500: ${expectedFilter} rows)`, bulkOnly, (c) => time(() => c.filterScan?.()), "tempest"],
    [
      `${lookups.toLocaleString("en-US")} primary-key lookups, one query each`,
      everyLane,
      (c) =>
        time(async () => {
          for (const id of ids) await c.lookup(id);
        }),
      TEMPEST_PREPARED,
    ],
  ];

  const groups: Group[] = [];
  for (const [title, has, op, tempest] of ops) {
    const lanes = contenders.filter(has);
    for (const c of lanes) await op(c); // warm-up
    const times = new Map<string, number[]>(lanes.map((c) => [c.name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const c of lanes) times.get(c.name)?.push((await op(c)) as number);
    }
    const groupRows: Row[] = lanes.map((c) => ({ name: c.name, value: median(times.get(c.name) ?? []), unit: "ms" }));
    const value = (name: string) => groupRows.find((r) => r.name === name)?.value as number;
    const checks = [
      check(`${tempest} ÷ raw`, value(tempest) / value("better-sqlite3 (raw)"), "≤", 1.5),
      check(`${tempest} ÷ drizzle`, value(tempest) / value("drizzle"), "≤", 1),
      check(`${tempest} ÷ kysely`, value(tempest) / value("kysely"), "≤", 1),
    ];
    if (tempest !== "tempest") {
      checks.push(check(`${tempest} ÷ ${DRIZZLE_PREPARED}`, value(tempest) / value(DRIZZLE_PREPARED), "≤", 1));
      // The plain builders on the same row-at-a-time work (their SQL text cached by shape).
      checks.push(check("tempest ÷ raw", value("tempest") / value("better-sqlite3 (raw)"), "≤", 1.5));
    }
    groups.push({ title: `${title}, ms`, rows: groupRows, baselines: ["better-sqlite3 (raw)"], checks, notes: [] });
  }
  // After the last insert round the tables hold the data again; leave nothing behind.
  for (const c of contenders) await c.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    id: "sqlite-crud",
    title: `4. SQLite (file, WAL, synchronous=NORMAL), ${n.toLocaleString("en-US")} rows: median of ${rounds} rounds`,
    groups: groups.map((g, i) =>
      i === 0
        ? {
            ...g,
            notes: [
              "Every library writes the same 100-row INSERT statements inside one transaction; raw uses one prepared statement for them.",
              "Rows come back as objects everywhere; tempest, Drizzle and Kysely build each query afresh per call, as an application does (tempest then reuses the SQL text of a statement shape it compiled before).",
              `The single-row insert and the lookups also run prepared: "${TEMPEST_PREPARED}" (built and compiled once, each value checked per call) and "${DRIZZLE_PREPARED}" (sql.placeholder); Kysely has no prepared statements.`,
            ],
          }
        : g,
    ),
  };
}

async function time(fn: () => unknown, setup?: () => unknown): Promise<number> {
  const [ms] = await sample(1, fn, { warmup: 0, setup });
  return ms as number;
}

function sqlCompiled(text: string) {
  return { sql: text, parameters: [], query: { kind: "RawNode" as const, sqlFragments: [text], parameters: [] } } as never;
}
