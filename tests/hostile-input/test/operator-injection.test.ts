import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import type { Engine, QueryEvent } from "tempest-db-js";
import { column, createEngine, deleteFrom, insert, Model, op, select, sql, update, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { MYSQL_URL, PG_URL } from "./support/targets.js";

/**
 * A request body decides the value of a where field. Whatever JSON it holds, through `op.eq` (on any
 * engine) or as is on a helpers-only engine, it can match at most the rows equal to one scalar: never
 * widen the query to other customers' rows. Real servers; tables in each engineer's own database.
 */
class Order extends Model {
  static tablename = "tempest_injection_orders";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  customer = column.text().notNull();
  coupon = column.text();
  total = column.integer().notNull();
}

const sqliteDir = mkdtempSync(join(tmpdir(), "tempest-injection-"));
const databases = [
  { name: "PostgreSQL", url: PG_URL },
  { name: "MariaDB", url: MYSQL_URL },
  { name: "SQLite", url: `sqlite://${join(sqliteDir, "injection.db")}` },
];

const ROWS = [
  { id: 1, customer: "alice", coupon: null, total: 10 },
  { id: 2, customer: "bob", coupon: "WELCOME", total: 20 },
  { id: 3, customer: "carol", coupon: null, total: 30 },
];

/** The bodies that widened a query before the helpers: every operator of the where language, and null. */
const FORGED = [
  '{"customer": {"ne": "nobody"}}',
  '{"customer": {"like": "%"}}',
  '{"customer": {"ilike": "%"}}',
  '{"customer": {"gt": ""}}',
  '{"customer": {"gte": ""}}',
  '{"customer": {"lt": "~"}}',
  '{"customer": {"lte": "~"}}',
  '{"customer": {"notIn": []}}',
  '{"customer": {"in": ["alice", "bob", "carol"]}}',
  '{"customer": {"between": ["", "~"]}}',
  '{"customer": {"isNull": false}}',
  '{"customer": {"eq": "alice", "ne": "x"}}',
  '{"coupon": null}',
  '{"coupon": {"eq": null}}',
];

describe.each(databases)("$name: a request body cannot widen a where", ({ url }) => {
  let strict: Engine;
  let plain: Engine;
  const sent: QueryEvent[] = [];

  beforeAll(async () => {
    plain = createEngine(url, { poolSize: 2, operators: "plain-objects" });
    strict = createEngine(url, { poolSize: 2, operators: "helpers-only", onQuery: (event) => sent.push(event) });
    await plain.dropAll([Order]);
    await plain.createAll([Order]);
    await plain.execute(insert(Order).values(ROWS)).rowsAffected();
  });

  afterAll(async () => {
    await plain.dropAll([Order]);
    await plain.close();
    await strict.close();
  });

  it.each(FORGED)("%s: refused on a helpers-only engine before anything is sent; op.eq refuses it everywhere", async (json) => {
    const body = JSON.parse(json) as Record<string, unknown>;
    const [field] = Object.keys(body) as ["customer" | "coupon"];
    sent.length = 0;
    // Default engine: the plain object is an operator (the guide's form), which is the hole.
    const widened = await plain.execute(select(Order, ["id"]).where(body)).all();
    expect(widened.length).toBeGreaterThan(0);
    // helpers-only: select, update and delete are refused synchronously, naming the field.
    expect(() => strict.execute(select(Order).where(body))).toThrow(ValidationError);
    expect(() => strict.execute(select(Order).where(body))).toThrow(new RegExp(`Order\\.${field}`));
    expect(() => strict.execute(update(Order).set({ total: 0 }).where(body))).toThrow(ValidationError);
    expect(() => strict.execute(deleteFrom(Order).where(body))).toThrow(ValidationError);
    expect(sent).toEqual([]);
    // op.eq reads the body's value as a value: an object or null is refused while building.
    expect(() => select(Order).where({ [field]: op.eq(body[field]) })).toThrow(ValidationError);
    // Nothing changed.
    expect(await plain.execute(select(Order).orderBy("id")).all()).toEqual(ROWS);
  });

  it("any JSON value through op.eq matches only rows equal to it, on every engine (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), fc.constantFrom(...FORGED.map((j) => Object.values(JSON.parse(j))[0]))), async (value) => {
        let statement: ReturnType<typeof select<typeof Order, readonly ["id"]>>;
        try {
          statement = select(Order, ["id"]).where({ customer: op.eq(value as string) });
        } catch (error) {
          expect(ValidationError.isInstance(error)).toBe(true);
          expect(typeof value === "string").toBe(false);
          return;
        }
        expect(typeof value).toBe("string");
        const found = await strict.execute(statement).all();
        expect(found).toEqual(ROWS.filter((row) => row.customer === value).map((row) => ({ id: row.id })));
      }),
      { numRuns: process.env.CI ? 40 : 200 },
    );
  });

  it("the helpers and plain values still work on a helpers-only engine", async () => {
    const ids = async (q: ReturnType<typeof select<typeof Order, readonly ["id"]>>) =>
      (await strict.execute(q.orderBy("id")).all()).map((r) => r.id);
    expect(await ids(select(Order, ["id"]).where({ customer: "bob" }))).toEqual([2]);
    expect(await ids(select(Order, ["id"]).where({ customer: op.ne("bob") }))).toEqual([1, 3]);
    expect(await ids(select(Order, ["id"]).where({ coupon: op.isNull() }))).toEqual([1, 3]);
    expect(await ids(select(Order, ["id"]).where({ total: op.between(15, 35), customer: op.in(["bob", "carol"]) }))).toEqual([2, 3]);
    expect(await ids(select(Order, ["id"]).where({ customer: op.like("a%") }))).toEqual([1]);
    expect(await ids(select(Order, ["id"]).where(sql.expr`total > ${15}`))).toEqual([2, 3]);
  });
});

afterAll(() => {
  rmSync(sqliteDir, { recursive: true, force: true });
});
