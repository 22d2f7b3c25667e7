import type { SubqueryNode } from "../ast/statement-node.js";

const SUBQUERY = Symbol.for("tempest-db-js.subquery");

/** A one-column SELECT marked as the operand of `in` / `notIn`, from `.asSubquery(field)`. */
export interface Subquery<T = unknown> {
  readonly node: SubqueryNode;
  readonly __valueType?: T;
}

export function makeSubquery<T>(node: SubqueryNode): Subquery<T> {
  const subquery = { node: Object.freeze(node) };
  Object.defineProperty(subquery, SUBQUERY, { value: true });
  return Object.freeze(subquery);
}

export function isSubquery(value: unknown): value is Subquery {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[SUBQUERY] === true;
}
