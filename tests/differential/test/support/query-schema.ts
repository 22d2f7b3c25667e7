import fc from "fast-check";
import type { ModelClass } from "tempest-db-js";
import { column, Model } from "tempest-db-js";
import { ENUM_VALUES } from "./rules.js";

// The two tables the query cases run over. Their shape is fixed (every case reuses them, emptied and
// refilled); what varies is the rows: small pools of values, so joins match, groups repeat and NULLs
// turn up, and zero rows as often as a few.

export const A_TABLE = "differential_query_a";
export const B_TABLE = "differential_query_b";

/** Fields of both tables besides the integer primary key `id`. */
export const FIELDS = ["k", "n", "r", "m", "t", "e", "dt", "f"] as const;
export type Field = (typeof FIELDS)[number];

export type QueryKind = "integer" | "real" | "numeric" | "text" | "enum" | "datetime" | "boolean";
export const KIND_OF: Readonly<Record<Field | "id", QueryKind>> = {
  id: "integer",
  k: "integer",
  n: "integer",
  r: "real",
  m: "numeric",
  t: "text",
  e: "enum",
  dt: "datetime",
  f: "boolean",
};

/** `b.n` is NOT NULL (ordering pins NULLs only on nullable columns); every other field is nullable. */
export function isNotNull(table: "A" | "B", field: Field | "id"): boolean {
  return field === "id" || (table === "B" && field === "n");
}

export class QueryA extends Model {
  static tablename = A_TABLE;
  id = column.integer().primaryKey();
  k = column.integer();
  n = column.integer();
  r = column.real();
  m = column.numeric(10, 2);
  t = column.text();
  e = column.enum(...ENUM_VALUES);
  dt = column.datetime();
  f = column.boolean();
}

export class QueryB extends Model {
  static tablename = B_TABLE;
  id = column.integer().primaryKey();
  k = column.integer();
  n = column.integer().notNull();
  r = column.real();
  m = column.numeric(10, 2);
  t = column.text();
  e = column.enum(...ENUM_VALUES);
  dt = column.datetime();
  f = column.boolean();
}

export const MODELS: Readonly<Record<"A" | "B", ModelClass>> = { A: QueryA as ModelClass, B: QueryB as ModelClass };

/**
 * Values each kind takes. Reals are dyadic fractions far from the precision limit, so that a SUM or
 * AVG is exact whatever order a database adds them in (0.1 + 0.2 is not, and no database promises an
 * order); -0 is there, as is a value past 2^31 for sums.
 */
export const POOLS: Readonly<Record<Field, readonly unknown[]>> = {
  k: [0, 1, 2, 3],
  n: [-5, -1, 0, 1, 2, 7, 2147483647],
  r: [0, -0, 0.5, -1.25, 2, 1024.75, 1e15],
  m: ["0.00", "1.50", "-0.25", "10.00", "99999999.99", "-3.33"],
  t: ["", "a", "A", "a ", "b", "ß", "é", "e\u0301", "10", "9", "%"],
  e: [...ENUM_VALUES],
  dt: [
    new Date("1969-12-31T23:59:59.999Z"),
    new Date("2024-03-31T01:30:00.123Z"),
    new Date("2024-10-27T01:30:00.456Z"),
    new Date("0001-01-01T00:00:00.000Z"),
    new Date("9999-12-31T23:59:59.999Z"),
  ],
  f: [true, false],
};

/** A value of the field, for a where operand or a row. */
export function valueArb(field: Field | "id"): fc.Arbitrary<unknown> {
  if (field === "id") return fc.integer({ min: 1, max: 8 });
  return fc.constantFrom(...POOLS[field]);
}

export type Row = Record<string, unknown>;

function rowsArb(table: "A" | "B", maxRows: number): fc.Arbitrary<Row[]> {
  const cell = (field: Field) => (isNotNull(table, field) ? valueArb(field) : fc.option(valueArb(field), { nil: null, freq: 3 }));
  return fc
    .array(fc.tuple(...FIELDS.map(cell)), { maxLength: maxRows })
    .map((rows) => rows.map((values, i) => Object.fromEntries([["id", i + 1], ...FIELDS.map((f, j) => [f, values[j]])])));
}

export interface Data {
  readonly a: Row[];
  readonly b: Row[];
}

/** Rows of both tables: either may be empty; duplicates (but for the id) are frequent. */
export function dataArb(): fc.Arbitrary<Data> {
  return fc.record({ a: rowsArb("A", 6), b: rowsArb("B", 5) });
}
