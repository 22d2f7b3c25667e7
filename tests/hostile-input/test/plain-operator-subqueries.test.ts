import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine, Executable, QueryEvent } from "tempest-db-js";
import {
  column,
  createEngine,
  cte,
  deleteFrom,
  exists,
  insert,
  Model,
  not,
  notExists,
  op,
  or,
  scalar,
  select,
  sql,
  update,
  ValidationError,
} from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { MYSQL_URL, PG_URL } from "./support/targets.js";

/**
 * A forged `{ "ne": ... }` from a request body is refused by a helpers-only engine wherever its where
 * sits: in a subquery used as a value (BETWEEN bounds, an IN list, an `sql.expr` hole, a SET value,
 * an upsert's set), a CTE, a join, a set operation. Each statement below returns rows (or changes
 * them) on a plain-objects engine, where the honest value matches none.
 */
class Account extends Model {
  static tablename = "tempest_bypass_accounts";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  owner = column.text().notNull();
  total = column.integer().notNull();
}

class Ledger extends Model {
  static tablename = "tempest_bypass_ledger";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  customer = column.text().notNull();
  amount = column.integer().notNull();
}

const sqliteDir = mkdtempSync(join(tmpdir(), "tempest-bypass-"));
const databases = [
  { name: "PostgreSQL", url: PG_URL },
  { name: "MariaDB", url: MYSQL_URL },
  { name: "SQLite", url: `sqlite://${join(sqliteDir, "bypass.db")}` },
];

const ACCOUNTS = [
  { id: 1, owner: "alice", total: 10 },
  { id: 2, owner: "bob", total: 20 },
  { id: 3, owner: "carol", total: 30 },
];
const LEDGER = [
  { id: 1, customer: "alice", amount: 10 },
  { id: 2, customer: "bob", amount: 20 },
];

type Where = Record<string, unknown>;
const FORGED: Where = JSON.parse('{"customer": {"ne": "nobody"}}');
const HONEST: Where = { customer: "nobody" };

/** The smallest amount of the ledger rows `where` picks: one value, as a scalar subquery. */
const lowest = (where: Where) =>
  scalar(
    select(Ledger)
      .columns((q) => ({ m: q.min("amount") }))
      .where(where),
  );
const ledgerRows = (where: Where) => select(Ledger, ["id"]).where(where);

/** Selects of Account whose rows a forged where widens. */
const SELECTS: [string, (where: Where) => Executable<unknown>][] = [
  ["op.between(scalar(...), ...)", (w) => select(Account, ["id"]).where({ total: op.between(lowest(w), 1000) })],
  ["op.in([scalar(...)])", (w) => select(Account, ["id"]).where({ total: op.in([lowest(w) as never]) })],
  ["op.gte(scalar(...))", (w) => select(Account, ["id"]).where({ total: op.gte(lowest(w)) })],
  ["sql.expr holding exists()", (w) => select(Account, ["id"]).where(sql.expr`${exists(ledgerRows(w))}`)],
  ["sql.expr holding scalar()", (w) => select(Account, ["id"]).where(sql.expr`total >= ${lowest(w)}`)],
  ["sql.expr nested in sql.expr", (w) => select(Account, ["id"]).where(sql.expr`(${sql.expr`${exists(ledgerRows(w))}`})`)],
  ["or(not(notExists(...)))", (w) => select(Account, ["id"]).where(or({ id: 0 }, not(notExists(ledgerRows(w)))))],
  [
    "a projection's scalar()",
    (w) =>
      select(Account)
        .columns({ m: lowest(w) })
        .where(sql.expr`${lowest(w)} IS NOT NULL`),
  ],
  [
    "a CTE's where",
    (w) => {
      const picked = cte("picked", select(Ledger, ["id", "customer"]).where(w));
      return select(picked, ["id"]);
    },
  ],
  [
    "a join's on",
    (w) =>
      select(Account, "a")
        .innerJoin(Ledger, "l", sql.expr`${exists(ledgerRows(w))}`)
        .columns({ id: "a.id" }),
  ],
  [
    "a set operation's part",
    (w) =>
      select(Account, ["id"])
        .where({ id: 0 })
        .union(select(Ledger, ["id"]).where(w)),
  ],
];

/** Writes that a forged where in a subquery turns into writes of every row. */
const WRITES: [string, (where: Where) => Executable<unknown>][] = [
  [
    "update().set({ x: scalar(...) })",
    (w) =>
      update(Account)
        .set({ total: lowest(w) })
        .where({ id: 1 }),
  ],
  [
    "update().where(sql.expr exists)",
    (w) =>
      update(Account)
        .set({ total: 0 })
        .where(sql.expr`${exists(ledgerRows(w))}`),
  ],
  ["deleteFrom().where({ id: op.in([scalar(...)]) })", (w) => deleteFrom(Account).where({ total: op.in([lowest(w) as never]) })],
  [
    "an upsert's set (ON CONFLICT)",
    (w) =>
      insert(Account)
        .values({ id: 1, owner: "alice", total: 1 })
        .onConflictDoUpdate(["id"], { total: lowest(w) }),
  ],
  [
    "an upsert's set (ON DUPLICATE KEY)",
    (w) =>
      insert(Account)
        .values({ id: 1, owner: "alice", total: 1 })
        .onDuplicateKeyUpdate({ total: lowest(w) }),
  ],
];

describe.each(databases)("$name: a plain operator in a nested where is refused on a helpers-only engine", ({ url }) => {
  let strict: Engine;
  let plain: Engine;
  const sent: QueryEvent[] = [];

  beforeAll(async () => {
    plain = createEngine(url, { poolSize: 2 });
    strict = createEngine(url, { poolSize: 2, operators: "helpers-only", onQuery: (event) => sent.push(event) });
    await plain.dropAll([Account, Ledger]);
    await plain.createAll([Account, Ledger]);
    await plain.execute(insert(Account).values(ACCOUNTS)).rowsAffected();
    await plain.execute(insert(Ledger).values(LEDGER)).rowsAffected();
  });

  afterAll(async () => {
    await plain.dropAll([Account, Ledger]);
    await plain.close();
    await strict.close();
  });

  it.each(SELECTS)("%s: refused before anything is sent, where the forged body would widen the result", async (_, build) => {
    const widened = await plain.execute(build(FORGED)).all();
    expect(widened.length).toBeGreaterThan(0);
    expect(await strict.execute(build(HONEST)).all()).toEqual([]);
    sent.length = 0;
    expect(() => strict.execute(build(FORGED))).toThrow(ValidationError);
    expect(() => strict.execute(build(FORGED))).toThrow(/Ledger\.customer.*"ne" came from a plain object/);
    expect(() => strict.stream(build(FORGED) as never)).toThrow(ValidationError);
    expect(() => strict.prepare({}, () => build(FORGED) as never)).toThrow(ValidationError);
    expect(sent).toEqual([]);
  });

  it.each(WRITES)("%s: refused before anything is sent", async (_, build) => {
    sent.length = 0;
    expect(() => strict.execute(build(FORGED))).toThrow(/Ledger\.customer.*"ne" came from a plain object/);
    expect(() => strict.prepare({}, () => build(FORGED) as never)).toThrow(ValidationError);
    expect(sent).toEqual([]);
    expect(await plain.execute(select(Account).orderBy("id")).all()).toEqual(ACCOUNTS);
  });
});

afterAll(() => {
  rmSync(sqliteDir, { recursive: true, force: true });
});
