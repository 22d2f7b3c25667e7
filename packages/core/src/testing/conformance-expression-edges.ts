import { describe, expect, it } from "vitest";
import { op } from "../builder/op.js";
import { select } from "../builder/select.js";
import type { Engine } from "../engine/engine.js";
import { QueryError, UnsupportedFeatureError, ValidationError } from "../errors.js";
import { col, fn } from "../expression/fn.js";
import { ConformanceOrder as Order } from "./conformance-models.js";
import { shopOrders, useShop } from "./conformance-queries.js";

const exactDecimals = (engine: Engine) => engine.capabilities.exactDecimalAggregates;
const INT64_QUARTER = 2n ** 62n;

/**
 * Edges of the typed expressions found by the differential test of random expression trees
 * (tests/differential/test/expressions.test.ts), each pinned here on the dialect's real server.
 */
export function expressionEdgeTests(engineOf: () => Engine): void {
  describe("typed expressions: edges", () => {
    const shop = useShop(engineOf);

    it("an aggregate with distinct counts each value once (sum, avg, count)", async () => {
      const row = await shop.engine
        .execute(
          select(Order).columns((q) => ({
            sum: q.sum(q.mod("total", 2), { distinct: true }),
            all: q.sum(q.mod("total", 2)),
            avg: q.avg(q.mod("total", 2), { distinct: true }),
            count: q.count(q.mod("total", 2), { distinct: true }),
          })),
        )
        .one();
      const odd = shopOrders.filter((o) => o.total % 2 === 1).length;
      expect(row).toEqual({ sum: 1, all: odd, avg: 0.5, count: 2 });
    });

    it("avg of integers is the exact sum divided once: values past 2^53 are not rounded one by one", async () => {
      const row = await shop.engine.execute(select(Order).columns((q) => ({ v: q.avg(q.add("total", 2n ** 53n)) }))).one();
      const sum = shopOrders.reduce((total, o) => total + BigInt(o.total) + 2n ** 53n, 0n);
      expect(row).toEqual({ v: Number(sum) / shopOrders.length });
    });

    it("a value written twice in the SQL binds its placeholders at each place, in order", async () => {
      // AVG of a numeric is SUM / COUNT of the operand; the filter's value comes before the operand's.
      const avg = select(Order).columns((q) => ({
        v: q.avg(q.add("amount", q.val("1", "numeric")), { filter: { total: op.gt(500) } }),
      }));
      if (exactDecimals(shop.engine)) {
        const kept = shopOrders.filter((o) => o.total > 500);
        const cents = kept.reduce((sum, o) => sum + Number(o.amount.replace(".", "")) + 100, 0) / kept.length;
        expect(await shop.engine.execute(avg).one()).toEqual({ v: String(cents / 100) });
      } else {
        expect(() => shop.engine.compile(avg)).toThrow(UnsupportedFeatureError);
      }
      // A boolean cast to an integer writes the boolean twice (CASE WHEN b THEN 1 WHEN NOT b THEN 0).
      const rows = await shop.engine
        .execute(
          select(Order)
            .columns((q) => ({ id: "id", big: q.cast(q.gt("total", 1000), "integer") }))
            .orderBy("id"),
        )
        .all();
      expect(rows).toEqual(shopOrders.map((o) => ({ id: o.id, big: o.total > 1000 ? 1 : 0 })));
    });

    it("an integer past the 64-bit range is an error, in a projection and in a where alike", async () => {
      const projected = select(Order).columns((q) => ({ v: q.mul("total", INT64_QUARTER) }));
      await expect(shop.engine.execute(projected).all()).rejects.toSatisfy((e: unknown) => QueryError.isInstance(e));
      // A database that would go on in floating point must not compare the rounded value.
      const filtered = select(Order).where(fn.gt(fn.mul(col(Order, "total"), INT64_QUARTER), 0));
      await expect(shop.engine.execute(filtered).all()).rejects.toSatisfy((e: unknown) => QueryError.isInstance(e));
      const negated = select(Order).where(fn.lt(fn.neg(fn.sub(fn.neg(col(Order, "total")), 2n ** 63n - 1000n)), 0));
      await expect(shop.engine.execute(negated).all()).rejects.toSatisfy((e: unknown) => QueryError.isInstance(e));
    });

    it("a CASE, COALESCE or LEAST of 32-bit columns is computed in 64 bits", async () => {
      // Found by the differential test (seed 301, PG 18): -CASE ... END of a 32-bit column holding
      // -2^31 overflowed PostgreSQL's 32-bit integer where MariaDB and SQLite answered 2^31.
      const row = await shop.engine
        .execute(
          select(Order)
            .where({ id: 11 })
            .columns((q) => ({
              cube: q.mul(q.mul(q.coalesce("total", "total"), q.least("total", "total")), q.case(q.gt("total", 0), "total")),
              negCube: q.neg(q.mul(q.mul(q.nullif("total", "customerId"), "total"), q.greatest("total", "total"))),
            })),
        )
        .one();
      expect(row).toEqual({ cube: 4000 ** 3, negCube: -(4000 ** 3) });
    });

    it("over bound values alone, a result past the 64-bit range is refused when built", () => {
      expect(() => fn.neg(-(2n ** 63n))).toThrow(ValidationError);
      expect(() => fn.add(INT64_QUARTER * 2n - 1n, 1n)).toThrow(ValidationError);
      expect(() => fn.mul(fn.add(INT64_QUARTER, 1n), 2)).toThrow(ValidationError);
      expect(() => fn.div(-(2n ** 63n), -1n)).toThrow(ValidationError);
      expect(() => fn.add(fn.lit(2n ** 63n - 1n), 1)).toThrow(ValidationError);
      expect(() => fn.mod(-(2n ** 63n), -1n)).not.toThrow();
    });

    it("a numeric beside an integer or read as one: computed where decimals are exact, refused where they are not", async () => {
      const query = select(Order)
        .columns((q) => ({ id: "id", below: q.lt("amount", "total"), whole: q.cast("amount", "integer"), minus: q.neg("amount") }))
        .orderBy("id");
      if (!exactDecimals(shop.engine)) {
        expect(() => shop.engine.compile(query)).toThrow(UnsupportedFeatureError);
        await expect(shop.engine.execute(query).all()).rejects.toThrow(UnsupportedFeatureError);
        return;
      }
      expect(await shop.engine.execute(query).all()).toEqual(
        shopOrders.map((o) => ({
          id: o.id,
          below: true,
          whole: Math.trunc(Number(o.amount)),
          minus: `-${o.amount.replace(/\.?0+$/, "")}`,
        })),
      );
    });
  });
}
