import { describe, expect, test } from "vitest";
import { cte, cteRecursive, defineCapabilities, deleteFrom, exists, insert, ref, select, update, ValidationError } from "../src/index.js";
import { ConformanceCustomer as Customer, ConformanceOrder as Order } from "../src/testing/index.js";
import { refusal } from "./support/refusal.js";
import { fullCapabilities, testEngine } from "./support/test-dialect.js";

const engine = testEngine();
const bare = testEngine(
  defineCapabilities({ ...fullCapabilities, ctes: true, recursiveCtes: false, cteMaterialized: false, dataModifyingCtes: false }),
);
const none = testEngine(defineCapabilities({ ...fullCapabilities, ctes: false }));
const paid = () =>
  cte("paid", select(Order, "o").columns({ id: "o.id", customerId: "o.customerId", total: "o.total" }).where({ "o.status": "paid" }));
const PAID = `"paid" AS (SELECT "o"."id" AS "id", "o"."customer_id" AS "customerId", "o"."total" AS "total" FROM "tempest_conformance_orders" AS "o" WHERE "o"."status" = ?)`;

describe("WITH is written for the CTEs a statement reads", () => {
  test("select from a CTE: its columns by their output names", () => {
    expect(engine.compile(select(paid()).where({ total: { gt: 100 } }))).toMatchObject({
      sql: `WITH ${PAID} SELECT "id", "customerId", "total" FROM "paid" WHERE "total" > ?`,
      params: ["paid", 100],
      kind: "select",
    });
  });

  test("a CTE joined under an alias, and read again in a subquery without a second WITH", () => {
    const p = paid();
    const q = select(Customer, "c")
      .innerJoin(p, "p", "p.customerId", "c.id")
      .where(exists(select(p, "x").where({ "x.total": { gte: 1000 } })))
      .columns({ name: "c.name", total: "p.total" });
    expect(engine.compile(q).sql).toBe(
      `WITH ${PAID} SELECT "c"."name" AS "name", "p"."total" AS "total" FROM "tempest_conformance_customers" AS "c" INNER JOIN "paid" AS "p" ON "p"."customerId" = "c"."id" WHERE (EXISTS (SELECT "x"."id", "x"."customerId", "x"."total" FROM "paid" AS "x" WHERE "x"."total" >= ?))`,
    );
  });

  test("a subquery reading a CTE the statement does not declares its own WITH", () => {
    const q = select(Customer).where({ id: { in: select(paid(), ["customerId"]) } });
    expect(engine.compile(q).sql).toBe(
      `SELECT "id", "name", "referred_by", "created_at" FROM "tempest_conformance_customers" WHERE "id" IN (WITH ${PAID} SELECT "customerId" FROM "paid")`,
    );
  });

  test("a CTE over another is declared after it, each once", () => {
    const p = paid();
    const big = cte(
      "big",
      select(p, "p")
        .columns({ id: "p.id" })
        .where({ "p.total": { gt: 1000 } }),
    );
    expect(engine.compile(select(big, "b").innerJoin(p, "p", "p.id", "b.id")).sql).toBe(
      `WITH ${PAID}, "big" AS (SELECT "p"."id" AS "id" FROM "paid" AS "p" WHERE "p"."total" > ?) SELECT "b"."id", "p"."id", "p"."customerId", "p"."total" FROM "big" AS "b" INNER JOIN "paid" AS "p" ON "p"."id" = "b"."id"`,
    );
  });

  test("WITH RECURSIVE, UNION ALL by default and UNION on request", () => {
    const anchor = select(Customer, "c").columns({ id: "c.id" }).where({ "c.referredBy": null });
    const step = (self: any) => select(Customer, "c").innerJoin(self, "t", "t.id", "c.referredBy").columns({ id: "c.id" });
    const tree = cteRecursive("tree", anchor, step);
    const body = `SELECT "c"."id" AS "id" FROM "tempest_conformance_customers" AS "c" WHERE "c"."referred_by" IS NULL UNION ALL SELECT "c"."id" AS "id" FROM "tempest_conformance_customers" AS "c" INNER JOIN "tree" AS "t" ON "t"."id" = "c"."referred_by"`;
    expect(engine.compile(select(tree)).sql).toBe(`WITH RECURSIVE "tree" AS (${body}) SELECT "id" FROM "tree"`);
    const distinct = cteRecursive("tree", anchor, step, { union: "distinct" });
    expect(engine.compile(select(distinct)).sql).toContain(" UNION SELECT ");
  });

  test("MATERIALIZED / NOT MATERIALIZED, refused by name without the capability", () => {
    const once = cte("once", select(Order, ["id"]), { materialized: true });
    expect(engine.compile(select(once)).sql).toBe(
      `WITH "once" AS MATERIALIZED (SELECT "id" FROM "tempest_conformance_orders") SELECT "id" FROM "once"`,
    );
    const inline = cte("inline", select(Order, ["id"]), { materialized: false });
    expect(engine.compile(select(inline)).sql).toContain(`"inline" AS NOT MATERIALIZED (`);
    const refused = refusal(() => bare.compile(select(once)));
    expect([refused.dialect, refused.feature]).toEqual(["TestSQL", "MATERIALIZED on a CTE"]);
  });

  test("a data-modifying CTE: PostgreSQL's form, refused elsewhere and inside a subquery", () => {
    const gone = cte("gone", deleteFrom(Order).where({ status: "open" }).returning(["id"]));
    expect(engine.compile(select(gone)).sql).toBe(
      `WITH "gone" AS (DELETE FROM "tempest_conformance_orders" WHERE "status" = ? RETURNING "id") SELECT "id" FROM "gone"`,
    );
    const added = cte(
      "added",
      insert(Order)
        .values({ id: 1, status: "open", total: 1, amount: "1", createdAt: new Date(0) })
        .returning(["id"]),
    );
    expect(engine.compile(select(added)).sql).toMatch(
      /^WITH "added" AS \(INSERT INTO "tempest_conformance_orders" .* RETURNING "id"\) SELECT "id" FROM "added"$/,
    );
    expect(refusal(() => bare.compile(select(gone))).feature).toBe("a data-modifying CTE (DELETE in WITH)");
    expect(() => engine.compile(select(Order).where({ id: { in: select(gone, ["id"]) } }))).toThrow(ValidationError);
    expect(() => cte("x", update(Order).set({ total: 1 }).allRows())).toThrow(/returning/);
  });

  test("without CTEs or WITH RECURSIVE the statement is refused by name", () => {
    expect(refusal(() => none.compile(select(paid()))).feature).toBe("common table expressions (WITH)");
    const tree = cteRecursive("tree", select(Customer, ["id"]), (self) => select(self, ["id"]));
    expect(refusal(() => bare.compile(select(tree))).feature).toBe("WITH RECURSIVE");
  });

  test("validation at build: names, bodies, locks", () => {
    expect(() => cte("no good", select(Order))).toThrow(ValidationError);
    expect(() => update(paid() as never)).toThrow(/"paid" is a CTE, not a table/);
    expect(() => deleteFrom(paid() as never)).toThrow(/is a CTE/);
    expect(() => insert(paid() as never)).toThrow(/is a CTE/);
    expect(() => cte("j", select(Order, "o").innerJoin(Customer, "c", "c.id", "o.customerId"))).toThrow(/columns/);
    expect(() => select(paid()).forUpdate()).toThrow(/computed, not stored/);
    expect(() => select(Customer, "c").innerJoin(paid(), "p", "p.customerId", "c.id").forUpdate()).toThrow(/"p", the CTE "paid"/);
    expect(
      engine.compile(
        select(Customer, "c")
          .innerJoin(paid(), "p", "p.customerId", "c.id")
          .forUpdate({ of: ["c"] }),
      ).sql,
    ).toMatch(/FOR UPDATE OF "c"$/);
    const a = cte("same", select(Order, ["id"]));
    const b = cte("same", select(Customer, ["id"]));
    expect(() => engine.compile(select(a, "a").innerJoin(b, "b", "b.id", "a.id"))).toThrow(/Two different CTEs are named "same"/);
  });

  test("ref(cte, alias, field) is the CTE's column under the alias", () => {
    const p = paid();
    const q = select(Customer, "c")
      .innerJoin(p, "p", { "p.customerId": ref(Customer, "c", "id") })
      .columns({ total: ref(p, "p", "total") });
    expect(engine.compile(q).sql).toBe(
      `WITH ${PAID} SELECT "p"."total" AS "total" FROM "tempest_conformance_customers" AS "c" INNER JOIN "paid" AS "p" ON "p"."customerId" = "c"."id"`,
    );
  });
});
