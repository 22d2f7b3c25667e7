import { describe, expect, it } from "vitest";
import { select } from "../builder/select.js";
import { update } from "../builder/update-builder.js";
import type { Engine } from "../engine/engine.js";
import { UnsupportedFeatureError } from "../errors.js";
import { col, fn } from "../expression/fn.js";
import { ConformanceOrder as Order } from "./conformance-models.js";
import { shopOrders, useShop } from "./conformance-queries.js";

const byId = <T extends { id: number }>(rows: T[]) => [...rows].sort((a, b) => a.id - b.id);
/** JavaScript's truncating integer quotient, the rule fn.div states for integers. */
const quotient = (a: number, b: number) => (b === 0 ? null : Math.trunc(a / b));
const remainder = (a: number, b: number) => (b === 0 ? null : a % b);
const exactDecimals = (engine: Engine) => engine.capabilities.exactDecimalAggregates;

/**
 * The typed expression builders on the dialect's real server (docs/expressions.md): each value
 * computed here in JavaScript by the rule the docs state, and the database must give the same.
 */
export function expressionTests(engineOf: () => Engine): void {
  describe("typed expressions", () => {
    const shop = useShop(engineOf);

    it("integer arithmetic in a projection: 64-bit, division truncated toward zero, NULL for a zero divisor", async () => {
      const rows = await shop.engine
        .execute(
          select(Order)
            .columns((q) => ({
              id: "id",
              tripled: q.mul("total", 3),
              big: q.add("total", 2 ** 40),
              over7: q.div("total", 7),
              negOver7: q.div(q.neg("total"), 7),
              rem: q.mod(q.neg("total"), 7),
              byZero: q.div("total", 0),
              minus: q.sub(q.coalesce("customerId", 0), "total"),
            }))
            .orderBy("id"),
        )
        .all();
      expect(rows).toEqual(
        shopOrders.map((o) => ({
          id: o.id,
          tripled: o.total * 3,
          big: o.total + 2 ** 40,
          over7: quotient(o.total, 7),
          negOver7: quotient(-o.total, 7),
          rem: remainder(-o.total, 7),
          byZero: null,
          minus: (o.customerId ?? 0) - o.total,
        })),
      );
    });

    it("a 32-bit column times a large number does not overflow: integers compute in 64 bits", async () => {
      const rows = await shop.engine
        .execute(
          select(Order)
            .columns((q) => ({ id: "id", v: q.mul("total", 2_000_000_000) }))
            .orderBy("id"),
        )
        .all();
      expect(rows).toEqual(shopOrders.map((o) => ({ id: o.id, v: o.total * 2_000_000_000 })));
    });

    it("reals: a cast to real divides in floating point", async () => {
      const rows = await shop.engine
        .execute(
          select(Order)
            .columns((q) => ({ id: "id", v: q.div(q.cast("total", "real"), 8), half: q.mul("total", 0.5) }))
            .orderBy("id"),
        )
        .all();
      expect(rows).toEqual(shopOrders.map((o) => ({ id: o.id, v: o.total / 8, half: o.total * 0.5 })));
    });

    it("numeric arithmetic is exact where the database has exact decimals, refused where it has not", async () => {
      const query = select(Order)
        .columns((q) => ({
          id: "id",
          doubled: q.mul("amount", 2),
          plus: q.add("amount", q.val("0.005", "numeric")),
          third: q.div("amount", 3),
        }))
        .orderBy("id");
      if (!exactDecimals(shop.engine)) {
        expect(() => shop.engine.compile(query)).toThrow(UnsupportedFeatureError);
        return;
      }
      const rows = await shop.engine.execute(query).all();
      const cents = (amount: string) => BigInt(amount.replace(".", ""));
      const decimal = (units: bigint, scale: number) => {
        const sign = units < 0n ? "-" : "";
        const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, "0");
        const text = `${digits.slice(0, -scale)}.${digits.slice(-scale)}`.replace(/0+$/, "").replace(/\.$/, "");
        return sign + text;
      };
      expect(rows).toEqual(
        shopOrders.map((o) => {
          const c = cents(o.amount);
          // amount / 3 rounded half away from zero at 30 places.
          const scaled = c * 10n ** 28n;
          const third = (scaled * 2n + 3n) / 6n;
          return { id: o.id, doubled: decimal(c * 2n, 2), plus: decimal(c * 10n + 5n, 3), third: decimal(third, 30) };
        }),
      );
    });

    it("coalesce, nullif, case and greatest / least, with the stated NULL rules", async () => {
      const rows = await shop.engine
        .execute(
          select(Order)
            .columns((q) => ({
              id: "id",
              customer: q.coalesce("customerId", -1),
              notTen: q.nullif("id", 10),
              rank: q.case({ status: "open" }, 1).when({ status: "paid" }, 2).else(3),
              big: q.case(q.gt("total", 1000), "total"),
              latest: q.greatest("createdAt", "shippedAt"),
              earliest: q.least("createdAt", q.coalesce("shippedAt", "createdAt")),
              most: q.greatest("total", 1000, "id"),
            }))
            .orderBy("id"),
        )
        .all();
      const rank = { open: 1, paid: 2, shipped: 3 };
      expect(rows).toEqual(
        shopOrders.map((o) => ({
          id: o.id,
          customer: o.customerId ?? -1,
          notTen: o.id === 10 ? null : o.id,
          rank: rank[o.status],
          big: o.total > 1000 ? o.total : null,
          latest: o.shippedAt === null ? null : new Date(Math.max(+o.createdAt, +o.shippedAt)),
          earliest: new Date(Math.min(+o.createdAt, +(o.shippedAt ?? o.createdAt))),
          most: Math.max(o.total, 1000, o.id),
        })),
      );
    });

    it("expressions in where and orderBy: a comparison is a condition, an expression a sort key (NULL largest)", async () => {
      const total = col(Order, "total");
      const rows = await shop.engine
        .execute(
          select(Order)
            .where(fn.gt(fn.mul(total, 2), 2000))
            .orderBy(fn.mod(total, 7), "desc")
            .orderBy("id"),
        )
        .all();
      const expected = shopOrders
        .filter((o) => o.total * 2 > 2000)
        .sort((a, b) => (b.total % 7) - (a.total % 7) || a.id - b.id)
        .map((o) => o.id);
      expect(rows.map((r) => r.id)).toEqual(expected);
      const nullsLast = await shop.engine
        .execute(
          select(Order)
            .orderBy(fn.add(col(Order, "customerId"), 1))
            .orderBy("id"),
        )
        .all();
      const sorted = [...shopOrders].sort((a, b) => (a.customerId ?? Infinity) - (b.customerId ?? Infinity) || a.id - b.id);
      expect(nullsLast.map((r) => r.id)).toEqual(sorted.map((o) => o.id));
    });

    it("an expression in set: a counter kept in SQL", async () => {
      const engine = shop.engine;
      await engine.transaction(async (tx) => {
        const n = await tx
          .execute(
            update(Order)
              .set({ total: fn.add(col(Order, "total"), 5) })
              .where({ status: "paid" }),
          )
          .rowsAffected();
        expect(n).toBe(shopOrders.filter((o) => o.status === "paid").length);
        const rows = byId(await tx.execute(select(Order).columns({ id: "id", total: "total" })).all());
        expect(rows).toEqual(shopOrders.map((o) => ({ id: o.id, total: o.status === "paid" ? o.total + 5 : o.total })));
        await tx
          .execute(
            update(Order)
              // A constant written into the text (fn.lit), negative: "total" + (-5).
              .set({ total: fn.add(col(Order, "total"), fn.lit(-5)) })
              .where({ status: "paid" }),
          )
          .rowsAffected();
      });
      const after = byId(await engine.execute(select(Order).columns({ id: "id", total: "total" })).all());
      expect(after).toEqual(shopOrders.map((o) => ({ id: o.id, total: o.total })));
    });

    it("aggregates over expressions, filtered aggregates, and group by an expression", async () => {
      const rows = await shop.engine
        .execute(
          select(Order)
            .columns((q) => ({
              bucket: q.div("total", 1000),
              n: q.count(),
              doubled: q.sum(q.mul("total", 2)),
              paid: q.countIf({ status: "paid" }),
              paidTotal: q.sum("total", { filter: { status: "paid" } }),
              shipped: q.count("shippedAt", { filter: { status: "shipped" } }),
            }))
            .groupBy("bucket")
            .orderBy("bucket"),
        )
        .all();
      const buckets = new Map<number, (typeof shopOrders)[number][]>();
      for (const o of shopOrders) buckets.set(Math.trunc(o.total / 1000), [...(buckets.get(Math.trunc(o.total / 1000)) ?? []), o]);
      const expected = [...buckets.entries()]
        .sort(([a], [b]) => a - b)
        .map(([bucket, orders]) => {
          const paid = orders.filter((o) => o.status === "paid");
          return {
            bucket,
            n: orders.length,
            doubled: orders.reduce((sum, o) => sum + o.total * 2, 0),
            paid: paid.length,
            paidTotal: paid.length === 0 ? null : paid.reduce((sum, o) => sum + o.total, 0),
            shipped: orders.filter((o) => o.status === "shipped" && o.shippedAt !== null).length,
          };
        });
      expect(rows).toEqual(expected);
    });

    it("having over an aggregate of an expression", async () => {
      const rows = await shop.engine
        .execute(
          select(Order)
            .columns((q) => ({ status: "status", value: q.sum(q.mul("total", 2)) }))
            .groupBy("status")
            .having({ value: { gt: 5000 } })
            .orderBy("status"),
        )
        .all();
      const sums = new Map<string, number>();
      for (const o of shopOrders) sums.set(o.status, (sums.get(o.status) ?? 0) + o.total * 2);
      const expected = ["open", "paid", "shipped"].filter((s) => (sums.get(s) ?? 0) > 5000).map((s) => ({ status: s, value: sums.get(s) }));
      expect(rows).toEqual(expected);
    });
  });
}
