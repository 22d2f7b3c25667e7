import { inlineTest } from "../builder/value-accepter.js";
import { textProblem } from "../codec/check-text.js";

/**
 * Binds a values object into a prepared statement's parameters when every value is the usual kind:
 * an object with exactly as many own enumerable keys as there are placeholders, and per slot a value
 * that fits its column (the tests of `fits`, as strict as checkValue), that the codec binds unchanged
 * and, for a string, whose text can travel (textProblem). Answers undefined for anything else, and
 * the general path binds the values again, which also words any error. It never throws.
 */
export type FastBinder = (values: unknown) => unknown[] | undefined;

export interface FastBinderSlots {
  /** Per slot: the placeholder's name, its column's acceptKind and valueAccepter, and its parameter index. */
  readonly names: readonly string[];
  readonly kinds: readonly number[];
  readonly accepts: readonly ((value: unknown) => boolean)[];
  readonly indexes: readonly number[];
  /** How many placeholders were declared (every one is used by some slot). */
  readonly declared: number;
  /** The compiled parameters, with a hole at every slot. */
  readonly params: readonly unknown[];
  readonly nulInText: boolean;
}

/**
 * A binder written for one prepared statement: each value is read by its name at a call site of its
 * own (a monomorphic load on the application's values objects, where a loop paid a megamorphic keyed
 * load and a dispatch on the column's kind per value). Only trusted text enters the source: JSON-quoted
 * names and numbers; values never do. Undefined where code cannot be generated (a runtime that forbids
 * `new Function`): the general path then binds every call.
 */
export function fastBinder(slots: FastBinderSlots): FastBinder | undefined {
  const { names, kinds, indexes, params } = slots;
  const lines: string[] = [];
  for (let i = 0; i < names.length; i++) {
    const v = `v${i}`;
    lines.push(`const ${v} = values[${JSON.stringify(names[i])}];`);
    lines.push(`if (!(${inlineTest(kinds[i] as number, v, `accepts[${i}]`)})) return undefined;`);
    lines.push(`if (typeof ${v} === "string" && textProblem(${v}, nulInText) !== undefined) return undefined;`);
  }
  // Every parameter a slot (the usual insert or lookup): the array is written out, in parameter order.
  const whole = params.length === names.length && indexes.every((index, i) => indexes.indexOf(index) === i);
  if (whole) {
    const order = indexes.map((index, i) => [index, i] as const).sort((a, b) => a[0] - b[0]);
    lines.push(`return [${order.map(([, i]) => `v${i}`).join(", ")}];`);
  } else {
    lines.push("const out = params.slice();");
    for (let i = 0; i < names.length; i++) lines.push(`out[${indexes[i]}] = v${i};`);
    lines.push("return out;");
  }
  const source = `"use strict";
return function bindValues(values) {
  if (typeof values !== "object" || values === null || Array.isArray(values)) return undefined;
  // A key beyond the placeholders would be a value that silently goes nowhere: the general path tells.
  if (Object.keys(values).length !== ${slots.declared}) return undefined;
  ${lines.join("\n  ")}
};`;
  try {
    const make = new Function("accepts", "params", "textProblem", "nulInText", source);
    return make(Object.freeze([...slots.accepts]), params, textProblem, slots.nulInText) as FastBinder;
  } catch {
    return undefined;
  }
}
