import type { Engine, Executable, Expression } from "tempest-db-js";
import { and, col, column, deleteFrom, fn, insert, Model, ref, select, UnsupportedFeatureError, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "./support/databases.js";
import { closeTargets, openTargets } from "./support/databases.js";

// Every place an expression goes (issue 27's list) × one representative expression of each family,
// run as the same statement on PostgreSQL (a C and an ICU database, session zone not UTC), MariaDB
// and SQLite: the same JavaScript rows on each, and rows at all (no cell passes by answering
// nothing). A cell the builder refuses, or a dialect refuses, fails the matrix: every place takes
// every family. The table printed at the end is the outcome per cell.

class Line extends Model {
  static tablename = "differential_placement_lines";
  static naming = "snake_case";

  id = column.integer().primaryKey();
  product = column.text().notNull();
  quantity = column.integer().notNull();
  price = column.integer().notNull();
  discount = column.integer();
  soldAt = column.datetime().notNull();
  shippedAt = column.datetime();
  note = column.text();
}

interface Row {
  id: number;
  product: string;
  quantity: number;
  price: number;
  discount: number | null;
  soldAt: Date;
  shippedAt: Date | null;
  note: string | null;
}
const d = (iso: string) => new Date(iso);
const ROWS: Row[] = [
  {
    id: 1,
    product: "pen",
    quantity: 3,
    price: 150,
    discount: null,
    soldAt: d("2026-03-28T22:30:00Z"),
    shippedAt: d("2026-03-30T08:00:00.250Z"),
    note: null,
  },
  { id: 2, product: "ink", quantity: 1, price: 999, discount: 100, soldAt: d("2026-03-29T00:30:00Z"), shippedAt: null, note: "gift" },
  { id: 3, product: "pad", quantity: 7, price: 250, discount: null, soldAt: d("2026-03-30T09:00:00Z"), shippedAt: null, note: null },
  {
    id: 4,
    product: "Pen",
    quantity: 3,
    price: 150,
    discount: 50,
    soldAt: d("2026-01-31T12:00:00Z"),
    shippedAt: d("2026-02-01T00:00:00Z"),
    note: "Rush",
  },
  { id: 5, product: "box", quantity: 12, price: -20, discount: 0, soldAt: d("2026-03-29T23:59:59.999Z"), shippedAt: null, note: "" },
  { id: 6, product: "cap", quantity: 0, price: 75, discount: null, soldAt: d("2026-12-31T23:00:00Z"), shippedAt: null, note: null },
];

type Field = "id" | "product" | "quantity" | "price" | "discount" | "soldAt" | "shippedAt" | "note";
/** How a family reads a column: a field name (q), col(Line, field), ref(Line, alias, field), or a bound literal (values). */
type Reader = (field: Field) => any;
// The families are written once for every reader, so their operands are typed loosely here (the types are tested in core).
type Builders = any;

interface Family {
  readonly name: string;
  /** The expression over the row `r` reads. */
  readonly make: (f: Builders, r: Reader) => Expression<any, any>;
  /** A constant of the expression's kind to compare with. */
  readonly probe: unknown;
  /** The column `set` assigns it to (a nullable one of its kind). */
  readonly target: "discount" | "note" | "shippedAt";
  /** Whether its values are numbers (sum over a window) rather than texts or datetimes. */
  readonly number: boolean;
}

const FAMILIES: Family[] = [
  {
    name: "arithmetic",
    make: (f, r) => f.sub(f.mul(r("quantity"), r("price")), f.mod(r("quantity"), 2)),
    probe: 400,
    target: "discount",
    number: true,
  },
  {
    name: "case",
    make: (f, r) =>
      f
        .case(f.gte(r("quantity"), 5), f.val("bulk"))
        .when(f.eq(r("quantity"), 0), f.val("none"))
        .else(f.val("single")),
    probe: fn.val("c"),
    target: "note",
    number: false,
  },
  { name: "coalesce", make: (f, r) => f.coalesce(r("discount"), r("quantity")), probe: 2, target: "discount", number: true },
  { name: "nullif", make: (f, r) => f.nullif(r("quantity"), 3), probe: 1, target: "discount", number: true },
  { name: "cast", make: (f, r) => f.cast(r("quantity"), "text"), probe: fn.val("2"), target: "note", number: false },
  { name: "greatest", make: (f, r) => f.greatest(r("quantity"), r("discount")), probe: 3, target: "discount", number: true },
  {
    name: "string",
    make: (f, r) => f.concat(f.upper(f.substring(r("product"), 1, 1)), f.lower(f.trim(r("product")))),
    probe: fn.val("Pa"),
    target: "note",
    number: false,
  },
  {
    name: "date",
    make: (f, r) => f.addInterval(f.dateTrunc("day", r("soldAt")), r("quantity"), "hours"),
    probe: d("2026-03-29T00:00:00Z"),
    target: "shippedAt",
    number: false,
  },
];

const column_: Reader = (field) => col(Line, field);
const aliased =
  (alias: string): Reader =>
  (field) =>
    ref(Line, alias, field);
/** A row's values as bound literals of their kind (for values(), where no row is read). */
const literals =
  (row: Row): Reader =>
  (field) => {
    const value = row[field];
    const kind = field === "product" || field === "note" ? "text" : field === "soldAt" || field === "shippedAt" ? "datetime" : "integer";
    return fn.val(value as never, kind as never);
  };

interface Cell {
  readonly place: string;
  /** Statements run in order; the last one's rows are compared (writes then read the table back). */
  readonly run: () => Executable[];
  /** Writes: the table is loaded afresh before. */
  readonly writes?: boolean;
}

const read = () => select(Line).orderBy("id");

function cells(family: Family): Cell[] {
  const e = () => family.make(fn, column_);
  const probe = family.probe;
  return [
    {
      place: "columns",
      run: () => [
        select(Line)
          .columns(() => ({ id: "id", v: e() as never }))
          .orderBy("id"),
      ],
    },
    {
      place: "where",
      run: () => [
        select(Line, ["id"])
          .where(fn.gt(e(), probe as never))
          .orderBy("id"),
      ],
    },
    {
      place: "having",
      run: () => [
        select(Line)
          .columns((q) => ({ quantity: "quantity", hits: q.countIf(fn.gt(e(), probe as never)) }))
          .groupBy("quantity")
          .having(and({ hits: { gt: 0 } }, fn.gt(fn.count(e()), 0)))
          .orderBy("quantity"),
      ],
    },
    {
      place: "orderBy",
      run: () => [select(Line, ["id"]).orderBy(e(), "asc").orderBy("id"), select(Line, ["id"]).orderBy(e(), "desc").orderBy("id")],
    },
    {
      place: "groupBy",
      run: () => {
        const grouped = e();
        return [
          select(Line)
            .columns((q) => ({ k: grouped as never, n: q.count() }))
            .groupBy(grouped)
            .orderBy("k"),
          select(Line)
            .columns((q) => ({ k: e() as never, n: q.count(), top: q.max("id") }))
            .groupBy("k")
            .orderBy("k", "desc"),
        ];
      },
    },
    {
      place: "set",
      writes: true,
      run: () => [
        update(Line)
          .set({ [family.target]: e() } as never)
          .where({ id: { in: [1, 2, 3, 4, 5, 6] } }),
        read(),
      ],
    },
    {
      place: "values",
      writes: true,
      run: () => [
        deleteFrom(Line).allRows(),
        insert(Line).values(ROWS.map((row) => ({ ...row, [family.target]: family.make(fn, literals(row)) })) as never),
        read(),
      ],
    },
    {
      place: "window",
      run: () => [
        select(Line)
          .columns((q) => {
            const byId = { orderBy: ["id"] } as const;
            return {
              id: "id",
              agg: (family.number ? q.sum(e() as never) : q.count(e())).over(byId),
              before: q.lag(e()).over(byId),
            };
          })
          .orderBy("id"),
        select(Line)
          .columns((q) => ({ id: "id", n: q.count().over({ partitionBy: [e()] }) }))
          .orderBy("id"),
        select(Line)
          .columns((q) => ({ id: "id", place: q.rowNumber().over({ orderBy: [[e(), "desc"], "id"] }) }))
          .orderBy("id"),
      ],
    },
    {
      place: "join",
      run: () => {
        const [a, b] = [family.make(fn, aliased("a")), family.make(fn, aliased("b"))];
        return [
          select(Line, "a")
            .innerJoin(Line, "b", and(fn.eq(a, b), fn.lt(ref(Line, "a", "id"), ref(Line, "b", "id"))))
            .columns({ left: "a.id", right: "b.id" })
            .orderBy("left")
            .orderBy("right"),
          // Over a left-joined source: the missing row's NULL sorts as the largest value.
          select(Line, "a")
            .leftJoin(
              Line,
              "b",
              and(fn.eq(ref(Line, "a", "id"), fn.add(ref(Line, "b", "id"), 1)), fn.gt(family.make(fn, aliased("b")), probe as never)),
            )
            .columns(() => ({ left: "a.id", v: family.make(fn, aliased("b")) as never }))
            .orderBy(family.make(fn, aliased("b")), "asc")
            .orderBy("left"),
        ];
      },
    },
  ];
}

async function answer(engine: Engine, statements: Executable[]): Promise<unknown> {
  let last: unknown;
  for (const statement of statements) {
    try {
      engine.compile(statement);
    } catch (error) {
      if (UnsupportedFeatureError.isInstance(error)) return `refused: ${(error as Error).message}`;
      throw error;
    }
    last = await engine.execute(statement).all();
  }
  return last;
}

async function load(target: Target): Promise<void> {
  await target.engine.execute(deleteFrom(Line).allRows()).rowsAffected();
  await target.engine.execute(insert(Line).values(ROWS)).rowsAffected();
}

let targets: Target[] = [];
const outcome = new Map<string, Map<string, string>>();

beforeAll(async () => {
  targets = await openTargets();
  for (const t of targets) {
    await t.engine.dropAll([Line]);
    await t.engine.createAll([Line]);
    await load(t);
  }
});

afterAll(async () => {
  for (const t of targets) await t.engine.dropAll([Line]);
  await closeTargets(targets);
  const places = [...(outcome.values().next().value?.keys() ?? [])];
  const lines = [`| family | ${places.join(" | ")} |`, `|---|${places.map(() => "---").join("|")}|`];
  for (const [family, byPlace] of outcome) lines.push(`| ${family} | ${places.map((p) => byPlace.get(p) ?? "?").join(" | ")} |`);
  console.log(`expression placements (same rows on ${targets.map((t) => t.label).join(", ")}):\n${lines.join("\n")}`);
});

describe("every place takes every expression family, with the same answer on every database", () => {
  for (const family of FAMILIES) {
    for (const cell of cells(family)) {
      it(`${cell.place} × ${family.name}`, async () => {
        const byPlace = outcome.get(family.name) ?? new Map<string, string>();
        outcome.set(family.name, byPlace);
        byPlace.set(cell.place, "failed");
        const answers: { label: string; rows: unknown }[] = [];
        for (const t of targets) {
          await t.prepare();
          if (cell.writes) await load(t);
          answers.push({ label: t.label, rows: await answer(t.engine, cell.run()) });
        }
        for (const a of answers) expect({ label: a.label, rows: a.rows }).toEqual({ label: a.label, rows: answers[0]?.rows });
        const rows = answers[0]?.rows;
        expect(Array.isArray(rows) && rows.length > 0, `${cell.place} × ${family.name} answers rows`).toBe(true);
        byPlace.set(cell.place, "same");
        if (cell.writes) for (const t of targets) await load(t);
      });
    }
  }
});
