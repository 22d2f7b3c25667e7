import { afterEach, describe, expect, test, vi } from "vitest";
import { rowReader } from "../src/builder/row-reader.js";
import { column, insert, Model, sql } from "../src/index.js";
import { tableMeta } from "../src/schema/table-meta.js";
import { fullCapabilities, testEngine } from "./support/test-dialect.js";

const engine = testEngine();

class Item extends Model {
  static tablename = "items";
  id = column.integer().primaryKey();
  name = column.text().notNull();
  note = column.text();
  qty = column.integer().notNull();
  price = column.real().notNull();
  active = column.boolean();
  status = column.enum("new", "old");
  at = column.datetime();
}

const T0 = new Date("2024-05-01T10:00:00.000Z");
const row = (i: number) => ({
  id: i,
  name: `item ${i}`,
  note: i % 2 ? null : "n",
  qty: i * 7,
  price: i / 4,
  active: i % 3 === 0,
  status: "new" as const,
});

/** The cells compiled from `rows`, and from the same rows with the first one's keys in another order (the general path). */
function bothPaths(rows: Record<string, unknown>[]) {
  const fast = engine.compile(insert(Item).values(rows as never));
  const [first, ...rest] = rows as Record<string, unknown>[];
  const reordered = Object.fromEntries(Object.entries(first as object).reverse());
  const general = engine.compile(insert(Item).values([reordered, ...rest] as never));
  return { fast, general };
}

describe("bulk insert rows read by the reader generated for their fields", () => {
  afterEach(() => vi.restoreAllMocks());

  test("gives the same SQL and cells as the general path, nulls in nullable columns included", () => {
    const rows = Array.from({ length: 50 }, (_, i) => row(i + 1));
    const { fast, general } = bothPaths(rows);
    expect(fast.sql).toBe(general.sql);
    expect(fast.params).toEqual(general.params);
    expect(fast.params.slice(0, 8)).toEqual([1, "item 1", null, 7, 0.25, false, "new", 2]);
  });

  test("the reader takes plain cells and stops, without throwing, at the first row it cannot take as it is", () => {
    const table = tableMeta(Item);
    const names = ["id", "name", "qty", "price"];
    const columns = table.columns.filter((c) => names.includes(c.field));
    const read = rowReader(names, columns);
    expect(read).toBeTypeOf("function");
    const ok = { id: 1, name: "a", qty: 2, price: 1.5 };
    const cells: unknown[] = [];
    expect(read?.([ok, { ...ok, id: 2 }], cells)).toBe(-1);
    expect(cells).toEqual([1, "a", 2, 1.5, 2, "a", 2, 1.5]);
    const stops: [unknown, string][] = [
      [{ ...ok, id: 1.5 }, "a fraction in an integer column"],
      [{ ...ok, name: null }, "null in a NOT NULL column"],
      [{ ...ok, price: Number.NaN }, "NaN"],
      [{ ...ok, name: 5 }, "a number in a text column"],
      [{ ...ok, qty: undefined }, "undefined"],
      [{ name: "a", id: 1, qty: 2, price: 1.5 }, "another key order"],
      [{ ...ok, extra: 1 }, "an extra key"],
      [{ id: 1, name: "a", qty: 2 }, "a missing key"],
      [Object.assign(Object.create({ inherited: 1 }), ok), "a prototype that is not Object.prototype"],
      [{ ...ok, [Symbol("s")]: 1 }, "a symbol key"],
      [Object.defineProperty({ ...ok }, "hidden", { value: 1, enumerable: false }), "a non-enumerable key"],
      [[1, "a", 2, 1.5], "an array"],
      [null, "null"],
    ];
    for (const [bad, why] of stops) expect(read?.([ok, bad], []), why).toBe(1);
  });

  test("a row the reader stops at is read again by the general path, which words the error with its index", () => {
    const rows: Record<string, unknown>[] = Array.from({ length: 5 }, (_, i) => row(i + 1));
    rows[3] = { ...row(4), qty: 2.5 };
    expect(() => insert(Item).values(rows as never)).toThrow(/values row 3: qty expects a safe integer/);
    rows[3] = { ...row(4), name: null };
    expect(() => insert(Item).values(rows as never)).toThrow(/values row 3: name is NOT NULL/);
    rows[3] = { ...row(4), [Symbol("tag")]: 1 };
    expect(() => insert(Item).values(rows as never)).toThrow(/row 3: the object has symbol or non-enumerable keys/);
    rows[3] = Object.defineProperty(row(4), "secret", { value: 1, enumerable: false });
    expect(() => insert(Item).values(rows as never)).toThrow(/row 3: the object has symbol or non-enumerable keys/);
    rows[3] = { ...row(4), status: "gone" };
    expect(() => insert(Item).values(rows as never)).toThrow(/values row 3: status expects one of "new", "old"/);
  });

  test("Dates, expressions and JSON-like values go the general path and keep their meaning", () => {
    const rows = [
      { ...row(1), at: T0 },
      { ...row(2), at: sql.now() },
    ];
    const compiled = engine.compile(insert(Item).values(rows));
    expect(compiled.sql).toContain("(?, ?, ?, ?, ?, ?, ?, NOW())");
    expect(compiled.params[7]).toBe(T0);
  });

  test("a column with a random default that no row names gets a fresh uuid per row", () => {
    class Keyed extends Model {
      static tablename = "keyed_reader";
      id = column.uuid().primaryKey().defaultRandom();
      label = column.text().notNull();
    }
    const compiled = engine.compile(insert(Keyed).values(Array.from({ length: 20 }, (_, i) => ({ label: `l${i}` }))));
    const ids = compiled.params.filter((_, i) => i % 2 === 0);
    expect(new Set(ids).size).toBe(20);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(compiled.params.filter((_, i) => i % 2 === 1)).toEqual(Array.from({ length: 20 }, (_, i) => `l${i}`));
  });

  test("field names are quoted into the generated source, never spliced as code", () => {
    class Odd extends Model {
      static tablename = "odd_fields";
      'a"); throw new Error("injected"); ("' = column.integer().primaryKey();
      "line\u2028break" = column.text();
    }
    const fields = Object.keys(new Odd());
    const rows = [0, 1].map((i) => ({ [fields[0] as string]: i, [fields[1] as string]: `t${i}` }));
    expect(engine.compile(insert(Odd).values(rows as never)).params).toEqual([0, "t0", 1, "t1"]);
  });

  test("a grid larger than one bulk append binds every cell in order", () => {
    const wide = testEngine({ ...fullCapabilities, maxParams: 32_766 });
    const rows = Array.from({ length: 1_500 }, (_, i) => ({ id: i, name: `n${i}`, qty: i * 2, price: i + 0.5 }));
    const compiled = wide.compile(insert(Item).values(rows));
    expect(compiled.params).toHaveLength(6_000);
    expect(compiled.params).toEqual(rows.flatMap((r) => [r.id, r.name, r.qty, r.price]));
  });

  test("where code cannot be generated, every insert takes the general path with the same result", () => {
    class Plain extends Model {
      static tablename = "no_codegen";
      id = column.integer().primaryKey();
      label = column.text().notNull();
    }
    vi.spyOn(globalThis, "Function").mockImplementation(function refuse(): never {
      throw new EvalError("code generation from strings disallowed for this context");
    });
    const compiled = engine.compile(
      insert(Plain).values([
        { id: 1, label: "a" },
        { id: 2, label: "b" },
      ]),
    );
    expect(globalThis.Function).toHaveBeenCalled();
    expect(compiled.params).toEqual([1, "a", 2, "b"]);
    expect(() => insert(Plain).values([{ id: 1, label: "a" }, { id: 2, label: 3 } as never])).toThrow(
      /values row 1: label expects a string/,
    );
  });
});
