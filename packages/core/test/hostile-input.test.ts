import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { Engine, Executable, JsonValue } from "../src/index.js";
import {
  column,
  createIndexes,
  createTable,
  defineCapabilities,
  deleteFrom,
  insert,
  Model,
  not,
  or,
  select,
  sql,
  uniqueIndex,
  update,
  ValidationError,
} from "../src/index.js";
import { hostileStrings } from "../src/testing/hostile-strings.js";
import { fullCapabilities, testEngine } from "./support/test-dialect.js";

/**
 * Hostile input, without a database: whatever a value holds, it never changes the SQL text; whatever
 * an identifier holds, it stays one quoted identifier; whatever is not a value is refused while the
 * statement is built or compiled, before anything could reach a driver.
 */

const RUNS = 200;
const run = (property: fc.IProperty<any>, numRuns = RUNS) => fc.assert(property, { numRuns });

/** Dialect without NUL in text (PostgreSQL, SQLite) and with it (MySQL/MariaDB). */
const strict = testEngine(fullCapabilities);
const nulTolerant = testEngine(defineCapabilities({ ...fullCapabilities, nulInText: true }));

const NASTY = hostileStrings;

/** Well-formed strings made for trouble: SQL metacharacters, placeholders, astral and combining characters. */
const hostileString = (nul: boolean) =>
  fc
    .oneof(
      fc
        .array(fc.oneof(fc.constantFrom(...NASTY), fc.string({ unit: "binary", minLength: 1, maxLength: 1 })), { maxLength: 12 })
        .map((parts) => parts.join("")),
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.constantFrom(...NASTY, ""),
    )
    .map((s) => (nul ? s : s.replaceAll("\0", "")));

/** A pair of different hostile strings. */
const twoStrings = (nul: boolean) => fc.tuple(hostileString(nul), hostileString(nul)).filter(([a, b]) => a !== b);

class Doc extends Model {
  static tablename = "docs";
  id = column.integer().primaryKey();
  label = column.text();
  code = column.varchar(8);
  data = column.json();
  at = column.datetime();
  blob = column.bytes();
  count = column.integer();
  kind = column.enum("a", "b");
}

/** A like pattern made of the value: `%` after it, so that a trailing backslash (refused, it escapes nothing) escapes the `%`. */
const pattern = (v: string) => `${v}%`;

/** Statement shapes with one hostile string in every value position the builders have. */
const shapes: Record<string, (v: string) => Executable<unknown>> = {
  "select where eq": (v) => select(Doc).where({ label: v }),
  "select where operators": (v) =>
    select(Doc).where({ label: { ne: v, lt: v, gte: v, in: [v, v], notIn: [v], between: [v, v], like: pattern(v), ilike: pattern(v) } }),
  "select where or/not": (v) => select(Doc, ["id"]).where(or({ label: v }, not({ label: { like: pattern(v) } }))),
  "select where sql.expr": (v) => select(Doc).where(sql.expr`lower(label) = lower(${v}) or label = ${sql.expr`${v}`}`),
  "update set": (v) =>
    update(Doc)
      .set({ label: v, data: { [v]: [v, { v }] } })
      .where({ label: v }),
  "update set sql.expr": (v) =>
    update(Doc)
      .set({ label: sql.expr`concat(${v}, label)` })
      .where({ label: { in: [v] } }),
  "insert values": (v) =>
    insert(Doc).values([
      { id: 1, label: v, data: v },
      { id: 2, label: v },
    ]),
  "insert upsert": (v) =>
    insert(Doc)
      .values({ id: 1, label: v })
      .onConflictDoUpdate(["id"], { label: v }, { updateWhere: { label: { ne: v } } })
      .returning(["id"]),
  "delete where": (v) => deleteFrom(Doc).where({ label: { like: pattern(v) } }),
  "select where json": (v) => select(Doc).where({ data: { eq: v } }),
};

/** A NUL anywhere in the parameters, inside JSON values and their keys too. */
function hasNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\0");
  if (Array.isArray(value)) return value.some(hasNul);
  if (typeof value === "object" && value !== null) return Object.entries(value).some(([k, v]) => k.includes("\0") || hasNul(v));
  return false;
}

describe("values never change the SQL text", () => {
  for (const [name, shape] of Object.entries(shapes)) {
    test(`${name}: two different strings compile to the same SQL, only the parameters differ`, () => {
      for (const [engine, nul] of [
        [strict, false],
        [nulTolerant, true],
      ] as const) {
        run(
          fc.property(twoStrings(nul), ([a, b]) => {
            const ca = engine.compile(shape(a));
            const cb = engine.compile(shape(b));
            expect(cb.sql).toBe(ca.sql);
            expect(ca.params.length).toBeGreaterThan(0);
            expect(cb.params.length).toBe(ca.params.length);
            expect(ca.params).not.toEqual(cb.params);
            // The value travels whole, as a parameter.
            expect(ca.params.some((p) => p === a || JSON.stringify(p).includes(JSON.stringify(a).slice(1, -1)))).toBe(true);
            expect(hasNul(ca.params)).toBe(a.includes("\0"));
          }),
          100,
        );
      }
    });
  }

  test("the SQL text of each shape is fixed: the one compiled from a harmless value", () => {
    run(
      fc.property(hostileString(false), (v) => {
        for (const shape of Object.values(shapes)) expect(strict.compile(shape(v)).sql).toBe(strict.compile(shape("x")).sql);
      }),
    );
  });
});

describe("NUL and lone surrogates", () => {
  const LONE = ["\ud800", "\udfff", "a\udc00b", "\ud83d", "x\ude00", `${"😀".slice(1)}😀`];
  const loneString = fc.tuple(hostileString(false), fc.constantFrom(...LONE), hostileString(false)).map(([a, lone, b]) => a + lone + b);
  const nulString = fc.tuple(hostileString(false), hostileString(false)).map(([a, b]) => `${a}\0${b}`);

  test("a NUL in a value is a ValidationError while compiling where the dialect cannot store it, a parameter where it can", () => {
    run(
      fc.property(nulString, fc.constantFrom(...Object.values(shapes)), (v, shape) => {
        const statement = shape(v); // building is dialect-agnostic
        expect(() => strict.compile(statement)).toThrow(ValidationError);
        expect(() => strict.compile(statement)).toThrow(/NUL/);
        expect(hasNul(nulTolerant.compile(statement).params)).toBe(true);
      }),
    );
  });

  test("a lone surrogate in a value is a ValidationError on every dialect (drivers would write U+FFFD instead)", () => {
    run(
      fc.property(loneString, fc.constantFrom(...Object.values(shapes)), (v, shape) => {
        for (const engine of [strict, nulTolerant]) {
          expect(() => engine.compile(shape(v))).toThrow(ValidationError);
          expect(() => engine.compile(shape(v))).toThrow(/surrogate/);
        }
      }),
    );
  });

  test("NUL and lone surrogates inside JSON values, keys included, are caught too", () => {
    const values: JsonValue[] = [{ a: "x\0" }, { "k\0": 1 }, ["\ud800"], { deep: [{ deeper: "\udfff" }] }, { "\udbff": true }];
    for (const data of values) {
      expect(() => strict.compile(update(Doc).set({ data }).where({ id: 1 }))).toThrow(ValidationError);
    }
    expect(
      nulTolerant.compile(
        update(Doc)
          .set({ data: { "k\0": "v\0" } })
          .where({ id: 1 }),
      ).params,
    ).toHaveLength(2);
    expect(() =>
      nulTolerant.compile(
        update(Doc)
          .set({ data: { k: "\ud800" } })
          .where({ id: 1 }),
      ),
    ).toThrow(/surrogate/);
  });

  test("NUL or a lone surrogate in the SQL text itself (sql.raw, sql.expr text) is refused on every dialect", () => {
    // SQLite's prepare stops at the first NUL and would silently run only the statement's beginning.
    const texts = ["1 = 1\0 AND label = 'x'", "label = '\ud800'"];
    for (const engine of [strict, nulTolerant]) {
      for (const text of texts) {
        expect(() => engine.compile(select(Doc).where(sql.raw(text)))).toThrow(ValidationError);
        expect(() => engine.compile(sql.raw(`SELECT ${text}`))).toThrow(ValidationError);
        expect(() =>
          engine.compile(
            update(Doc)
              .set({ count: sql.raw(text) })
              .where({ id: 1 }),
          ),
        ).toThrow(ValidationError);
      }
      expect(() => engine.compile(select(Doc).where(sql.expr`label = ${"x"}\0`))).toThrow(ValidationError);
    }
  });

  test("such SQL text is refused where it enters, when the statement is built: sql.raw, sql.expr, model names", () => {
    expect(() => sql.raw("1 = 1\0 AND label = 'x'")).toThrow(/The SQL text of sql.raw contains NUL/);
    expect(() => sql.raw("label = '\ud800'")).toThrow(/The SQL text of sql.raw contains a lone UTF-16 surrogate/);
    expect(() => sql.expr`label = ${"x"}\0`).toThrow(/The SQL text of an sql.expr template contains NUL/);
    // A forged template array is checked on every call: it could be changed after the first.
    const forged = Object.assign(["label = ", ""], { raw: ["label = ", ""] });
    expect(() => sql.expr(forged as unknown as TemplateStringsArray, "x")).not.toThrow();
    forged[1] = "\0";
    expect(() => sql.expr(forged as unknown as TemplateStringsArray, "x")).toThrow(ValidationError);
    class BadTable extends Model {
      static tablename = "docs\0; DROP TABLE docs";
      id = column.integer().primaryKey();
    }
    class BadColumn extends Model {
      static tablename = "docs";
      id = column.integer().primaryKey().name("id\ud800");
    }
    expect(() => select(BadTable)).toThrow(/BadTable.tablename .* contains NUL/);
    expect(() => select(BadColumn)).toThrow(/BadColumn.id's column name .* lone UTF-16 surrogate/);
  });

  test("well-formed astral characters and surrogate pairs pass untouched", () => {
    const v = "😀👨‍👩‍👧\u{10ffff}\u{1d11e}";
    expect(strict.compile(select(Doc).where({ label: v })).params).toEqual([v]);
  });
});

describe("identifiers stay identifiers", () => {
  /** Splits SQL into quoted identifiers, string literals and the rest, honouring doubled quotes. */
  function tokenize(text: string): { skeleton: string; identifiers: string[] } {
    const identifiers: string[] = [];
    let skeleton = "";
    let i = 0;
    while (i < text.length) {
      const ch = text[i] as string;
      if (ch === '"' || ch === "'") {
        let j = i + 1;
        let value = "";
        for (;;) {
          if (j >= text.length) throw new Error(`unterminated ${ch} in ${text}`);
          if (text[j] === ch) {
            if (text[j + 1] === ch) {
              value += ch;
              j += 2;
              continue;
            }
            break;
          }
          value += text[j];
          j++;
        }
        if (ch === '"') {
          identifiers.push(value);
          skeleton += "<id>";
        } else {
          skeleton += "<str>";
        }
        i = j + 1;
      } else {
        skeleton += ch;
        i++;
      }
    }
    return { skeleton, identifiers };
  }

  const identifier = hostileString(false).filter((s) => s.length > 0);

  function modelNamed(table: string, col: string, indexName: string) {
    return class extends Model {
      static tablename = table;
      static indexes = [uniqueIndex(indexName, ["value"]).where({ value: { isNull: false } })];
      id = column.integer().primaryKey();
      value = column.text().name(col).default("d'\\");
    };
  }

  function statements(model: ReturnType<typeof modelNamed>, engine: Engine): string[] {
    return [
      engine.compile(createTable(model)).sql,
      ...createIndexes(model).map((i) => engine.compile(i).sql),
      engine.compile(
        insert(model)
          .values({ id: 1, value: "v" })
          .onConflictDoUpdate(["id"], { value: sql.excluded("value") })
          .returning(),
      ).sql,
      engine.compile(
        select(model).where({
          value: {
            in: select(model)
              .forUpdate({ of: [model] })
              .limit(1)
              .asSubquery("value"),
          },
        }),
      ).sql,
      engine.compile(
        update(model)
          .set({ value: sql.ref("value") })
          .where({ value: "x" }),
      ).sql,
      engine.compile(deleteFrom(model).where({ id: 1 })).sql,
    ];
  }

  test("table, column (.name()) and index names of any characters quote into exactly one identifier each", () => {
    const plain = statements(modelNamed("t", "c", "i"), strict).map(tokenize);
    run(
      fc.property(identifier, identifier, identifier, (table, col, indexName) => {
        fc.pre(col !== "id");
        const hostile = statements(modelNamed(table, col, indexName), strict).map(tokenize);
        hostile.forEach((tokens, n) => {
          const expected = plain[n] as (typeof plain)[number];
          expect(tokens.skeleton).toBe(expected.skeleton);
          const rename: Record<string, string> = { t: table, c: col, i: indexName, id: "id" };
          expect(tokens.identifiers).toEqual(expected.identifiers.map((name) => rename[name] ?? name));
        });
      }),
    );
  });

  test("NUL or a lone surrogate in an identifier is a ValidationError", () => {
    for (const bad of ["a\0b", "\0", "a\ud800"]) {
      for (const model of [modelNamed(bad, "c", "i"), modelNamed("t", bad, "i"), modelNamed("t", "c", bad)]) {
        expect(() => statements(model, strict)).toThrow(ValidationError);
      }
    }
  });
});

describe("anything that is not a value is refused", () => {
  const real = sql.raw("1 = 1");
  class Account {
    name = "admin";
    toString() {
      return "admin";
    }
  }
  class SneakyDate extends Date {
    override toISOString() {
      return "1970-01-01T00:00:00.000Z'; DROP TABLE docs; --";
    }
  }
  const hostileObjects: [string, () => unknown][] = [
    ["a plain object", () => ({ name: "admin" })],
    ["an empty object", () => ({})],
    ["a null-prototype object", () => Object.assign(Object.create(null), { name: "admin" })],
    ["an array", () => ["admin"]],
    ["a nested array", () => [["admin"]]],
    ["a function", () => () => "admin"],
    ["a class", () => Account],
    ["a symbol", () => Symbol("admin")],
    ["a registered symbol", () => Symbol.for("tempest-db-js.expression")],
    ["a class instance with toString", () => new Account()],
    ["a Map", () => new Map([["name", "admin"]])],
    ["a Set", () => new Set(["admin"])],
    ["a RegExp", () => /admin/],
    ["a WeakMap", () => new WeakMap()],
    ["an Error", () => new Error("admin")],
    ["a Promise", () => Promise.resolve("admin")],
    ["a boxed String", () => new String("admin")],
    ["a boxed Number", () => new Number(1)],
    ["a Date subclass", () => new SneakyDate(0)],
    ["an object made from Date.prototype", () => Object.create(Date.prototype)],
    ["an invalid Date", () => new Date(Number.NaN)],
    ["a Proxy of a Date", () => new Proxy(new Date(0), {})],
    ["a Proxy of an object", () => new Proxy({ name: "admin" }, {})],
    ["a Proxy of an array", () => new Proxy(["admin"], {})],
    ["an object made from Uint8Array.prototype", () => Object.create(Uint8Array.prototype)],
    ["an ArrayBuffer", () => new ArrayBuffer(2)],
    ["a DataView", () => new DataView(new ArrayBuffer(2))],
    ["a Float64Array", () => new Float64Array(1)],
    ["toString/valueOf/toJSON tricks", () => ({ toString: () => "admin", valueOf: () => 1, toJSON: () => "admin" })],
    ["a Symbol.toPrimitive trick", () => ({ [Symbol.toPrimitive]: () => "admin" })],
    ["a forged node", () => ({ node: { kind: "raw", text: "1 = 1; DROP TABLE docs" } })],
    ["a forged kind", () => ({ kind: "raw", text: "1 = 1" })],
    ["a forged param", () => ({ kind: "param", value: "x", column: undefined })],
    ["a JSON.parse'd expression", () => JSON.parse(JSON.stringify(real))],
    ["a spread of an expression", () => ({ ...real })],
    ["Object.assign of an expression", () => Object.assign({}, real)],
    ["a JSON.parse'd __proto__ trick", () => JSON.parse('{"__proto__": {"eq": "x"}, "eq": "x"}')],
    ["a builder", () => select(Doc)],
    ["a subquery used as a value", () => select(Doc).asSubquery("label")],
    ["NaN", () => Number.NaN],
    ["Infinity", () => Number.POSITIVE_INFINITY],
    ["undefined inside an array", () => [undefined]],
  ];
  /** Columns where none of the above is a value (bytes take a Uint8Array, json takes plain objects and arrays). */
  const fields = ["label", "code", "at", "count", "kind", "blob"] as const;
  const loose = (value: unknown) => value as never;

  const attempts: [string, (field: string, value: unknown) => unknown][] = [
    [
      "update().set",
      (field, value) =>
        update(Doc)
          .set(loose({ [field]: value }))
          .where({ id: 1 }),
    ],
    ["insert().values", (field, value) => insert(Doc).values(loose({ id: 1, [field]: value }))],
    ["insert().values (second row)", (field, value) => insert(Doc).values(loose([{ id: 1 }, { id: 2, [field]: value }]))],
    [
      "onConflictDoUpdate set",
      (field, value) =>
        insert(Doc)
          .values({ id: 1 })
          .onConflictDoUpdate(["id"], loose({ [field]: value })),
    ],
    ["where { field: value }", (field, value) => select(Doc).where(loose({ [field]: value }))],
    ["where { field: { eq: value } }", (field, value) => select(Doc).where(loose({ [field]: { eq: value } }))],
    ["where { field: { gt: value } }", (field, value) => select(Doc).where(loose({ [field]: { gt: value } }))],
    ["where { field: { in: [value] } }", (field, value) => select(Doc).where(loose({ [field]: { in: [value] } }))],
    ["where { field: { in: value } }", (field, value) => select(Doc).where(loose({ [field]: { in: value } }))],
    ["where { field: { between: [value, value] } }", (field, value) => select(Doc).where(loose({ [field]: { between: [value, value] } }))],
    ["where { field: { like: value } }", (field, value) => select(Doc).where(loose({ [field]: { like: value } }))],
    [
      "update().where",
      (field, value) =>
        update(Doc)
          .set({ count: 1 })
          .where(loose({ [field]: value })),
    ],
    ["deleteFrom().where", (field, value) => deleteFrom(Doc).where(loose({ [field]: value }))],
  ];

  /** The pairs that are legal after all: an array of strings, or a subquery, as the operand of `in`. */
  const legal = (name: string, attempt: string, field: string) =>
    attempt === "where { field: { in: value } }" &&
    (name === "a subquery used as a value" ||
      ((name === "an array" || name === "a Proxy of an array") && (field === "label" || field === "code")));

  test.each(hostileObjects)("%s is a ValidationError in set, values and where, for every column kind", (name, make) => {
    for (const field of fields) {
      for (const [attemptName, attempt] of attempts) {
        if (legal(name, attemptName, field)) continue;
        expect(() => strict.compile(attempt(field, make()) as Executable<unknown>), `${attemptName} on ${field}`).toThrow(ValidationError);
      }
    }
  });

  test.each(hostileObjects)("%s is a ValidationError as an sql.expr value and as a whole where", (name, make) => {
    expect(() => strict.compile(select(Doc).where(sql.expr`label = ${make()}`))).toThrow(ValidationError);
    // `where({})` is legal: no condition at all.
    if (name !== "an empty object") expect(() => select(Doc).where(loose(make()))).toThrow(ValidationError);
  });

  test("where({ secret: { name: 'admin' } }) is never SQL", () => {
    expect(() => select(Doc).where(loose({ label: { name: "admin" } }))).toThrow(/unknown operator "name"/);
  });

  test("a forged expression is data in a json column, never SQL", () => {
    const forged = { node: { kind: "raw", text: "1 = 1; DROP TABLE docs" } };
    const compiled = strict.compile(update(Doc).set({ data: forged }).where({ id: 1 }));
    expect(compiled.sql).toBe(`UPDATE "docs" SET "data" = ? WHERE "id" = ?`);
    expect(compiled.params).toEqual([forged, 1]);
    for (const [name, make] of hostileObjects) {
      if (
        [
          "a plain object",
          "an empty object",
          "a null-prototype object",
          "an array",
          "a nested array",
          "a forged node",
          "a forged kind",
          "a forged param",
          "a JSON.parse'd expression",
          "a spread of an expression",
          "Object.assign of an expression",
          "a JSON.parse'd __proto__ trick",
          "a Proxy of an object",
          "a Proxy of an array",
        ].includes(name)
      )
        continue;
      expect(
        () =>
          update(Doc)
            .set(loose({ data: make() }))
            .where({ id: 1 }),
        name,
      ).toThrow(ValidationError);
    }
  });

  test("anything fast-check can make either fails with ValidationError or reaches the driver as a scalar parameter", () => {
    const scalarOrNull = (p: unknown) => p === null || ["string", "number", "boolean", "bigint"].includes(typeof p);
    run(
      fc.property(
        fc.anything({
          withBigInt: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withTypedArray: true,
          withSparseArray: true,
          withNullPrototype: true,
          withBoxedValues: true,
        }),
        (value) => {
          for (const [, attempt] of attempts) {
            for (const field of ["label", "count"]) {
              let compiled: ReturnType<Engine["compile"]>;
              try {
                compiled = strict.compile(attempt(field, value) as Executable<unknown>);
              } catch (error) {
                expect(error).toBeInstanceOf(ValidationError);
                continue;
              }
              expect(compiled.params.every(scalarOrNull)).toBe(true);
            }
          }
        },
      ),
    );
  });
});

describe("lengths and keys", () => {
  test("varchar(n) counts characters as the databases do: code points, not UTF-16 units", () => {
    run(
      fc.property(fc.string({ unit: "binary", minLength: 1, maxLength: 8 }), (v) => {
        fc.pre(!v.includes("\0"));
        expect(strict.compile(update(Doc).set({ code: v }).where({ id: 1 })).params[0]).toBe(v);
        expect(() => update(Doc).set({ code: `${v}${"😀".repeat(8)}` })).toThrow(/at most 8 characters/);
      }),
    );
  });

  test("holes in sparse arrays are refused as undefined, never skipped", () => {
    const loose = (value: unknown) => value as never;
    /** An array of `length` with values only at the given indexes: the others are holes. */
    const sparse = (length: number, values: Record<number, unknown>) => Object.assign(new Array(length), values);
    expect(() => select(Doc).where(loose({ count: { in: sparse(3, { 0: 1, 2: 2 }) } }))).toThrow(/count\.in\[1\].*undefined/);
    expect(() => select(Doc).where(loose({ count: { between: sparse(2, { 1: 2 }) } }))).toThrow(ValidationError);
    expect(() => insert(Doc).values(loose(sparse(3, { 0: { id: 1 }, 2: { id: 2 } })))).toThrow(/row 1 is undefined, not an object/);
  });

  test("symbol or non-enumerable keys in where, set, values and JSON are refused, not silently dropped", () => {
    const loose = (value: unknown) => value as never;
    /** `base` plus a `label` key hidden from Object.keys: as a symbol, or as a non-enumerable property. */
    const variants = (base: object) => [
      Object.assign({ ...base }, { [Symbol("label")]: "x" }),
      Object.defineProperty({ ...base }, "label", { value: "x", enumerable: false }),
    ];
    for (const record of variants({})) {
      expect(() => select(Doc).where(loose(record))).toThrow(/symbol or non-enumerable keys/);
      expect(() => update(Doc).set(loose(record))).toThrow(/symbol or non-enumerable keys/);
      expect(() =>
        update(Doc)
          .set(loose({ data: record }))
          .where({ id: 1 }),
      ).toThrow(ValidationError);
    }
    for (const record of variants({ eq: "y" }))
      expect(() => select(Doc).where(loose({ label: record }))).toThrow(/symbol or non-enumerable keys/);
    for (const record of variants({ id: 1 })) expect(() => insert(Doc).values(loose(record))).toThrow(/symbol or non-enumerable keys/);
  });
});
