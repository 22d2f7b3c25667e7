import type { ColumnMeta } from "../schema/column-meta.js";
import type { SubqueryNode } from "./statement-node.js";
import type { ExpressionNode, ValueNode } from "./value-node.js";

/**
 * Set on a leaf that came from a plain `{ op: ... }` object or a bare `null` where-value (the
 * operator's name, or "null"), so an engine created with `operators: "helpers-only"` can refuse
 * the statement before anything is sent. Absent when an `op` helper or a plain value made it.
 */
export type PlainOrigin = string | undefined;

export type CompareOperator = "=" | "<>" | "<" | "<=" | ">" | ">=" | "like" | "ilike";

export interface CompareNode {
  readonly kind: "compare";
  readonly column: ColumnMeta;
  readonly op: CompareOperator;
  readonly value: ValueNode;
  readonly plain?: PlainOrigin;
}

export interface InListNode {
  readonly kind: "inList";
  readonly column: ColumnMeta;
  readonly negated: boolean;
  /** Never empty: the builder turns `in: []` into a constant. */
  readonly values: readonly ValueNode[];
  readonly plain?: PlainOrigin;
}

export interface InSubqueryNode {
  readonly kind: "inSubquery";
  readonly column: ColumnMeta;
  readonly negated: boolean;
  readonly subquery: SubqueryNode;
  readonly plain?: PlainOrigin;
}

export interface IsNullNode {
  readonly kind: "isNull";
  readonly column: ColumnMeta;
  readonly negated: boolean;
  readonly plain?: PlainOrigin;
}

export interface BetweenNode {
  readonly kind: "between";
  readonly column: ColumnMeta;
  readonly low: ValueNode;
  readonly high: ValueNode;
  readonly plain?: PlainOrigin;
}

export interface JunctionNode {
  readonly kind: "and" | "or";
  readonly items: readonly ConditionNode[];
}

export interface NotNode {
  readonly kind: "not";
  readonly item: ConditionNode;
}

/** A predicate known while building: `in: []` is false, `notIn: []` is true. */
export interface ConstantNode {
  readonly kind: "constant";
  readonly value: boolean;
  readonly plain?: PlainOrigin;
  /** The field of the `in: []` / `notIn: []` a plain object made this constant of. */
  readonly field?: string;
}

/** A raw or templated SQL predicate. */
export interface ExpressionConditionNode {
  readonly kind: "expressionCondition";
  readonly expression: ExpressionNode;
}

export type ConditionNode =
  | CompareNode
  | InListNode
  | InSubqueryNode
  | IsNullNode
  | BetweenNode
  | JunctionNode
  | NotNode
  | ConstantNode
  | ExpressionConditionNode;

// ---- factories: the only places a condition node is made; each returns a frozen node ----------

/*
 * The leaf factories take `plain` last (see PlainOrigin) and always set it, undefined or not, so every
 * node of a kind has one shape.
 */

export function compareNode(column: ColumnMeta, op: CompareOperator, value: ValueNode, plain?: PlainOrigin): CompareNode {
  return Object.freeze({ kind: "compare", column, op, value, plain });
}

/** `values` is frozen by the caller (it is built with an index loop, see resolve-where). */
export function inListNode(column: ColumnMeta, negated: boolean, values: readonly ValueNode[], plain?: PlainOrigin): InListNode {
  return Object.freeze({ kind: "inList", column, negated, values, plain });
}

export function inSubqueryNode(column: ColumnMeta, negated: boolean, subquery: SubqueryNode, plain?: PlainOrigin): InSubqueryNode {
  return Object.freeze({ kind: "inSubquery", column, negated, subquery, plain });
}

export function isNullNode(column: ColumnMeta, negated: boolean, plain?: PlainOrigin): IsNullNode {
  return Object.freeze({ kind: "isNull", column, negated, plain });
}

export function betweenNode(column: ColumnMeta, low: ValueNode, high: ValueNode, plain?: PlainOrigin): BetweenNode {
  return Object.freeze({ kind: "between", column, low, high, plain });
}

/** `items` are frozen here; pass two or more (one item is the item itself, none a constant). */
export function junctionNode(kind: JunctionNode["kind"], items: readonly ConditionNode[]): JunctionNode {
  return Object.freeze({ kind, items: Object.isFrozen(items) ? items : Object.freeze(items) });
}

export function notNode(item: ConditionNode): NotNode {
  return Object.freeze({ kind: "not", item });
}

const TRUE: ConstantNode = Object.freeze({ kind: "constant", value: true });
const FALSE: ConstantNode = Object.freeze({ kind: "constant", value: false });

/** The two constants are shared values; one an empty plain `in` / `notIn` made is a node of its own that says so. */
export function constantNode(value: boolean, plain?: { readonly origin: string; readonly field: string }): ConstantNode {
  if (plain === undefined) return value ? TRUE : FALSE;
  return Object.freeze({ kind: "constant", value, plain: plain.origin, field: plain.field });
}

export function expressionConditionNode(expression: ExpressionNode): ExpressionConditionNode {
  return Object.freeze({ kind: "expressionCondition", expression });
}

/** `previous AND next`, or `next` alone when there is nothing before. */
export function andNodes(previous: ConditionNode | undefined, next: ConditionNode): ConditionNode {
  return previous === undefined ? next : junctionNode("and", [previous, next]);
}
