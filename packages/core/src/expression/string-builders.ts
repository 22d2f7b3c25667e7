import type { Expression } from "../ast/expression.js";
import { brandExpression } from "../ast/expression.js";
import type { StringFunction } from "../ast/expression-node.js";
import { functionCallNode, valueType } from "../ast/expression-node.js";
import type { ValueNode } from "../ast/value-node.js";
import { paramNode } from "../ast/value-node.js";
import { ValidationError } from "../errors.js";
import { describe } from "./assert-bindable.js";
import type { Operand } from "./value-type.js";
import { anyNullable, familyOf, kindColumn, nodeAs } from "./value-type.js";

/** Reads one argument of a builder (a string is a reference in `q`, refused in `fn`). */
export type ReadOperand = (input: unknown, where: string) => Operand;

/** PostgreSQL's SUBSTR takes 32-bit positions; beyond them every text is shorter anyway. */
const MAX_POSITION = 2_147_483_647;

/**
 * The string functions of `fn` and `q` (docs/expressions.md#strings). Each takes texts only (text,
 * varchar, enum: a number or a date is cast to text first, so no database converts it its own way),
 * and its result is NULL when any input is.
 */
export function stringBuilders(operand: ReadOperand) {
  const text = (input: unknown, where: string): Operand => {
    const value = operand(input, where);
    const kind = value.type?.kind;
    if (kind !== undefined && familyOf(kind) !== "text") {
      throw new ValidationError(
        `${where}: takes a text (text, varchar or enum), not a ${kind} value; fn.cast(x, "text") converts integers and dates`,
      );
    }
    return value;
  };
  const nodeOf = (value: Operand, where: string): ValueNode => nodeAs(value, value.type?.kind ?? "text", where);
  const call = (fn: StringFunction, texts: readonly Operand[], args: readonly ValueNode[], where: string): Expression<unknown> =>
    brandExpression(
      functionCallNode(
        fn,
        [...texts.map((t) => nodeOf(t, where)), ...args],
        valueType(fn === "length" ? "integer" : "text", anyNullable(texts)),
      ),
    );
  const unary = (fn: Exclude<StringFunction, "concat" | "substring">) => (input: unknown) => {
    const where = `fn.${fn}`;
    return call(fn, [text(input, where)], [], where);
  };
  /** A position or a length: a JavaScript integer, bound (never an expression, whose sign rules differ by database). */
  const bound = (value: unknown, least: number, where: string): ValueNode => {
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < least || value > MAX_POSITION) {
      throw new ValidationError(
        `${where}: takes an integer from ${least} to ${MAX_POSITION}, got ${typeof value === "number" ? "a number outside it" : describe(value)}`,
      );
    }
    return paramNode(value, kindColumn("integer"));
  };

  return {
    lower: unary("lower"),
    upper: unary("upper"),
    trim: unary("trim"),
    ltrim: unary("ltrim"),
    rtrim: unary("rtrim"),
    length: unary("length"),
    concat: (...inputs: unknown[]) => {
      if (inputs.length < 2) throw new ValidationError("fn.concat: takes two texts or more");
      return call(
        "concat",
        inputs.map((input, i) => text(input, `fn.concat #${i + 1}`)),
        [],
        "fn.concat",
      );
    },
    notify: (channel: unknown, payload: unknown) => {
      const where = "fn.notify";
      const texts = [text(channel, `${where} (channel)`), text(payload, `${where} (payload)`)];
      return brandExpression(
        functionCallNode(
          "notify",
          texts.map((t) => nodeOf(t, where)),
          valueType("boolean", false),
        ),
      );
    },
    substring: (input: unknown, start: unknown, length?: unknown) => {
      const where = "fn.substring";
      const args = [bound(start, 1, `${where} (start, 1-based)`)];
      if (length !== undefined) args.push(bound(length, 0, `${where} (length)`));
      return call("substring", [text(input, where)], args, where);
    },
  };
}
