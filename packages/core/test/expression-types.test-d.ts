import { describe, expectTypeOf, test } from "vitest";
import type { Engine, Expression } from "../src/index.js";
import { col, fn, select, sql, update } from "../src/index.js";
import { ConformanceOrder as Order, ConformanceValue as Value } from "../src/testing/index.js";

declare const engine: Engine;

describe("typed expressions: each value's JavaScript type, nullable when an input is", () => {
  test("arithmetic: integers are numbers, numerics exact decimal strings, bigints bigint; div is nullable", () => {
    const q = select(Order).columns((q) => ({
      line: q.mul("total", 3),
      maybe: q.add("customerId", 1),
      exact: q.mul("amount", 2),
      ratio: q.div("total", 7),
      real: q.div(q.cast("total", "real"), 2),
    }));
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{
      line: number;
      maybe: number | null;
      exact: string;
      ratio: number | null;
      real: number | null;
    }>();
    const big = select(Value).columns((q) => ({ b: q.add("bigintValue", 1n) }));
    expectTypeOf(engine.execute(big).all()).resolves.items.toEqualTypeOf<{ b: bigint | null }>();
  });

  test("a wrong kind is a compile error", () => {
    select(Order).columns((q) => ({
      // @ts-expect-error status is an enum (text), not a number
      bad: q.add("status", 1),
    }));
    select(Value).columns((q) => ({
      // @ts-expect-error a real never mixes with a numeric
      bad: q.add("realValue", "numericValue"),
    }));
    // @ts-expect-error a bare string is never a value of fn: write fn.val("...")
    fn.add(col(Order, "total"), "1");
    // @ts-expect-error a text compared with a number
    fn.eq(col(Value, "textValue"), 1);
    fn.eq(col(Value, "textValue"), fn.val("x"));
    // @ts-expect-error a text is not an operand of arithmetic, even typed
    fn.mul(col(Value, "textValue"), 2);
  });

  test("coalesce, case, nullif, greatest and comparisons", () => {
    const q = select(Order).columns((q) => ({
      customer: q.coalesce("customerId", 0),
      rank: q.case({ status: "open" }, 1).when({ status: "paid" }, 2).else(3),
      open: q.case({ status: "open" }, 1),
      notTen: q.nullif("id", 10),
      latest: q.greatest("createdAt", "shippedAt"),
      big: q.gt("total", 1000),
    }));
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{
      customer: number;
      rank: number;
      open: number | null;
      notTen: number | null;
      latest: Date | null;
      big: boolean;
    }>();
  });

  test("aggregates over expressions and filtered aggregates", () => {
    const q = select(Order).columns((q) => ({
      revenue: q.sum(q.mul("total", 2)),
      exact: q.sum(q.mul("amount", 2)),
      open: q.countIf({ status: "open" }),
      paid: q.sum("total", { filter: { status: "paid" } }),
    }));
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{
      revenue: number | null;
      exact: string | null;
      open: number;
      paid: number | null;
    }>();
  });

  test("expressions go where values go: set, where, orderBy, groupBy", () => {
    update(Order).set({ total: fn.add(col(Order, "total"), 1) });
    select(Order).where(fn.gt(fn.mul(col(Order, "total"), 2), 100));
    select(Order).orderBy(fn.mod(col(Order, "total"), 7), "desc");
    select(Order)
      .columns((q) => ({ bucket: q.div("total", 100), n: q.count() }))
      .groupBy("bucket");
    expectTypeOf(fn.val("1.5", "numeric")).toEqualTypeOf<Expression<string | null, "numeric">>();
    expectTypeOf(col(Order, "amount")).toEqualTypeOf<Expression<string, "numeric">>();
  });

  test("string functions: texts in, a text (or a length) out, nullable when an input is", () => {
    const q = select(Value).columns((q) => ({
      lower: q.lower("textValue"),
      upper: q.upper("enumValue"),
      trimmed: q.trim(q.val("  x ")),
      length: q.length("varcharValue"),
      joined: q.concat("textValue", q.val("-"), "enumValue"),
      known: q.concat(q.val("a"), q.val("b")),
      part: q.substring(q.val("abc"), 2, 1),
    }));
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{
      lower: string | null;
      upper: string | null;
      trimmed: string;
      length: number | null;
      joined: string | null;
      known: string;
      part: string;
    }>();
    expectTypeOf(fn.length(fn.val("abc"))).toEqualTypeOf<Expression<number, "integer">>();
    expectTypeOf(fn.lower(col(Order, "status"))).toEqualTypeOf<Expression<string, "text">>();
    expectTypeOf(fn.rtrim(null)).toEqualTypeOf<Expression<string | null, "text">>();
  });

  test("a string function of a number, a date or a bare string is a compile error", () => {
    select(Value).columns((q) => ({
      // @ts-expect-error integerValue is not a text
      bad: q.lower("integerValue"),
    }));
    select(Value).columns((q) => ({
      // @ts-expect-error numericValue is a decimal string, not a text
      bad: q.length("numericValue"),
    }));
    // @ts-expect-error a bare string is never a value of fn: write fn.val("...")
    fn.upper("abc");
    // @ts-expect-error a datetime is not a text: cast it first
    fn.concat(col(Value, "textValue"), col(Value, "datetimeValue"));
    // @ts-expect-error positions are numbers, bound as integers
    fn.substring(col(Value, "textValue"), "2");
    // @ts-expect-error a text is not a number
    fn.add(fn.lower(col(Value, "textValue")), 1);
    // @ts-expect-error a uuid is not a text
    fn.trim(col(Value, "uuidValue"));
  });

  test("fn.lit: an integer constant, a number or a bigint", () => {
    expectTypeOf(fn.lit(1)).toEqualTypeOf<Expression<number, "integer">>();
    expectTypeOf(fn.lit(1n)).toEqualTypeOf<Expression<bigint, "bigint">>();
    expectTypeOf(fn.add(col(Order, "total"), fn.lit(1))).toEqualTypeOf<Expression<number, "integer">>();
    // @ts-expect-error a text is never written into the SQL
    fn.lit("1");
  });

  test("dates: truncation and shifts are datetimes, fields integers (epoch a real), differences reals", () => {
    const q = select(Order).columns((q) => ({
      day: q.dateTrunc("day", "createdAt"),
      shippedWeek: q.dateTrunc("week", "shippedAt"),
      year: q.extract("isoYear", "createdAt"),
      epoch: q.extract("epoch", "shippedAt"),
      due: q.addInterval("createdAt", 3, "days"),
      byColumn: q.subInterval("createdAt", "customerId", "hours"),
      soon: q.addInterval(q.now(), 5, "minutes"),
      took: q.diffSeconds("shippedAt", "createdAt"),
    }));
    expectTypeOf(engine.execute(q).all()).resolves.items.toEqualTypeOf<{
      day: Date;
      shippedWeek: Date | null;
      year: number;
      epoch: number | null;
      due: Date;
      byColumn: Date | null;
      soon: Date;
      took: number | null;
    }>();
    expectTypeOf(fn.extract("epoch", fn.now())).toEqualTypeOf<Expression<number, "real">>();
    expectTypeOf(fn.extract("day", new Date())).toEqualTypeOf<Expression<number, "integer">>();
    expectTypeOf(fn.addInterval(sql.now(), fn.mul(col(Order, "total"), 2), "seconds")).toEqualTypeOf<Expression<Date, "datetime">>();
    select(Order)
      .columns((q) => ({ week: q.dateTrunc("week", "createdAt"), revenue: q.sum("total") }))
      .groupBy("week");
  });

  test("a date function of a text, a date column, an interval on a text, or an unknown unit is a compile error", () => {
    select(Value).columns((q) => ({
      // @ts-expect-error a text is not a datetime
      bad: q.dateTrunc("day", "textValue"),
    }));
    select(Value).columns((q) => ({
      // @ts-expect-error a date column ("YYYY-MM-DD") is not a datetime
      bad: q.extract("year", "dateValue"),
    }));
    // @ts-expect-error an interval is added to a datetime, not a text
    fn.addInterval(fn.val("2026-01-01"), 1, "days");
    // @ts-expect-error the amount is an integer, not a text
    fn.addInterval(col(Value, "datetimeValue"), col(Value, "textValue"), "days");
    // @ts-expect-error a real amount: use a smaller unit
    fn.addInterval(col(Value, "datetimeValue"), col(Value, "realValue"), "days");
    // @ts-expect-error units are a closed set
    fn.addInterval(col(Value, "datetimeValue"), 1, "fortnights");
    // @ts-expect-error truncation units are a closed set
    fn.dateTrunc("quarter", col(Value, "datetimeValue"));
    // @ts-expect-error fields are a closed set
    fn.extract("dow", col(Value, "datetimeValue"));
    // @ts-expect-error a difference of a datetime and a number
    fn.diffSeconds(col(Value, "datetimeValue"), 5);
  });
});
