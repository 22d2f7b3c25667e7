import { describe, expect, test } from "vitest";
import { defineCapabilities, op, select, sql, UnsupportedFeatureError, update, ValidationError } from "../src/index.js";
import { ConformanceCustomer as Customer, ConformanceOrder as Order } from "../src/testing/index.js";
import { fullCapabilities, testEngine } from "./support/test-dialect.js";

const engine = testEngine();
const compiled = (query: Parameters<typeof engine.compile>[0]) => {
  const { sql: text, params } = engine.compile(query);
  return { sql: text, params };
};
const perCustomer = { partitionBy: ["o.customerId"], orderBy: [["o.createdAt", "desc"], "o.id"] } as const;

describe("window functions compile", () => {
  test("rowNumber, rank and denseRank share one window; enum keys sort in declaration order, nullable keys NULL last", () => {
    const q = select(Order, "o").columns((q) => ({
      id: "o.id",
      n: q.rowNumber().over(perCustomer),
      r: q.rank().over({ orderBy: ["o.status", ["o.shippedAt", "desc"]] }),
      d: q.denseRank().over({ partitionBy: ["o.status"], orderBy: [["o.total", "asc", { nulls: "first" }]] }),
    }));
    expect(compiled(q)).toEqual({
      sql:
        'SELECT "o"."id" AS "id", ' +
        'ROW_NUMBER() OVER (PARTITION BY "o"."customer_id" ORDER BY "o"."created_at" DESC, "o"."id" ASC) AS "n", ' +
        `RANK() OVER (ORDER BY CASE "o"."status" WHEN 'open' THEN 0 WHEN 'paid' THEN 1 WHEN 'shipped' THEN 2 END ASC, "o"."shipped_at" DESC NULLS FIRST) AS "r", ` +
        'DENSE_RANK() OVER (PARTITION BY "o"."status" ORDER BY "o"."total" ASC NULLS FIRST) AS "d" ' +
        'FROM "tempest_conformance_orders" AS "o"',
      params: [],
    });
  });

  test("lag and lead: offset written in the text, the default bound with the column's encoding", () => {
    const q = select(Order, "o").columns((q) => ({
      prev: q.lag("o.total", { default: 0 }).over(perCustomer),
      later: q.lead("o.createdAt", { offset: 2 }).over(perCustomer),
      amount: q.lag("o.amount", { default: "1.5" }).over(perCustomer),
    }));
    const { sql: text, params } = compiled(q);
    expect(text).toContain('LAG("o"."total", 1, ?) OVER (PARTITION BY "o"."customer_id"');
    expect(text).toContain('LEAD("o"."created_at", 2) OVER (');
    // At the column's scale, as the column's own values read.
    expect(params).toEqual([0, "1.50"]);
  });

  test("without a default argument (MariaDB) a CASE on the same function of a constant, in the same window", () => {
    const maria = testEngine(defineCapabilities({ ...fullCapabilities, windowOffsetDefault: false }));
    const q = select(Order).columns((q) => ({ prev: q.lag("total", { default: 0 }).over({ orderBy: ["id"] }) }));
    expect(maria.compile(q).sql).toBe(
      'SELECT CASE WHEN LAG(1, 1) OVER (ORDER BY "tempest_conformance_orders"."id" ASC) IS NULL THEN ? ' +
        'ELSE LAG("total", 1) OVER (ORDER BY "tempest_conformance_orders"."id" ASC) END AS "prev" FROM "tempest_conformance_orders"',
    );
  });

  test("aggregates over a window: whole partition, running, framed; avg in double precision, numeric avg exact", () => {
    const q = select(Order, "o").columns((q) => ({
      share: q.sum("o.total").over({ partitionBy: ["o.customerId"] }),
      running: q.sum("o.total").over({ orderBy: ["o.createdAt", "o.id"] }),
      moving: q.avg("o.total").over({ orderBy: ["o.id"], frame: { rows: [{ preceding: 2 }, "currentRow"] } }),
      exact: q.avg("o.amount").over({ orderBy: ["o.id"], frame: { rows: ["unboundedPreceding", { following: 1 }] } }),
      all: q.count().over({}),
      near: q.max("o.total").over({ orderBy: ["o.total"], frame: { range: [{ preceding: 100 }, { following: 100 }] } }),
      peers: q.min("o.id").over({ orderBy: ["o.status"], frame: { groups: ["currentRow", "unboundedFollowing"] } }),
    }));
    const text = compiled(q).sql;
    expect(text).toContain('SUM("o"."total") OVER (PARTITION BY "o"."customer_id") AS "share"');
    expect(text).toContain('SUM("o"."total") OVER (ORDER BY "o"."created_at" ASC, "o"."id" ASC) AS "running"');
    expect(text).toContain(
      'AVG(CAST("o"."total" AS DOUBLE PRECISION)) OVER (ORDER BY "o"."id" ASC ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS "moving"',
    );
    const exactOver = ' OVER (ORDER BY "o"."id" ASC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING)';
    expect(text).toContain(
      `ROUND(CAST(SUM("o"."amount")${exactOver} AS DECIMAL(65, 30)) / COUNT("o"."amount")${exactOver}, 30) AS "exact"`,
    );
    expect(text).toContain('COUNT(*) OVER () AS "all"');
    expect(text).toContain('MAX("o"."total") OVER (ORDER BY "o"."total" ASC RANGE BETWEEN 100 PRECEDING AND 100 FOLLOWING) AS "near"');
    expect(text).toContain('GROUPS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS "peers"');
  });

  test("a window over groups: partitioned and ordered by grouping columns and aggregates", () => {
    const q = select(Customer, "c")
      .innerJoin(Order, "o", "o.customerId", "c.id")
      .columns((q) => ({ name: "c.name", revenue: q.sum("o.total"), place: q.rank().over({ orderBy: [[q.sum("o.total"), "desc"]] }) }))
      .groupBy("c.id", "c.name");
    expect(compiled(q).sql).toContain('RANK() OVER (ORDER BY SUM("o"."total") DESC NULLS FIRST) AS "place"');
  });

  test("the select orders by a window's key with the same NULL rule; an outer-joined key counts as nullable", () => {
    const q = select(Order, "o")
      .leftJoin(Customer, "c", "c.id", "o.customerId")
      .columns((q) => ({ id: "o.id", previous: q.lag("c.name").over({ orderBy: ["c.createdAt", "o.id"] }) }))
      .orderBy("previous")
      .orderBy("id");
    expect(compiled(q).sql).toBe(
      'SELECT "o"."id" AS "id", LAG("c"."name", 1) OVER (ORDER BY "c"."created_at" ASC NULLS LAST, "o"."id" ASC) AS "previous" ' +
        'FROM "tempest_conformance_orders" AS "o" LEFT JOIN "tempest_conformance_customers" AS "c" ON "c"."id" = "o"."customer_id" ' +
        'ORDER BY LAG("c"."name", 1) OVER (ORDER BY "c"."created_at" ASC NULLS LAST, "o"."id" ASC) ASC NULLS LAST, "o"."id" ASC',
    );
  });
});

describe("window functions refused by name", () => {
  const unsupported = (caps: Partial<typeof fullCapabilities>, build: () => Parameters<typeof engine.compile>[0], feature: RegExp) => {
    const refusing = testEngine(defineCapabilities({ ...fullCapabilities, ...caps }));
    let error: unknown;
    try {
      refusing.compile(build());
    } catch (e) {
      error = e;
    }
    expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
    expect((error as UnsupportedFeatureError).feature).toMatch(feature);
    expect((error as UnsupportedFeatureError).hint.length).toBeGreaterThan(10);
  };

  test("by the capability table: windows, GROUPS, RANGE offsets, several windows in one select", () => {
    const ranked = () => select(Order).columns((q) => ({ n: q.rowNumber().over({ orderBy: ["id"] }) }));
    unsupported({ windowFunctions: false }, ranked, /window functions/);
    unsupported(
      { windowGroups: false },
      () =>
        select(Order).columns((q) => ({
          s: q.sum("total").over({ orderBy: ["status"], frame: { groups: ["unboundedPreceding", "currentRow"] } }),
        })),
      /GROUPS/,
    );
    unsupported(
      { windowRangeOffset: false },
      () =>
        select(Order).columns((q) => ({
          s: q.sum("total").over({ orderBy: ["total"], frame: { range: [{ preceding: 5 }, "currentRow"] } }),
        })),
      /RANGE/,
    );
    const two = () => select(Order).columns((q) => ({ n: q.rowNumber().over({ orderBy: ["id"] }), all: q.count().over({}) }));
    unsupported({ windowsPerSelect: 1 }, two, /2 different windows/);
    // Functions sharing one window count once.
    const one = select(Order).columns((q) => ({ n: q.rowNumber().over({ orderBy: ["id"] }), s: q.sum("total").over({ orderBy: ["id"] }) }));
    expect(testEngine(defineCapabilities({ ...fullCapabilities, windowsPerSelect: 1 })).compile(one).sql).toContain("ROW_NUMBER()");
  });

  test("with a lock, on every dialect, when built", () => {
    const ranked = select(Order).columns((q) => ({ id: "id", n: q.rowNumber().over({ orderBy: ["id"] }) }));
    expect(() => ranked.forUpdate()).toThrow(/forUpdate\(\) cannot lock the rows behind a window function/);
    expect(() => ranked.forShare()).toThrow(/forShare\(\) cannot lock the rows behind a window function/);
    expect(() =>
      select(Order)
        .forUpdate()
        .columns((q) => ({ n: q.rank().over({ orderBy: ["id"] }) })),
    ).toThrow(ValidationError);
  });

  test("in where, having, set and join conditions", () => {
    const window = select(Order).columns((q) => ({ n: q.rowNumber().over({ orderBy: ["id"] }) }));
    let expression: unknown;
    select(Order).columns((q) => {
      expression = q.rowNumber().over({ orderBy: ["id"] });
      return { id: "id" };
    });
    expect(() => select(Order).where({ total: op.gt(expression as never) })).toThrow(/window function/);
    expect(() => select(Order).where(expression as never)).toThrow(/window function/);
    expect(() => select(Order).where(sql.expr`${expression} > 1` as never)).toThrow(/window function/);
    expect(() =>
      update(Order)
        .set({ total: expression as never })
        .allRows(),
    ).toThrow(/window function/);
    expect(() => window.having({ n: op.lte(3) })).toThrow(/having cannot filter on "n", a window function/);
  });

  test("windows that no database answers alike", () => {
    const at = (build: () => unknown, message: RegExp) => expect(build).toThrow(message);
    at(() => select(Order).columns((q) => ({ n: q.rowNumber().over({ orderBy: [] } as never) })), /needs orderBy/);
    at(() => select(Order).columns((q) => ({ n: q.lag("total").over({ partitionBy: ["status"] } as never) })), /needs orderBy/);
    at(
      () =>
        select(Order).columns((q) => ({
          n: q.rank().over({ orderBy: ["id"], frame: { rows: ["unboundedPreceding", "currentRow"] } } as never),
        })),
      /takes no frame/,
    );
    at(
      () => select(Order).columns((q) => ({ s: q.sum("total").over({ frame: { rows: ["unboundedPreceding", "currentRow"] } }) })),
      /give orderBy/,
    );
    at(
      () =>
        select(Order).columns((q) => ({ s: q.sum("total").over({ orderBy: ["id"], frame: { rows: ["currentRow", { preceding: 1 }] } }) })),
      /ends before it starts/,
    );
    at(
      () =>
        select(Order).columns((q) => ({
          s: q.sum("total").over({ orderBy: ["id"], frame: { rows: [{ preceding: 1.5 }, "currentRow"] } }),
        })),
      /non-negative integer/,
    );
    at(
      () =>
        select(Order).columns((q) => ({
          s: q.sum("total").over({ orderBy: ["shippedAt"], frame: { range: [{ preceding: 1 }, "currentRow"] } }),
        })),
      /range frame with an offset needs exactly one orderBy key/,
    );
    at(
      () => select(Order).columns((q) => ({ n: (q.countDistinct("total") as never as { over(w: unknown): never }).over({}) })),
      /over is not a function/,
    );
    at(() => select(Order).columns((q) => ({ n: q.lag("total", { offset: -1 }).over({ orderBy: ["id"] }) })), /non-negative integer/);
    at(
      () => select(Order).columns((q) => ({ n: q.lag("total", { default: "x" as never }).over({ orderBy: ["id"] }) })),
      ValidationError as never,
    );
    at(() => select(Order).columns((q) => ({ n: q.rowNumber() as never })), /expects "field", "alias.field" or an expression/);
    at(
      () => select(Order).columns((q) => ({ n: q.rowNumber().over({ orderBy: ["id"], extra: 1 } as never) })),
      /unknown window option "extra"/,
    );
  });

  test("in a grouped select, every column a window names must be grouped", () => {
    const ranked = select(Order).columns((q) => ({ status: "status", n: q.count(), place: q.rank().over({ orderBy: ["customerId"] }) }));
    expect(() => ranked.groupBy("status")).toThrow(/customerId is not in groupBy/);
    expect(() => ranked.groupBy("status", "customerId")).not.toThrow();
    expect(() =>
      select(Order)
        .groupBy("status")
        .columns((q) => ({ s: q.sum("total").over({ orderBy: ["status"] }) })),
    ).toThrow(/total is not in groupBy/);
  });
});
