import type { SubqueryNode } from "../ast/statement-node.js";

const SUBQUERY = Symbol.for("tempest-db-js.subquery");

/** A one-column SELECT as the operand of `in` / `notIn`: from `.asSubquery(field)`, or a select projecting one key. */
export interface Subquery<T = unknown> {
  readonly node: SubqueryNode;
  readonly __valueType?: T;
}

/** The brand sits on the prototype: a spread or JSON copy of a subquery is a plain object without it. */
class SubqueryOperand {
  readonly node: SubqueryNode;

  /** `node` is frozen by its maker (asSubquery); the operand itself is frozen here. */
  constructor(node: SubqueryNode) {
    this.node = node;
    Object.freeze(this);
  }

  static {
    Object.defineProperty(this.prototype, SUBQUERY, { value: true });
  }
}

export function makeSubquery<T>(node: SubqueryNode): Subquery<T> {
  return new SubqueryOperand(node);
}

export function isSubquery(value: unknown): value is Subquery {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[SUBQUERY] === true;
}

/** Brands a class whose instances are `in` / `notIn` operands through a `node` property of their own. */
export function markSubquery(prototype: object): void {
  Object.defineProperty(prototype, SUBQUERY, { value: true });
}
