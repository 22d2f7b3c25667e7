import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { and, insert, isOperator, not, op, or, select, sql, update, ValidationError } from "../src/index.js";
import { IndexedOutbound, Outbound } from "./support/outbound.js";
import { fullCapabilities, testEngine } from "./support/test-dialect.js";

const plainEngine = testEngine();
const strictEngine = testEngine(fullCapabilities, { operators: "helpers-only" });

/** What a request body can hold where a field value is expected: every operator of the where language. */
const forged: [string, string][] = [
  ["ne", '{"ne":"nobody"}'],
  ["like", '{"like":"%"}'],
  ["gt", '{"gt":""}'],
  ["notIn", '{"notIn":[]}'],
  ["in", '{"in":["a","b"]}'],
  ["isNull", '{"isNull":false}'],
  ["between", '{"between":["","~"]}'],
  ["eq", '{"eq":null}'],
  ["ilike", '{"ilike":"%"}'],
];

function body(json: string): { consumer: any } {
  return JSON.parse(`{"consumer":${json}}`);
}

describe("op helpers", () => {
  test("compile to the same SQL and parameters as the plain operator objects", () => {
    const pairs: [unknown, unknown][] = [
      [op.ne(2), { ne: 2 }],
      [op.lt(1), { lt: 1 }],
      [op.lte(1), { lte: 1 }],
      [op.gt(1), { gt: 1 }],
      [op.gte(1), { gte: 1 }],
      [op.between(1, 3), { between: [1, 3] }],
      [op.in([1, 2]), { in: [1, 2] }],
      [op.notIn([1]), { notIn: [1] }],
      [op.in([]), { in: [] }],
      [op.notIn([]), { notIn: [] }],
      [op.isNull(), { isNull: true }],
      [op.isNull(false), { isNull: false }],
      [op.eq(3), { eq: 3 }],
      [op.gt(sql.now()), { gt: sql.now() }],
    ];
    for (const [helper, plain] of pairs) {
      const a = strictEngine.compile(select(Outbound).where({ attempts: helper as any }));
      const b = plainEngine.compile(select(Outbound).where({ attempts: plain as any }));
      expect(a.sql).toBe(b.sql);
      expect(a.params).toEqual(b.params);
    }
    const like = strictEngine.compile(select(Outbound).where({ consumer: op.like("bill%") }));
    expect(like.sql).toContain("LIKE");
    expect(like.params).toEqual(["bill%"]);
    const sub = strictEngine.compile(select(Outbound).where({ id: op.in(select(Outbound).where({ status: "queued" }).asSubquery("id")) }));
    expect(sub.sql).toContain(`"id" IN (SELECT`);
  });

  test("no JSON, spread or structured clone of a helper is an operator", () => {
    const made = op.ne("x");
    expect(isOperator(made)).toBe(true);
    expect(Object.keys(made)).toEqual(["op", "operand"]);
    for (const copy of [JSON.parse(JSON.stringify(made)), { ...made }, structuredClone(made), Object.assign(Object.create(null), made)]) {
      expect(isOperator(copy)).toBe(false);
    }
    // A brand written as an own key, or planted on Object.prototype, makes no operator either.
    const own = { op: "ne", operand: "x", [Symbol.for("tempest-db-js.operator")]: true };
    expect(isOperator(own)).toBe(false);
  });

  test("op.eq reads its value as a value, never as an operator, and refuses null", () => {
    for (const [, json] of forged) {
      const value = body(json).consumer;
      if (value === null) continue;
      expect(() => select(Outbound).where({ consumer: op.eq(value) })).toThrow(ValidationError);
      expect(() => select(Outbound).where({ consumer: op.eq(value) })).toThrow(/consumer expects a string, got a plain object/);
    }
    expect(() => select(Outbound).where({ idempotencyKey: op.eq(null as any) })).toThrow(/op\.eq\(null\).*op\.isNull\(\)/);
    expect(() => select(Outbound).where({ idempotencyKey: op.ne(null as any) })).toThrow(/op\.isNull\(false\)/);
    expect(strictEngine.compile(select(Outbound).where({ consumer: op.eq("billing") })).params).toEqual(["billing"]);
  });

  test("a helper's operand is checked against the column like a plain operator's", () => {
    expect(() => select(Outbound).where({ attempts: op.gt("x" as any) })).toThrow(/attempts expects a safe integer number, got a string/);
    expect(() => select(Outbound).where({ consumer: op.like(1 as any) })).toThrow(/expects a string pattern/);
    expect(() => select(Outbound).where({ consumer: op.in("billing" as any) })).toThrow(/expects an array/);
    expect(() => select(Outbound).where({ consumer: op.isNull("yes" as any) })).toThrow(/expects true or false/);
  });
});

describe('operators: "helpers-only"', () => {
  test.each(forged)(
    "a forged { %s: ... } from JSON.parse is a ValidationError naming the field, from execute and compile",
    (name, json) => {
      const statement = select(Outbound).where(body(json));
      // The default engine keeps reading plain objects as operators, as the guide writes them.
      expect(() => plainEngine.compile(statement)).not.toThrow();
      expect(() => strictEngine.compile(statement)).toThrow(ValidationError);
      expect(() => strictEngine.compile(statement)).toThrow(
        new RegExp(`Outbound\\.consumer: the operator "${name}" came from a plain object`),
      );
      // execute refuses synchronously, at the call site: nothing is compiled or sent.
      expect(() => strictEngine.execute(statement)).toThrow(ValidationError);
    },
  );

  test("a JSON null where-value is refused (it would widen the query to IS NULL)", () => {
    const statement = select(Outbound).where(JSON.parse('{"idempotencyKey":null}'));
    expect(plainEngine.compile(statement).sql).toContain("IS NULL");
    expect(() => strictEngine.compile(statement)).toThrow(/Outbound\.idempotencyKey: null is refused as a where value/);
    expect(strictEngine.compile(select(Outbound).where({ idempotencyKey: op.isNull() })).sql).toContain("IS NULL");
  });

  test("found in and / or / not, subqueries, update, delete and the conflict clause's where", () => {
    const forgedNe = body('{"ne":"x"}').consumer;
    const statements = [
      select(Outbound).where(and({ status: "queued" }, or({ attempts: op.gt(1) }, not({ consumer: forgedNe })))),
      select(Outbound).where({ id: op.in(select(Outbound).where({ consumer: forgedNe }).asSubquery("id")) }),
      update(Outbound).set({ attempts: 1 }).where({ consumer: forgedNe }),
      insert(IndexedOutbound)
        .values({ id: "5b1a9f43-64a8-4c43-9a7e-1b4a0f0c0a11", consumer: "a", status: "queued", nextAttemptAt: new Date(0) })
        .onConflictDoUpdate(["id"], { attempts: 1 }, { updateWhere: { consumer: forgedNe } }),
    ];
    for (const statement of statements) expect(() => strictEngine.compile(statement)).toThrow(/Outbound\.consumer: the operator "ne"/);
    // A plain operator in a model's index definition is schema, not input: only statements are looked at.
    expect(() =>
      strictEngine.compile(
        insert(IndexedOutbound).values({
          id: "5b1a9f43-64a8-4c43-9a7e-1b4a0f0c0a11",
          consumer: "a",
          status: "queued",
          nextAttemptAt: new Date(0),
        }),
      ),
    ).not.toThrow();
  });

  test("plain values, expressions and helpers pass; any forged operator on any field does not (property)", () => {
    const operators = ["eq", "ne", "lt", "lte", "gt", "gte", "in", "notIn", "isNull", "between", "like", "ilike"];
    fc.assert(
      fc.property(
        fc.constantFrom(...operators),
        fc.jsonValue(),
        fc.constantFrom("consumer", "status", "attempts", "idempotencyKey"),
        (name, operand, field) => {
          const input = JSON.parse(JSON.stringify({ [field]: { [name]: operand } }));
          let statement: ReturnType<typeof select<typeof Outbound>>;
          try {
            statement = select(Outbound).where(input);
          } catch (error) {
            // The operand did not fit the column: refused while building, on every engine.
            expect(ValidationError.isInstance(error)).toBe(true);
            return;
          }
          expect(() => strictEngine.compile(statement)).toThrow(ValidationError);
        },
      ),
    );
  });

  test("the value is never in the message, and the option is checked", () => {
    try {
      strictEngine.compile(select(Outbound).where(body('{"ne":"S3CRET-operand"}')));
      expect.unreachable();
    } catch (error) {
      expect(String((error as Error).message)).not.toContain("S3CRET");
    }
    expect(() => testEngine(fullCapabilities, { operators: "strict" as any })).toThrow(
      /operators must be "plain-objects" or "helpers-only", got a string/,
    );
  });

  test("TEMPEST_OPERATORS=helpers-only is the default when the option is not given", () => {
    const before = process.env.TEMPEST_OPERATORS;
    process.env.TEMPEST_OPERATORS = "helpers-only";
    try {
      expect(() => testEngine().compile(select(Outbound).where(body('{"ne":"x"}')))).toThrow(ValidationError);
      expect(() =>
        testEngine(fullCapabilities, { operators: "plain-objects" }).compile(select(Outbound).where(body('{"ne":"x"}'))),
      ).not.toThrow();
    } finally {
      if (before === undefined) delete process.env.TEMPEST_OPERATORS;
      else process.env.TEMPEST_OPERATORS = before;
    }
  });
});
