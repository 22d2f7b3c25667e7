import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { checkValue } from "../src/builder/check-value.js";
import { rowReader } from "../src/builder/row-reader.js";
import { acceptKind, fits, valueAccepter } from "../src/builder/value-accepter.js";
import { and, column, deleteFrom, insert, Model, or, select, sql, update, ValidationError } from "../src/index.js";
import { tableMeta } from "../src/schema/table-meta.js";
import { Outbound } from "./support/outbound.js";
import { testEngine } from "./support/test-dialect.js";

const engine = testEngine();
const ID = "5b1a9f43-64a8-4c43-9a7e-1b4a0f0c0a11";
const message = { id: ID, consumer: "billing", idempotencyKey: "k", status: "queued", nextAttemptAt: new Date(0) } as const;

class User extends Model {
  static tablename = "users";
  id = column.integer().primaryKey();
  secret = column.text();
  profile = column.json();
}

class Thing {
  value = 1;
}

/** Values that are neither scalars nor branded expressions. */
const strays: [string, unknown][] = [
  ["a plain object", { raw: "attempts + 1" }],
  ["an array", [1]],
  ["a function", () => 1],
  ["a symbol", Symbol("x")],
  ["a class instance", new Thing()],
  ["a Map", new Map([["a", 1]])],
  ["a Set", new Set([1])],
  ["a Promise", Promise.resolve(1)],
  ["undefined", undefined],
  ["NaN", Number.NaN],
];

/** Runs `build`, expecting a ValidationError whose message matches. */
function refused(build: () => unknown, message?: RegExp): ValidationError {
  let thrown: unknown;
  try {
    build();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, "expected a ValidationError").toBeInstanceOf(ValidationError);
  const error = thrown as ValidationError;
  expect(error.name).toBe("ValidationError");
  expect(error.code).toBe("VALIDATION_ERROR");
  if (message) expect(error.message).toMatch(message);
  return error;
}

const loose = (value: unknown) => value as never;

describe("unknown fields", () => {
  test("in where, set, values, orderBy, returning, select, asSubquery, conflict targets", () => {
    refused(() => select(Outbound).where(loose({ nope: 1 })), /has no field "nope"/);
    refused(() => update(Outbound).set(loose({ nope: 1 })), /has no field "nope"/);
    refused(() => insert(Outbound).values(loose({ ...message, nope: 1 })), /no field "nope"/);
    refused(() => insert(Outbound).values(loose([message, { ...message, nope: 1 }])), /row 1: no field "nope"/);
    refused(() => select(Outbound).orderBy(loose("nope")), /orderBy.*no field "nope"/);
    refused(
      () =>
        update(Outbound)
          .set({ attempts: 1 })
          .returning(loose(["id", "nope"])),
      /returning.*no field "nope"/,
    );
    refused(() => deleteFrom(Outbound).returning(loose(["nope"])), /no field "nope"/);
    refused(
      () =>
        insert(Outbound)
          .values(message)
          .returning(loose(["nope"])),
      /no field "nope"/,
    );
    refused(() => select(Outbound, loose(["id", "nope"])), /no field "nope"/);
    refused(() => select(Outbound).asSubquery(loose("nope")), /asSubquery.*no field "nope"/);
    refused(
      () =>
        insert(Outbound)
          .values(message)
          .onConflictDoNothing(loose(["consumer", "nope"])),
      /target.*no field "nope"/,
    );
    refused(
      () =>
        insert(Outbound)
          .values(message)
          .onConflictDoUpdate(loose(["nope"]), { status: "queued" }),
      /no field "nope"/,
    );
    refused(
      () =>
        insert(Outbound)
          .values(message)
          .onConflictDoUpdate(["id"], loose({ nope: 1 })),
      /no field "nope"/,
    );
    refused(
      () =>
        insert(Outbound)
          .values(message)
          .onConflictDoNothing(["id"], { where: loose({ nope: { isNull: false } }) }),
      /no field "nope"/,
    );
    refused(() => select(Outbound).where(or({ status: "queued" }, loose({ nope: 1 }))), /no field "nope"/);
  });

  test("sql.ref / sql.excluded of an unknown field", () => {
    refused(
      () =>
        insert(Outbound)
          .values(message)
          .onConflictDoUpdate(["id"], { attempts: sql.excluded("nope") }),
      /no field "nope"/,
    );
    refused(
      () =>
        engine.compile(
          update(Outbound)
            .set({ attempts: sql.ref("nope") })
            .where({ id: ID }),
        ),
      /sql\.ref\("nope"\)/,
    );
  });

  test("a projection or returning list must be a non-empty list of distinct names", () => {
    refused(() => select(Outbound, loose([])), /non-empty array/);
    refused(() => select(Outbound, loose(["id", "id"])), /listed twice/);
    refused(() => update(Outbound).returning(loose("id")), /non-empty array/);
  });

  test("unknown operators and option keys", () => {
    refused(() => select(Outbound).where(loose({ attempts: { gteq: 1 } })), /unknown operator "gteq"/);
    refused(() => select(Outbound).where(loose({ attempts: {} })), /empty operator object/);
    refused(() => select(Outbound).forUpdate(loose({ skipLock: true })), /unknown option "skipLock"/);
    refused(() => select(Outbound).orderBy("attempts", loose("up")), /direction/);
  });
});

describe("non-scalar values are refused while building", () => {
  test("set({ attempts: { raw: 'attempts + 1' } }) — the guide's v0.5.0 case", () => {
    refused(
      () => update(Outbound).set(loose({ attempts: { raw: "attempts + 1" } })),
      /attempts expects a safe integer number, got a plain object/,
    );
  });

  test("where({ secret: { name: 'admin' } }) is not an operator object nor a value", () => {
    refused(() => select(User).where(loose({ secret: { name: "admin" } })), /unknown operator "name".*a plain object is never a value/);
    refused(() => deleteFrom(User).where(loose({ secret: { name: "admin" } })));
  });

  test.each(strays)("%s in set", (_, value) => {
    refused(() => update(Outbound).set(loose({ consumer: value })));
    refused(() => update(Outbound).set(loose({ attempts: value })));
  });

  test.each(strays)("%s in values", (_, value) => {
    refused(() => insert(Outbound).values(loose({ ...message, consumer: value })));
    refused(() => insert(Outbound).values(loose({ ...message, attempts: value })));
    refused(() => insert(Outbound).values(loose([message, { ...message, idempotencyKey: value }])));
  });

  test.each(strays)("%s in where", (_, value) => {
    refused(() => select(Outbound).where(loose({ consumer: value })));
    refused(() => select(Outbound).where(loose({ attempts: { eq: value } })));
    refused(() => select(Outbound).where(loose({ attempts: { in: [1, value] } })));
    refused(() =>
      update(Outbound)
        .set({ status: "sent" })
        .where(loose({ id: value })),
    );
    refused(() => deleteFrom(Outbound).where(loose({ id: value })));
  });

  test("undefined is refused, not skipped: omit the field or pass null", () => {
    refused(() => update(Outbound).set({ status: "sent", updatedAt: undefined }), /updatedAt is undefined; omit the field or pass null/);
    refused(
      () => insert(Outbound).values({ ...message, idempotencyKey: undefined }),
      /row 0: idempotencyKey is undefined; omit the field or pass null/,
    );
    refused(() => select(Outbound).where({ id: undefined }), /id is undefined/);
    refused(() => deleteFrom(Outbound).where({ id: { in: undefined } }), /expects an array/);
    // A field absent from one row of several takes its default: absence is not undefined.
    expect(engine.compile(insert(Outbound).values([message, { ...message, id: ID.replace("5", "6") }])).params).toHaveLength(10);
  });

  test.each(strays)("%s in onConflictDoUpdate set", (_, value) => {
    refused(() =>
      insert(Outbound)
        .values(message)
        .onConflictDoUpdate(["id"], loose({ attempts: value })),
    );
  });

  test.each(strays.filter(([name]) => name !== "undefined" && name !== "NaN"))("%s in sql.expr", (_, value) => {
    refused(() => sql.expr`attempts + ${value}`, /is not a value that can be bound/);
  });

  test("a row that is not a plain object, a where that is not a condition, a set that is not an object", () => {
    refused(() => insert(Outbound).values(loose([message, new Thing()])), /row 1 is an instance of Thing/);
    refused(() => insert(Outbound).values(loose([])), /no rows/);
    refused(() => select(Outbound).where(loose("status = 'queued'")), /expected an object of field conditions/);
    refused(() => select(Outbound).where(loose(null)));
    refused(() => update(Outbound).set(loose(new Map([["attempts", 1]]))), /expects an object of field values/);
    refused(() => update(Outbound).set(loose([{ attempts: 1 }])), /expects an object of field values/);
  });

  test("a JSON column takes JSON values, as parameters", () => {
    const compiled = engine.compile(
      update(User)
        .set({ profile: { node: { kind: "raw", text: "1; DROP TABLE users" } } })
        .where({ id: 1 }),
    );
    expect(compiled.sql).toBe(`UPDATE "users" SET "profile" = ? WHERE "id" = ?`);
    expect(compiled.params).toEqual([{ node: { kind: "raw", text: "1; DROP TABLE users" } }, 1]);
    refused(
      () =>
        update(User)
          .set(loose({ profile: new Map() }))
          .where({ id: 1 }),
      /profile expects a JSON value/,
    );
    refused(
      () =>
        update(User)
          .set(loose({ profile: { at: new Date() } }))
          .where({ id: 1 }),
      /JSON value/,
    );
    refused(
      () =>
        update(User)
          .set(loose({ profile: [1, Number.POSITIVE_INFINITY] }))
          .where({ id: 1 }),
      /JSON value/,
    );
  });
});

describe("values must fit the column", () => {
  test("string into integer", () => {
    refused(() => update(Outbound).set(loose({ attempts: "1" })), /attempts expects a safe integer number, got a string of 1 character$/);
    refused(() => insert(Outbound).values(loose({ ...message, attempts: "1" })), /attempts expects a safe integer/);
    refused(() => select(Outbound).where(loose({ attempts: "1" })), /attempts expects a safe integer/);
    refused(() => select(Outbound).where(loose({ attempts: { between: [1, "5"] } })), /between\[1\]/);
    refused(() => update(Outbound).set({ attempts: 1.5 }), /safe integer/);
    refused(() => update(Outbound).set({ attempts: 2 ** 53 }), /safe integer/);
  });

  test("bad uuid", () => {
    refused(() => select(Outbound).where({ id: "not-a-uuid" }), /id expects a uuid string, got a string of 10 characters$/);
    refused(
      () =>
        update(Outbound)
          .set({ status: "sent" })
          .where({ id: { in: [ID, "nope"] } }),
      /in\[1\].*uuid/,
    );
    refused(() => insert(Outbound).values({ ...message, id: "123" }), /uuid/);
    expect(() => select(Outbound).where({ id: ID.toUpperCase() })).not.toThrow();
  });

  test("a uuid is 8-4-4-4-12 hex digits of either case, exactly (random strings and near misses agree with the pattern)", () => {
    const pattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const accepted = (v: string) => {
      try {
        select(Outbound).where({ id: v });
        return true;
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        return false;
      }
    };
    const hex = "0123456789abcdefABCDEF";
    const near = (i: number) => {
      // A valid uuid with one character swapped for one from a small alphabet of likely mistakes.
      const chars = [...ID];
      chars[i % 36] = "-gG0aF /\u0000\u00e9"[Math.floor(i / 36) % 11] as string;
      return chars.join("");
    };
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ minLength: 30, maxLength: 40 }),
          fc.stringMatching(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/),
          fc.integer({ min: 0, max: 36 * 11 - 1 }).map(near),
          fc.array(fc.constantFrom(...hex, "-"), { minLength: 36, maxLength: 36 }).map((c) => c.join("")),
        ),
        (v) => {
          expect(accepted(v)).toBe(pattern.test(v));
        },
      ),
      { numRuns: 2000 },
    );
  });

  test("enum value not in the list", () => {
    refused(
      () => update(Outbound).set(loose({ status: "lost" })),
      /status expects one of "queued", "sending", "sent", "failed", got a string of 4 characters$/,
    );
    refused(() => select(Outbound).where(loose({ status: { in: ["queued", "lost"] } })), /one of/);
    refused(() => insert(Outbound).values(loose({ ...message, status: "QUEUED" })), /one of/);
  });

  test("invalid Date", () => {
    refused(() => update(Outbound).set({ updatedAt: new Date("nope") }), /updatedAt expects a valid Date/);
    refused(() => insert(Outbound).values({ ...message, nextAttemptAt: new Date(Number.NaN) }), /valid Date/);
    refused(() => select(Outbound).where({ nextAttemptAt: { lt: new Date("x") } }), /valid Date/);
    refused(() => update(Outbound).set(loose({ updatedAt: "2024-01-01T00:00:00Z" })), /valid Date, got a string/);
    refused(() => update(Outbound).set(loose({ updatedAt: Date.now() })), /valid Date, got a number$/);
  });

  test("null where the column is NOT NULL, and null in comparisons", () => {
    refused(() => update(Outbound).set(loose({ status: null })), /status is NOT NULL and cannot be null/);
    refused(() => insert(Outbound).values(loose({ ...message, consumer: null })), /consumer is NOT NULL/);
    refused(() => select(Outbound).where(loose({ attempts: { lt: null } })), /cannot be null/);
    refused(() => select(Outbound).where(loose({ id: { in: [null] } })), /cannot be null/);
    // null is IS NULL in where, and a value in set on nullable columns.
    expect(engine.compile(update(Outbound).set({ updatedAt: null }).where({ idempotencyKey: null })).params).toEqual([null]);
  });

  test("like / isNull / in / between operand shapes", () => {
    refused(() => select(Outbound).where(loose({ consumer: { like: 1 } })), /expects a string pattern/);
    refused(() => select(Outbound).where(loose({ consumer: { isNull: "yes" } })), /expects true or false/);
    refused(() => select(Outbound).where(loose({ consumer: { in: "billing" } })), /expects an array or select/);
    refused(() => select(Outbound).where(loose({ attempts: { between: [1] } })), /\[low, high\] pair/);
    refused(() => select(Outbound).where(loose({ consumer: ["a", "b"] })), /write op\.in\(\[\.\.\.\]\)/);
  });

  test("insert: required fields and empty inserts", () => {
    refused(() => insert(Outbound).values(loose({ id: ID, status: "queued", nextAttemptAt: new Date() })), /consumer is required/);
    refused(
      () => insert(Outbound).values(loose([message, { id: ID, status: "queued", nextAttemptAt: new Date() }])),
      /consumer is required/,
    );
    refused(() => engine.compile(insert(Outbound)), /call \.values\(\) with at least one row/);
  });

  test("varchar length, date format, numeric, boolean, bytes", () => {
    class Kinds extends Model {
      static tablename = "kinds";
      id = column.integer().primaryKey();
      code = column.varchar(3);
      day = column.date();
      amount = column.numeric(10, 2);
      flag = column.boolean();
      blob = column.bytes();
      big = column.bigint();
      ratio = column.real();
    }
    refused(() => update(Kinds).set({ code: "abcd" }).allRows(), /at most 3 characters/);
    refused(() => update(Kinds).set({ day: "2024-1-1" }).allRows(), /YYYY-MM-DD/);
    refused(() => update(Kinds).set({ amount: "1e5" }).allRows(), /decimal/);
    refused(
      () =>
        update(Kinds)
          .set(loose({ flag: 1 }))
          .allRows(),
      /a boolean/,
    );
    refused(
      () =>
        update(Kinds)
          .set(loose({ blob: [1, 2] }))
          .allRows(),
      /Uint8Array/,
    );
    refused(
      () =>
        update(Kinds)
          .set(loose({ big: 1.5 }))
          .allRows(),
      /a bigint/,
    );
    refused(() => update(Kinds).set({ ratio: Number.POSITIVE_INFINITY }).allRows(), /finite number/);
    expect(
      engine.compile(
        update(Kinds)
          .set({ code: "abc", day: "2024-01-01", amount: "-12.50", flag: false, blob: new Uint8Array([1]), big: 2n ** 60n, ratio: 0.5 })
          .allRows(),
      ).params,
    ).toEqual(["abc", "2024-01-01", "-12.50", false, new Uint8Array([1]), 2n ** 60n, 0.5]);
  });
});

describe("statement-level rules", () => {
  test("update and deleteFrom without where are refused unless allRows()", () => {
    refused(() => engine.compile(update(Outbound).set({ status: "queued" })), /has no where: it would change every row.*allRows/);
    refused(() => engine.compile(deleteFrom(Outbound)), /has no where: it would delete every row.*allRows/);
    refused(() => engine.execute(deleteFrom(Outbound)), /delete every row/);
    // A where that is statically true counts as no where.
    refused(() => engine.compile(update(Outbound).set({ status: "queued" }).where({})), /holds for every row/);
    refused(() => engine.compile(deleteFrom(Outbound).where(and())), /holds for every row/);
    refused(() => engine.compile(deleteFrom(Outbound).where({ id: { notIn: [] } })), /holds for every row/);
    expect(engine.compile(deleteFrom(Outbound).allRows()).sql).toBe(`DELETE FROM "outbound_messages"`);
    expect(engine.compile(deleteFrom(Outbound).where({ id: { in: [] } })).sql).toBe(`DELETE FROM "outbound_messages" WHERE 1 = 0`);
  });

  test("update without set is refused", () => {
    refused(() => engine.compile(update(Outbound).where({ id: ID })), /call \.set\(\) with at least one field/);
    refused(() => engine.compile(update(Outbound).set({}).where({ id: ID })), /at least one field/);
  });

  test("limit and offset take non-negative integers", () => {
    refused(() => select(Outbound).limit(-1), /limit expects a non-negative integer, got a number$/);
    refused(() => select(Outbound).limit(1.5), /limit/);
    refused(() => select(Outbound).limit(Number.NaN), /limit/);
    refused(() => select(Outbound).limit(loose("10")), /limit/);
    refused(() => select(Outbound).offset(-5), /offset expects a non-negative integer/);
    expect(engine.compile(select(Outbound, ["id"]).limit(0)).sql).toBe(`SELECT "id" FROM "outbound_messages" LIMIT 0`);
  });

  test("skipLocked and noWait together are refused", () => {
    refused(() => select(Outbound).forUpdate({ skipLocked: true, noWait: true }), /skipLocked and noWait cannot be combined/);
    refused(() => select(Outbound).forShare({ skipLocked: true, noWait: true }), /cannot be combined/);
    refused(() => select(Outbound).forUpdate({ of: ["other_table"] }), /not a table of this query/);
  });

  test("conflict clause rules", () => {
    refused(() => insert(Outbound).values(message).ignoreDuplicates().onConflictDoNothing(), /only one conflict clause/);
    refused(() => insert(Outbound).values(message).onConflictDoUpdate([], { status: "queued" }), /needs a conflict target/);
    refused(() => insert(Outbound).values(message).onConflictDoUpdate(["id"], {}), /set is empty/);
    refused(
      () =>
        insert(Outbound)
          .values(message)
          .onConflictDoNothing(["id"], { where: { idempotencyKey: null }, indexWhere: { idempotencyKey: null } }),
      /not both/,
    );
    refused(() => insert(Outbound).values(message).onConflictDoNothing(loose("id")), /array of fields/);
  });

  test("a subquery operand must select one column", () => {
    const sub = select(Outbound).asSubquery("id");
    expect(sub.node.select.columns).toHaveLength(1);
    refused(() => select(Outbound).where({ id: { in: loose({ node: sub.node }) } }), /expects an array or select/);
  });

  test("nothing reaches the driver: building and compiling never connect", async () => {
    const q = select(Outbound, ["id"]).where({ status: "queued" });
    expect(engine.compile(q).sql).toContain("SELECT");
    await expect(engine.execute(q).all()).rejects.toThrow(/no database in core unit tests/);
  });
});

describe("the bulk insert's per-column test", () => {
  class Every extends Model {
    static tablename = "every_kind";
    id = column.integer().primaryKey();
    t = column.text();
    v = column.varchar(3);
    u = column.uuid();
    e = column.enum("a", "b");
    b = column.bigint();
    r = column.real();
    n = column.numeric(10, 2);
    f = column.boolean();
    at = column.datetime();
    d = column.date();
    j = column.json();
    x = column.bytes();
  }

  test("accepts exactly what checkValue accepts, for every column kind", () => {
    const columns = tableMeta(Every).columns;
    const readers = new Map(columns.map((c) => [c, rowReader([c.field], [c])]));
    const samples = fc.oneof(
      fc.anything({ withBigInt: true, withDate: true, withTypedArray: true, withBoxedValues: true, withNullPrototype: true }),
      fc.constantFrom(
        "a",
        "b",
        "ab😀",
        "12.50",
        "2024-02-29",
        "8F14E45F-CEEA-467F-A0E6-1B4F2C9D1A02",
        2 ** 53,
        -0,
        Number.NaN,
        1.5,
        new Date(Number.NaN),
      ),
    );
    fc.assert(
      fc.property(samples, (v) => {
        for (const c of columns) {
          let valid = v !== null;
          try {
            checkValue(c, v, "");
          } catch (error) {
            expect(error).toBeInstanceOf(ValidationError);
            valid = false;
          }
          expect(valueAccepter(c)(v), `${c.kind} ${typeof v}`).toBe(valid);
          expect(fits(acceptKind(c), valueAccepter(c), v), `fits ${c.kind} ${typeof v}`).toBe(valid && typeof v !== "object");
          // The generated reader may give a value up to the general path, but never takes one checkValue refuses.
          const read = readers.get(c)?.([{ [c.field]: v }], []);
          if (read === -1) expect(v === null ? !c.notNull : valid, `reader ${c.kind} ${typeof v}`).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
