import type { WhereArg } from "../types/model-types.js";

const CONDITION = Symbol.for("tempest-db-js.condition");

export type ConditionOp = "and" | "or" | "not";

/** `and()`, `or()`, `not()` over where inputs; resolved against the model when used in a query. */
export interface Condition<I = any> {
  readonly op: ConditionOp;
  readonly items: readonly WhereArg<I>[];
  /** Phantom: the model instance type the condition is written for. */
  readonly __model?: (model: I) => void;
}

function make<I>(op: ConditionOp, items: readonly WhereArg<I>[]): Condition<I> {
  const condition = { op, items: Object.freeze([...items]) };
  Object.defineProperty(condition, CONDITION, { value: true });
  return Object.freeze(condition);
}

export function isCondition(value: unknown): value is Condition {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[CONDITION] === true;
}

export function and<I = any>(...items: WhereArg<I>[]): Condition<I> {
  return make("and", items);
}

export function or<I = any>(...items: WhereArg<I>[]): Condition<I> {
  return make("or", items);
}

export function not<I = any>(item: WhereArg<I>): Condition<I> {
  return make("not", [item]);
}
