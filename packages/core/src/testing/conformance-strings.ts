import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Expression } from "../ast/expression.js";
import { deleteFrom } from "../builder/delete-builder.js";
import { insert } from "../builder/insert-builder.js";
import { op } from "../builder/op.js";
import { ref } from "../builder/query-helpers.js";
import { select } from "../builder/select.js";
import { update } from "../builder/update-builder.js";
import type { Engine } from "../engine/engine.js";
import { ValidationError } from "../errors.js";
import { col, fn } from "../expression/fn.js";
import { ConformanceValue as Value } from "./conformance-models.js";

/** Texts that tell the databases' own string functions apart: non-ASCII letters, combining marks, astral characters, blanks. */
export const stringSamples: readonly (string | null)[] = Object.freeze([
  "Ada Lovelace",
  "  padded  ",
  "\tTab \n",
  "ÉCOLE straße",
  "e\u0301te\u0301",
  "😀 Smile 👨‍👩‍👧",
  "ǅungla İstanbul",
  "ΣΑΣ σας",
  "Ａ full width",
  "",
  " ",
  "Zz aA",
  null,
]);

const FIRST_ID = 9100;
const rows = stringSamples.map((text, i) => ({
  id: FIRST_ID + i,
  textValue: text,
  varcharValue: text === null ? null : [...text].slice(0, 40).join(""),
  enumValue: i % 3 === 0 ? null : i % 3 === 1 ? ("red" as const) : ("green" as const),
}));

// ---- the rules of docs/expressions.md#strings, in JavaScript --------------------------------------
const map = <T>(text: string | null, f: (t: string) => T): T | null => (text === null ? null : f(text));
const asciiLower = (t: string) => t.replace(/[A-Z]/g, (c) => c.toLowerCase());
const asciiUpper = (t: string) => t.replace(/[a-z]/g, (c) => c.toUpperCase());
const codePoints = (t: string) => [...t];
const substring = (t: string, start: number, length?: number) =>
  codePoints(t)
    .slice(start - 1, length === undefined ? undefined : start - 1 + length)
    .join("");
/** Code point order (JavaScript's `<` compares UTF-16 units, which puts U+FF21 after U+1F600). */
const byCodePoint = (a: string, b: string): number => {
  const x = codePoints(a).map((c) => c.codePointAt(0) as number);
  const y = codePoints(b).map((c) => c.codePointAt(0) as number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return x.length - y.length;
};

/**
 * The string functions on the dialect's real server: each value computed here by the rule the docs
 * state (A-Z the only letters folded, lengths in code points, NULL in, NULL out), and the database
 * must give the same, for stored texts and for bound ones.
 */
export function stringTests(engineOf: () => Engine): void {
  describe("string functions", () => {
    let engine: Engine;
    const ours = { id: op.between(FIRST_ID, FIRST_ID + 99) };

    beforeAll(async () => {
      engine = engineOf();
      await engine.execute(deleteFrom(Value).where(ours)).rowsAffected();
      await engine.execute(insert(Value).values(rows)).rowsAffected();
    });
    afterAll(async () => {
      await engine.execute(deleteFrom(Value).where(ours)).rowsAffected();
    });

    it("lower, upper, trim, length, substring and concat of stored texts: A-Z folded only, code points counted", async () => {
      const result = await engine
        .execute(
          select(Value)
            .where(ours)
            .columns((q) => ({
              id: "id",
              lower: q.lower("textValue"),
              upper: q.upper("varcharValue"),
              trim: q.trim("textValue"),
              ltrim: q.ltrim("textValue"),
              rtrim: q.rtrim("textValue"),
              length: q.length("textValue"),
              sub: q.substring("textValue", 2, 3),
              tail: q.substring("textValue", 4),
              none: q.substring("textValue", 1, 0),
              past: q.substring("textValue", 50, 2),
              joined: q.concat("textValue", q.val("|"), "enumValue"),
              enumUpper: q.upper("enumValue"),
            }))
            .orderBy("id"),
        )
        .all();
      expect(result).toEqual(
        rows.map((r) => ({
          id: r.id,
          lower: map(r.textValue, asciiLower),
          upper: map(r.varcharValue, asciiUpper),
          trim: map(r.textValue, (t) => t.replace(/^ +| +$/g, "")),
          ltrim: map(r.textValue, (t) => t.replace(/^ +/, "")),
          rtrim: map(r.textValue, (t) => t.replace(/ +$/, "")),
          length: map(r.textValue, (t) => codePoints(t).length),
          sub: map(r.textValue, (t) => substring(t, 2, 3)),
          tail: map(r.textValue, (t) => substring(t, 4)),
          none: map(r.textValue, () => ""),
          past: map(r.textValue, () => ""),
          joined: r.textValue === null || r.enumValue === null ? null : `${r.textValue}|${r.enumValue}`,
          enumUpper: map(r.enumValue, asciiUpper),
        })),
      );
    });

    it("the same functions of bound texts give the same values", async () => {
      for (const text of stringSamples) {
        const value = fn.val(text, "text");
        const [row] = await engine
          .execute(
            select(Value)
              .where({ id: FIRST_ID })
              .columns((q) => ({
                lower: q.lower(value),
                upper: q.upper(value),
                length: q.length(value),
                sub: q.substring(value, 3, 2),
                joined: q.concat(value, value),
              })),
          )
          .all();
        expect(row, JSON.stringify(text)).toEqual({
          lower: map(text, asciiLower),
          upper: map(text, asciiUpper),
          length: map(text, (t) => codePoints(t).length),
          sub: map(text, (t) => substring(t, 3, 2)),
          joined: map(text, (t) => t + t),
        });
      }
    });

    it("results compare case-sensitively and sort by code point, also when made of bound values only", async () => {
      const matches = async (condition: Expression<boolean | null, "boolean">) =>
        (await engine.execute(select(Value, ["id"]).where(ours).where(condition)).all()).length;
      expect(await matches(fn.eq(fn.concat(fn.val("A"), fn.val("b")), fn.val("ab")))).toBe(0);
      expect(await matches(fn.eq(fn.concat(fn.val("A"), fn.val("b")), fn.val("Ab")))).toBe(rows.length);
      expect(await matches(fn.eq(fn.lower(fn.val("ÉA")), fn.val("Éa")))).toBe(rows.length);
      expect(await matches(fn.eq(fn.lower(col(Value, "textValue")), fn.val("ada lovelace")))).toBe(1);

      const sorted = await engine
        .execute(
          select(Value)
            .where(ours)
            .where({ textValue: op.isNull(false) })
            .orderBy(fn.upper(col(Value, "textValue")))
            .orderBy("id"),
        )
        .all();
      const expected = rows
        .filter((r) => r.textValue !== null)
        .sort((a, b) => byCodePoint(asciiUpper(a.textValue as string), asciiUpper(b.textValue as string)) || a.id - b.id);
      expect(sorted.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    });

    it("group by, having, set, values and a join condition take string functions", async () => {
      const grouped = await engine
        .execute(
          select(Value)
            .where(ours)
            .columns((q) => ({ length: q.length(q.trim("textValue")), n: q.count() }))
            .groupBy("length")
            .having({ n: { gte: 2 } })
            .orderBy("length"),
        )
        .all();
      const counts = new Map<number | null, number>();
      for (const r of rows) {
        const key = map(r.textValue, (t) => codePoints(t.replace(/^ +| +$/g, "")).length);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      expect(grouped).toEqual(
        [...counts.entries()]
          .filter(([, n]) => n >= 2)
          .sort(([a], [b]) => (a ?? Infinity) - (b ?? Infinity))
          .map(([length, n]) => ({ length, n })),
      );

      const pairs = await engine
        .execute(
          select(Value, "a")
            .innerJoin(Value, "b", fn.eq(fn.lower(ref(Value, "a", "textValue")), fn.lower(ref(Value, "b", "textValue"))))
            .where({ "a.id": ours.id, "b.id": ours.id })
            .columns({ a: "a.id", b: "b.id" })
            .orderBy("a.id")
            .orderBy("b.id"),
        )
        .all();
      const same = rows.flatMap((a) =>
        rows
          .filter((b) => a.textValue !== null && b.textValue !== null && asciiLower(a.textValue) === asciiLower(b.textValue))
          .map((b) => ({ a: a.id, b: b.id })),
      );
      expect(pairs).toEqual(same);

      await engine.transaction(async (tx) => {
        const id = FIRST_ID + 99;
        await tx.execute(insert(Value).values({ id, textValue: fn.concat(fn.val("  Mixed"), fn.val("Case  ")) })).rowsAffected();
        await tx
          .execute(
            update(Value)
              .set({ varcharValue: fn.lower(fn.trim(col(Value, "textValue"))) })
              .where({ id }),
          )
          .rowsAffected();
        const [row] = await tx.execute(select(Value, ["textValue", "varcharValue"]).where({ id })).all();
        expect(row).toEqual({ textValue: "  MixedCase  ", varcharValue: "mixedcase" });
        await tx.execute(deleteFrom(Value).where({ id })).rowsAffected();
      });
    });

    it("a wrong kind, a bare string or a bad position is refused when the expression is built", () => {
      expect(() => fn.lower(col(Value, "integerValue") as never)).toThrow(ValidationError);
      expect(() => fn.length("text" as never)).toThrow(ValidationError);
      expect(() => fn.substring(col(Value, "textValue"), 0)).toThrow(ValidationError);
      expect(() => fn.substring(col(Value, "textValue"), 1, -1)).toThrow(ValidationError);
      expect(() => fn.substring(col(Value, "textValue"), 1.5)).toThrow(ValidationError);
      expect(() => fn.substring(col(Value, "textValue"), "1" as never)).toThrow(ValidationError);
      expect(() => fn.concat(col(Value, "textValue") as never)).toThrow(ValidationError);
    });
  });
}
