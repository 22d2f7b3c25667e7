import fc from "fast-check";
import { column, Model } from "tempest-db-js";

// Random typed expression trees, as data (so a failure prints and shrinks), over one table of random
// rows. Each tree is generated for a kind and combines operands of kinds the builders accept, plus
// some they refuse (a real beside a numeric, a remainder of reals): a refusal when built is an answer
// too, the same on every database. See expression-build.ts for the statements they become.

export class ExprRow extends Model {
  static tablename = "differential_expr_rows";
  static naming = "snake_case";

  id = column.integer().primaryKey();
  /** A small group key. */
  g = column.integer();
  i = column.integer();
  j = column.integer().notNull();
  b = column.bigint();
  r = column.real();
  m = column.numeric(20, 4);
  t = column.text();
  d = column.datetime();
  dd = column.date();
  f = column.boolean();
}

export type Kind = "int" | "big" | "real" | "num" | "bool" | "dt" | "date" | "text";
type Column = "g" | "i" | "j" | "b" | "r" | "m" | "t" | "d" | "dd" | "f";

const INT32 = [0, 1, -1, 7, -7, 3, 2147483647, -2147483648];
const INT64 = [0n, 1n, -1n, 5n, -9n, 9007199254740991n, 9007199254740993n, 9223372036854775807n, -9223372036854775808n];
/** Dyadic fractions: sums and averages are exact whatever order a database adds them in. */
const REALS = [0, -0, 0.5, -1.25, 2, 1024.75, 1e15];
const DECIMALS = ["0", "1.5", "-0.25", "10", "99999999.9999", "-3.3333"];
/**
 * Boundaries and DST days. Amsterdam (the PG 18 run's TZ) switches at 01:00 UTC on the last Sundays of
 * March and October; Sao Paulo (the PG 15 run's) began DST at 03:00 UTC on 2018-11-04 and ended it at
 * 02:00 UTC on 2019-02-17; the PostgreSQL session is in Asia/Kathmandu (+05:45) and MariaDB's at -03:00.
 * Leap days and month ends are where calendar months fall back; the last millisecond of 1999 and of
 * 9999 are where a truncation or a shift crosses a year.
 */
export const DATETIMES = [
  "1969-12-31T23:59:59.999Z",
  "1970-01-01T00:00:00.000Z",
  "1999-12-31T23:59:59.999Z",
  "2000-02-29T12:00:00.000Z",
  "2024-01-31T23:30:00.250Z",
  "2024-03-31T00:59:59.999Z",
  "2024-03-31T01:00:00.000Z",
  "2024-10-27T00:59:59.999Z",
  "2024-10-27T01:00:00.000Z",
  "2018-11-04T02:59:59.999Z",
  "2018-11-04T03:00:00.000Z",
  "2019-02-17T01:59:59.999Z",
  "2019-02-17T02:00:00.000Z",
  "1000-01-01T00:00:00.000Z",
  "0001-01-01T00:00:00.000Z",
  "9999-12-31T23:59:59.999Z",
];
export const DATES = [
  "0001-01-01",
  "1000-01-01",
  "1969-12-31",
  "1970-01-01",
  "1999-12-31",
  "2000-02-29",
  "2024-03-31",
  "2024-10-27",
  "2018-11-04",
  "9999-12-31",
];
const TEXTS = ["", "a", "A", "ß", "é", "e\u0301", "a b ", " x", "10", "😀z"];

export type Row = Record<string, unknown>;

function rowArb(): fc.Arbitrary<Omit<Row, "id">> {
  const nullable = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 4 });
  return fc.record({
    g: nullable(fc.integer({ min: 0, max: 2 })),
    i: nullable(fc.constantFrom(...INT32)),
    j: fc.constantFrom(...INT32.slice(0, 6)),
    b: nullable(fc.constantFrom(...INT64)),
    r: nullable(fc.constantFrom(...REALS)),
    m: nullable(fc.constantFrom(...DECIMALS)),
    t: nullable(fc.constantFrom(...TEXTS)),
    d: nullable(fc.constantFrom(...DATETIMES).map((s) => new Date(s))),
    dd: nullable(fc.constantFrom(...DATES)),
    f: nullable(fc.boolean()),
  });
}

/** Zero to seven rows; the ids 1..n. */
export const rowsArb: fc.Arbitrary<Row[]> = fc.array(rowArb(), { maxLength: 7 }).map((rows) => rows.map((r, i) => ({ id: i + 1, ...r })));

// ---- trees ----------------------------------------------------------------------------------

export type Arith = "add" | "sub" | "mul" | "div" | "mod";
export type Cmp = "eq" | "ne" | "lt" | "lte" | "gt" | "gte";
export type StrFn = "lower" | "upper" | "trim" | "ltrim" | "rtrim" | "concat" | "substring";
export type CastTo = "integer" | "bigint" | "real" | "numeric" | "text" | "date";
export type TruncUnit = "year" | "month" | "week" | "day" | "hour" | "minute";
export type Field = "year" | "month" | "day" | "hour" | "minute" | "second" | "isoDayOfWeek" | "isoWeek" | "isoYear";
export type Unit = "milliseconds" | "seconds" | "minutes" | "hours" | "days" | "weeks" | "months" | "years";

export type E =
  | { readonly t: "col"; readonly f: Column }
  /** A JavaScript literal operand (a bigint as "123n", a Date as its ISO text), or fn.val of a kind. */
  | { readonly t: "lit"; readonly v: unknown; readonly as?: "numeric" | "date" | "text" | "integer" | "datetime" }
  | { readonly t: "arith"; readonly op: Arith; readonly a: E; readonly b: E }
  | { readonly t: "neg"; readonly a: E }
  | { readonly t: "coalesce"; readonly args: readonly E[] }
  | { readonly t: "nullif"; readonly a: E; readonly b: E }
  | { readonly t: "extreme"; readonly fn: "greatest" | "least"; readonly args: readonly E[] }
  | { readonly t: "case"; readonly branches: readonly (readonly [E, E])[]; readonly otherwise: E | undefined }
  | { readonly t: "cast"; readonly a: E; readonly to: CastTo }
  | { readonly t: "cmp"; readonly op: Cmp; readonly a: E; readonly b: E }
  | { readonly t: "str"; readonly fn: StrFn; readonly args: readonly E[]; readonly start: number; readonly length: number | undefined }
  | { readonly t: "length"; readonly a: E }
  /** The date functions, on datetimes: fn.dateTrunc, fn.extract (epoch as a real), fn.addInterval / subInterval, fn.diffSeconds. */
  | { readonly t: "trunc"; readonly unit: TruncUnit; readonly a: E }
  | { readonly t: "field"; readonly field: Field | "epoch"; readonly a: E }
  | { readonly t: "shift"; readonly sub: boolean; readonly a: E; readonly amount: E; readonly unit: Unit }
  | { readonly t: "diff"; readonly a: E; readonly b: E };

const COLUMNS: Record<Kind, readonly Column[]> = {
  int: ["i", "j", "g"],
  big: ["b"],
  real: ["r"],
  num: ["m"],
  bool: ["f"],
  dt: ["d"],
  date: ["dd"],
  text: ["t"],
};

const big = (v: bigint) => `${v}n`;
const LITERALS: Record<Kind, fc.Arbitrary<E>> = {
  int: fc.constantFrom(...INT32, null).map((v) => ({ t: "lit", v })),
  big: fc.constantFrom(...INT64).map((v) => ({ t: "lit", v: big(v) })),
  real: fc.constantFrom(0.5, -1.25, 2.5, -0.75).map((v) => ({ t: "lit", v })),
  num: fc.constantFrom(...DECIMALS, null).map((v) => ({ t: "lit", v, as: "numeric" })),
  bool: fc.boolean().map((v) => ({ t: "lit", v })),
  dt: fc.constantFrom(...DATETIMES).map((v) => ({ t: "lit", v, as: "datetime" })),
  date: fc.constantFrom(...DATES).map((v) => ({ t: "lit", v, as: "date" })),
  text: fc.constantFrom(...TEXTS).map((v) => ({ t: "lit", v, as: "text" })),
};

const NUMBER_KINDS: readonly Kind[] = ["int", "big", "real", "num"];
const ORDERED_KINDS: readonly Kind[] = ["int", "big", "real", "num", "dt", "date"];

/** A second operand's kind for arithmetic beside `kind`: mostly one that keeps the result `kind`. */
function partner(kind: Kind): fc.Arbitrary<Kind> {
  if (kind === "int") return fc.constant("int");
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(kind, "int") }, { weight: 1, arbitrary: fc.constantFrom(...NUMBER_KINDS) });
}

/**
 * An interval's amount: mostly a small literal or a small integer column (j, g), now and then any
 * integer tree (a 32-bit limit as days is refused when bound, or past the year range when computed).
 */
function amountArb(depth: number): fc.Arbitrary<E> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(0, 1, -1, 2, 12, -13, 59, 1000, null).map((v): E => ({ t: "lit", v })) },
    { weight: 3, arbitrary: fc.constantFrom<Column>("j", "g").map((f): E => ({ t: "col", f })) },
    { weight: 1, arbitrary: exprArb("int", Math.max(0, depth - 1)) },
  );
}

const TRUNC_UNITS: readonly TruncUnit[] = ["year", "month", "week", "day", "hour", "minute"];
const FIELDS: readonly (Field | "epoch")[] = ["year", "month", "day", "hour", "minute", "second", "isoDayOfWeek", "isoWeek", "isoYear"];
const UNITS: readonly Unit[] = ["milliseconds", "seconds", "minutes", "hours", "days", "weeks", "months", "years"];

const memo = new Map<string, fc.Arbitrary<E>>();

/** A tree whose value is of `kind` (or one the builders refuse, now and then), at most `depth` deep. */
export function exprArb(kind: Kind, depth: number): fc.Arbitrary<E> {
  const key = `${kind}/${depth}`;
  let made = memo.get(key);
  if (!made) memo.set(key, (made = makeExprArb(kind, depth)));
  return made;
}

function makeExprArb(kind: Kind, depth: number): fc.Arbitrary<E> {
  const leaf = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...COLUMNS[kind]).map((f): E => ({ t: "col", f })) },
    { weight: 2, arbitrary: LITERALS[kind] },
  );
  if (depth <= 0) return leaf;
  const sub = (k: Kind) => exprArb(k, depth - 1);
  const same = sub(kind);
  const choices: fc.WeightedArbitrary<E>[] = [
    { weight: 3, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(same, { minLength: 2, maxLength: 3 }).map((args): E => ({ t: "coalesce", args })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.array(fc.tuple(exprArb("bool", depth - 1), same), { minLength: 1, maxLength: 2 }), fc.option(same, { nil: undefined }))
        .map(([branches, otherwise]): E => ({ t: "case", branches, otherwise })),
    },
  ];
  // Text equality follows each database's collation (docs/dialects.md), so NULLIF is tried on other kinds.
  if (kind !== "text" && kind !== "bool")
    choices.push({ weight: 1, arbitrary: fc.tuple(same, same).map(([a, b]): E => ({ t: "nullif", a, b })) });
  if (ORDERED_KINDS.includes(kind)) {
    choices.push({
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom("greatest" as const, "least" as const), fc.array(same, { minLength: 2, maxLength: 3 }))
        .map(([fn, args]): E => ({ t: "extreme", fn, args })),
    });
  }
  if (NUMBER_KINDS.includes(kind)) {
    const ops: Arith[] = kind === "int" || kind === "big" ? ["add", "sub", "mul", "div", "mod"] : ["add", "sub", "mul", "div"];
    choices.push(
      {
        weight: 5,
        arbitrary: fc
          .tuple(fc.constantFrom(...ops), same, partner(kind).chain(sub), fc.boolean())
          .map(([op, a, b, swap]): E => (swap ? { t: "arith", op, a: b, b: a } : { t: "arith", op, a, b })),
      },
      { weight: 1, arbitrary: same.map((a): E => ({ t: "neg", a })) },
    );
  }
  const cast = (from: Kind, to: CastTo) => ({ weight: 1, arbitrary: sub(from).map((a): E => ({ t: "cast", a, to })) });
  switch (kind) {
    case "int":
      choices.push(cast("real", "integer"), cast("num", "integer"), cast("big", "integer"), cast("bool", "integer"), {
        weight: 1,
        arbitrary: sub("text").map((a): E => ({ t: "length", a })),
      });
      choices.push({
        weight: 2,
        arbitrary: fc.tuple(fc.constantFrom(...FIELDS), sub("dt")).map(([field, a]): E => ({ t: "field", field, a })),
      });
      break;
    case "big":
      choices.push(cast("int", "bigint"));
      break;
    case "real":
      choices.push(
        cast("int", "real"),
        cast("num", "real"),
        cast("big", "real"),
        { weight: 1, arbitrary: sub("dt").map((a): E => ({ t: "field", field: "epoch", a })) },
        { weight: 2, arbitrary: fc.tuple(sub("dt"), sub("dt")).map(([a, b]): E => ({ t: "diff", a, b })) },
      );
      break;
    case "num":
      choices.push(cast("int", "numeric"));
      break;
    case "text":
      choices.push(cast("int", "text"), cast("date", "text"), cast("big", "text"), {
        weight: 3,
        arbitrary: fc
          .tuple(
            fc.constantFrom<StrFn>("lower", "upper", "trim", "ltrim", "rtrim", "concat", "substring"),
            fc.array(same, { minLength: 1, maxLength: 3 }),
            fc.integer({ min: 1, max: 4 }),
            fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
          )
          .map(([fn, args, start, length]): E => ({ t: "str", fn, args: fn === "concat" ? args : args.slice(0, 1), start, length })),
      });
      break;
    case "date":
      break;
    case "dt":
      choices.push(
        {
          weight: 3,
          arbitrary: fc.tuple(fc.constantFrom(...TRUNC_UNITS), same).map(([unit, a]): E => ({ t: "trunc", unit, a })),
        },
        {
          weight: 3,
          arbitrary: fc
            .tuple(fc.boolean(), same, amountArb(depth), fc.constantFrom(...UNITS))
            .map(([sub, a, amount, unit]): E => ({ t: "shift", sub, a, amount, unit })),
        },
      );
      break;
    case "bool":
      choices.push({
        weight: 6,
        arbitrary: fc
          .tuple(fc.constantFrom<Cmp>("eq", "ne", "lt", "lte", "gt", "gte"), fc.constantFrom<Kind>(...ORDERED_KINDS, "bool"))
          .chain(([op, k]) =>
            fc
              .tuple(sub(k), k === "int" ? sub("int") : partner(k).chain((p) => sub(NUMBER_KINDS.includes(k) ? p : k)))
              .map(([a, b]): E => ({ t: "cmp", op: k === "bool" && op !== "eq" ? "ne" : op, a, b })),
          ),
      });
      break;
  }
  return fc.oneof(...choices);
}

// ---- statements ------------------------------------------------------------------------------

export type Agg = "count" | "sum" | "avg" | "min" | "max";

export interface AggSpec {
  readonly fn: Agg;
  readonly value: E;
  readonly filter: E | undefined;
  readonly distinct: boolean;
}

export type QuerySpec =
  | { readonly shape: "columns"; readonly values: readonly E[]; readonly where: E | undefined }
  | { readonly shape: "where"; readonly where: E }
  | { readonly shape: "orderBy"; readonly key: E; readonly desc: boolean; readonly where: E | undefined }
  | { readonly shape: "group"; readonly key: E | undefined; readonly aggs: readonly AggSpec[]; readonly having: AggSpec | undefined };

const DEPTH = 3;
const anyKind = fc.constantFrom<Kind>("int", "int", "big", "real", "num", "bool", "dt", "dt", "date", "text");

const aggArb: fc.Arbitrary<AggSpec> = fc.constantFrom<Agg>("count", "sum", "avg", "min", "max").chain((fn) =>
  fc.record({
    fn: fc.constant(fn),
    value: fc
      .constantFrom<Kind>(
        ...(fn === "count" ? (["int", "text", "dt", "bool"] as const) : fn === "min" || fn === "max" ? ORDERED_KINDS : NUMBER_KINDS),
      )
      .chain((k) => exprArb(k, 2)),
    filter: fc.option(exprArb("bool", 2), { nil: undefined, freq: 2 }),
    distinct: fc.boolean(),
  }),
);

export const querySpecArb: fc.Arbitrary<QuerySpec> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      shape: fc.constant("columns" as const),
      values: fc.array(
        anyKind.chain((k) => exprArb(k, DEPTH)),
        { minLength: 1, maxLength: 3 },
      ),
      where: fc.option(exprArb("bool", 2), { nil: undefined, freq: 3 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ shape: fc.constant("where" as const), where: exprArb("bool", DEPTH) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      shape: fc.constant("orderBy" as const),
      key: fc.constantFrom<Kind>(...ORDERED_KINDS, "bool").chain((k) => exprArb(k, DEPTH)),
      desc: fc.boolean(),
      where: fc.option(exprArb("bool", 2), { nil: undefined, freq: 3 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      shape: fc.constant("group" as const),
      key: fc.option(
        fc.constantFrom<Kind>("int", "bool", "date", "dt", "big").chain((k) => exprArb(k, 2)),
        { nil: undefined, freq: 4 },
      ),
      aggs: fc.array(aggArb, { minLength: 1, maxLength: 3 }),
      having: fc.option(aggArb, { nil: undefined, freq: 3 }),
    }),
  },
);

/** A spec as text: bigints, Dates and -0 shown. */
export function showSpec(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? `${v}n` : typeof v === "number" && Object.is(v, -0) ? "-0" : v));
}
