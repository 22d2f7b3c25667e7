import { describe, expect, test } from "vitest";
import { defineCapabilities, select, ValidationError } from "../src/index.js";
import { ConformanceCustomer as Customer, ConformanceOrder as Order } from "../src/testing/index.js";
import { refusal } from "./support/refusal.js";
import { fullCapabilities, testEngine } from "./support/test-dialect.js";

const engine = testEngine();
// SQLite's table: no INTERSECT/EXCEPT ALL, no parenthesized parts.
const sqliteLike = testEngine(
  defineCapabilities({ ...fullCapabilities, intersectAll: false, exceptAll: false, parenthesizedSetParts: false }),
);
const ORDERS = `"tempest_conformance_orders"`;
const ids = (status: "open" | "paid" | "shipped") => select(Order, ["id"]).where({ status });

describe("set operations compile", () => {
  test("each operator, with and without ALL", () => {
    const part = (s: string) => `SELECT "id" FROM ${ORDERS} WHERE "status" = ?${s}`;
    expect(engine.compile(ids("open").union(ids("paid")))).toMatchObject({
      sql: `${part("")} UNION ${part("")}`,
      params: ["open", "paid"],
      kind: "compound",
    });
    expect(engine.compile(ids("open").unionAll(ids("paid"))).sql).toBe(`${part("")} UNION ALL ${part("")}`);
    expect(engine.compile(ids("open").intersect(ids("paid"))).sql).toBe(`${part("")} INTERSECT ${part("")}`);
    expect(engine.compile(ids("open").intersectAll(ids("paid"))).sql).toBe(`${part("")} INTERSECT ALL ${part("")}`);
    expect(engine.compile(ids("open").except(ids("paid"))).sql).toBe(`${part("")} EXCEPT ${part("")}`);
    expect(engine.compile(ids("open").exceptAll(ids("paid"))).sql).toBe(`${part("")} EXCEPT ALL ${part("")}`);
  });

  test("ORDER BY of the result reads it as a derived table (enum order, NULL largest); LIMIT alone does not", () => {
    const q = select(Order, ["id", "status", "customerId"]).union(select(Order, ["id", "status", "customerId"]));
    const cols = `"id", "status", "customer_id"`;
    const inner = `SELECT ${cols} FROM ${ORDERS} UNION SELECT ${cols} FROM ${ORDERS}`;
    expect(engine.compile(q.orderBy("status").orderBy("customerId", "desc").limit(2).offset(1)).sql).toBe(
      `SELECT ${cols} FROM (${inner}) AS "tempest_set" ORDER BY CASE "status" WHEN 'open' THEN 0 WHEN 'paid' THEN 1 WHEN 'shipped' THEN 2 END ASC, "customer_id" DESC NULLS FIRST LIMIT 2 OFFSET 1`,
    );
    expect(engine.compile(q.limit(2)).sql).toBe(`${inner} LIMIT 2`);
    expect(engine.compile(q.orderBy("id", "asc", { nulls: "first" })).sql).toMatch(/ORDER BY "id" ASC NULLS FIRST$/);
  });

  test("a part with LIMIT: parenthesized, or (SQLite) read from a derived table", () => {
    const top = select(Order, ["id"]).orderBy("total", "desc").limit(1);
    const topSql = `SELECT "id" FROM ${ORDERS} ORDER BY "total" DESC LIMIT 1`;
    expect(engine.compile(top.unionAll(ids("open"))).sql).toBe(`(${topSql}) UNION ALL SELECT "id" FROM ${ORDERS} WHERE "status" = ?`);
    expect(sqliteLike.compile(top.unionAll(ids("open"))).sql).toBe(
      `SELECT "id" FROM (${topSql}) AS "tempest_part" UNION ALL SELECT "id" FROM ${ORDERS} WHERE "status" = ?`,
    );
  });

  test("grouping follows the calls: a right-hand set operation, and a UNION under INTERSECT, are derived tables", () => {
    const a = ids("open");
    const b = ids("paid");
    const c = ids("shipped");
    const part = `SELECT "id" FROM ${ORDERS} WHERE "status" = ?`;
    expect(engine.compile(a.union(b).intersect(c)).sql).toBe(`SELECT "id" FROM (${part} UNION ${part}) AS "tempest_set" INTERSECT ${part}`);
    expect(engine.compile(a.intersect(b).union(c)).sql).toBe(`${part} INTERSECT ${part} UNION ${part}`);
    expect(engine.compile(a.except(b.union(c))).sql).toBe(`${part} EXCEPT SELECT "id" FROM (${part} UNION ${part}) AS "tempest_set"`);
    expect(engine.compile(a.union(b).limit(1).union(c)).sql).toBe(
      `SELECT "id" FROM (${part} UNION ${part} LIMIT 1) AS "tempest_set" UNION ${part}`,
    );
  });

  test("INTERSECT ALL / EXCEPT ALL refused by name where the database lacks them", () => {
    const intersect = refusal(() => sqliteLike.compile(ids("open").intersectAll(ids("paid"))));
    expect([intersect.dialect, intersect.feature]).toEqual(["TestSQL", "INTERSECT ALL"]);
    expect(intersect.hint).toMatch(/intersect\(\)/);
    expect(refusal(() => sqliteLike.compile(ids("open").exceptAll(ids("paid")))).feature).toBe("EXCEPT ALL");
    const old = testEngine(defineCapabilities({ ...fullCapabilities, intersectExcept: false }));
    expect(refusal(() => old.compile(ids("open").except(ids("paid")))).feature).toBe("EXCEPT");
  });

  test("refused at build on every dialect: locks, mismatched outputs, unordered ORDER BY in a part, joined rows", () => {
    expect(() => ids("open").forUpdate().union(ids("paid"))).toThrow(/cannot lock its rows/);
    expect(() => ids("open").union(ids("paid").forShare())).toThrow(ValidationError);
    expect(() => ids("open").union(select(Order, ["id", "total"]) as never)).toThrow(/different outputs/);
    const totals = select(Order, "o").columns({ v: "o.total" });
    expect(() => totals.union(select(Customer, "c").columns({ v: "c.name" }) as never)).toThrow(
      /"v" is integer in the first part and text/,
    );
    expect(() => ids("open").orderBy("id").union(ids("paid"))).toThrow(/does not order the result/);
    const joined = select(Order, "o").innerJoin(Customer, "c", "c.id", "o.customerId");
    expect(() => joined.union(joined)).toThrow(/\.columns/);
    expect(() => ids("open").union({} as never)).toThrow(ValidationError);
  });

  test("outputs: the first part's names, nullable where either part is", () => {
    const q = select(Order, "o")
      .columns({ id: "o.id" })
      .union(select(Customer, "c").columns({ id: "c.referredBy" }));
    const compiled = engine.compile(q);
    expect(compiled.columns?.map((c) => [c.field, c.notNull])).toEqual([["id", false]]);
  });
});
