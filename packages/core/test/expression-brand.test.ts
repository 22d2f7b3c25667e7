import { describe, expect, test } from "vitest";
import { and, insert, isExpression, select, sql, update, ValidationError } from "../src/index.js";
import { Outbound } from "./support/outbound.js";
import { testEngine } from "./support/test-dialect.js";

const engine = testEngine();
const ID = "5b1a9f43-64a8-4c43-9a7e-1b4a0f0c0a11";
const message = { id: ID, consumer: "billing", status: "queued", nextAttemptAt: new Date(0) } as const;
const loose = (value: unknown) => value as never;

const real = sql.raw("attempts + 1");
/** Objects shaped like an expression that must never pass as one. */
const forgeries: [string, unknown][] = [
  ["a hand-written node", { node: { kind: "raw", text: "1 = 1; DROP TABLE outbound_messages" } }],
  ["a JSON.parse'd expression", JSON.parse(JSON.stringify(real))],
  ["a spread of a real expression", { ...real }],
  ["Object.assign of a real expression", Object.assign({}, real)],
  ["structuredClone of a real expression", structuredClone(real)],
  ["a forged template", { node: { kind: "template", strings: ["1 = 1"], values: [] } }],
  ["a forged now", { node: { kind: "now", plusSeconds: undefined } }],
  ["a forged brand by a different symbol", { node: real.node, [Symbol("tempest-db-js.expression")]: true }],
  ["a plain object carrying the real brand as its own", { node: real.node, [Symbol.for("tempest-db-js.expression")]: true }],
  ["an array carrying the real brand", Object.assign([], { node: real.node, [Symbol.for("tempest-db-js.expression")]: true })],
];

describe("the expression brand", () => {
  test("is a non-enumerable symbol on the prototype: invisible to keys, JSON, spread and clones", () => {
    expect(isExpression(real)).toBe(true);
    expect(Object.keys(real)).toEqual(["node"]);
    expect(JSON.stringify(real)).toBe(`{"node":{"kind":"raw","text":"attempts + 1"}}`);
    expect(Object.getOwnPropertySymbols(real)).toHaveLength(0);
    const proto = Object.getPrototypeOf(real) as object;
    const symbols = Object.getOwnPropertySymbols(proto);
    expect(symbols).toHaveLength(1);
    expect(Object.getOwnPropertyDescriptor(proto, symbols[0]!)?.enumerable).toBe(false);
    expect(Object.isFrozen(real)).toBe(true);
    expect(Object.isFrozen(real)).toBe(true);
    expect(Object.isFrozen(real.node)).toBe(true);
  });

  test("the brand on Object.prototype makes no plain object an expression; another copy's expression class is one", () => {
    const brand = Symbol.for("tempest-db-js.expression");
    Object.defineProperty(Object.prototype, brand, { value: true, configurable: true });
    try {
      expect(isExpression({ node: real.node })).toBe(false);
      expect(() => select(Outbound).where(loose({ attempts: { node: real.node } }))).toThrow(ValidationError);
    } finally {
      delete (Object.prototype as Record<symbol, unknown>)[brand];
    }
    // What a second installed copy of the package makes: its own class, the same registered brand.
    class OtherCopyExpression {
      readonly node = Object.freeze({ kind: "raw" as const, text: "attempts + 1" });
    }
    Object.defineProperty(OtherCopyExpression.prototype, brand, { value: true });
    const foreign = new OtherCopyExpression();
    expect(isExpression(foreign)).toBe(true);
    expect(
      engine.compile(
        update(Outbound)
          .set({ attempts: foreign as never })
          .where({ id: ID }),
      ).sql,
    ).toContain("attempts + 1");
  });

  test.each(forgeries)("%s is not an expression", (_, forged) => {
    expect(isExpression(forged)).toBe(false);
  });

  test.each(forgeries)("%s is refused in set, values, where and operators", (_, forged) => {
    expect(() => update(Outbound).set(loose({ attempts: forged }))).toThrow(ValidationError);
    expect(() => update(Outbound).set(loose({ consumer: forged }))).toThrow(ValidationError);
    expect(() => insert(Outbound).values(loose({ ...message, attempts: forged }))).toThrow(ValidationError);
    expect(() => select(Outbound).where(loose(forged))).toThrow(ValidationError);
    expect(() => select(Outbound).where(loose(and(loose(forged))))).toThrow(ValidationError);
    expect(() => select(Outbound).where(loose({ attempts: forged }))).toThrow(ValidationError);
    expect(() => select(Outbound).where(loose({ attempts: { lt: forged } }))).toThrow(ValidationError);
    expect(() => select(Outbound).where(loose({ consumer: { like: forged } }))).toThrow(ValidationError);
    expect(() =>
      insert(Outbound)
        .values(message)
        .onConflictDoUpdate(["id"], loose({ attempts: forged })),
    ).toThrow(ValidationError);
  });

  test.each(forgeries)("%s is refused by sql.expr, execute() and compile()", (_, forged) => {
    expect(() => sql.expr`attempts + ${forged}`).toThrow(ValidationError);
    expect(() => engine.execute(loose(forged))).toThrow(ValidationError);
    expect(() => engine.compile(loose(forged))).toThrow(/execute\(\) takes a query builder or sql\.raw/);
  });

  test("a forged condition or subquery is not one either", () => {
    const forgedCondition = { op: "or", items: [{ status: "queued" }, sql.raw("1 = 1")] };
    expect(() => select(Outbound).where(loose(forgedCondition))).toThrow(/has no field "op"/);
    const sub = select(Outbound).asSubquery("id");
    expect(() => select(Outbound).where(loose({ id: { in: { ...sub } } }))).toThrow(ValidationError);
    expect(() => select(Outbound).where(loose({ id: { in: JSON.parse(JSON.stringify(sub)) } }))).toThrow(ValidationError);
  });

  test("real expressions pass everywhere the forged ones were refused", () => {
    const compiled = engine.compile(
      update(Outbound)
        .set({ attempts: real, nextAttemptAt: sql.nowPlusSeconds(30) })
        .where(and({ attempts: { lt: sql.raw("5") } }, sql.expr`consumer <> ${"x"}`)),
    );
    expect(compiled.sql).toBe(
      `UPDATE "outbound_messages" SET "attempts" = attempts + 1, "next_attempt_at" = NOW_PLUS(?) WHERE "attempts" < 5 AND (consumer <> ?)`,
    );
    expect(compiled.params).toEqual([30, "x"]);
  });
});

describe("sql helpers", () => {
  test("sql.raw takes only a string", () => {
    expect(() => sql.raw(loose(42))).toThrow(ValidationError);
    expect(() => sql.raw(loose({ text: "1" }))).toThrow(/takes a string/);
  });

  test("sql.expr must be used as a tagged template", () => {
    expect(() => sql.expr(loose(["attempts + 1"]))).toThrow(/tagged template/);
    expect(() => sql.expr(loose("attempts + 1"))).toThrow(ValidationError);
  });

  test("sql.nowPlusSeconds takes a finite number or an expression", () => {
    expect(() => sql.nowPlusSeconds(Number.NaN)).toThrow(/finite number/);
    expect(() => sql.nowPlusSeconds(loose("30"))).toThrow(ValidationError);
    expect(engine.compile(sql.expr`SELECT ${sql.nowPlusSeconds(sql.raw("backoff"))}`).sql).toBe("SELECT NOW_PLUS(backoff)");
  });

  test("expression values inside sql.expr keep their order with bound values", () => {
    const q = sql.expr`${1} + ${sql.raw("x")} + ${sql.expr`${2} * ${3}`} + ${4}`;
    expect(engine.compile(q)).toMatchObject({ sql: "? + x + ? * ? + ?", params: [1, 2, 3, 4] });
  });
});
