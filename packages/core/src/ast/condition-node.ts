import type { ColumnMeta } from "../schema/column-meta.js";
import type { SubqueryNode } from "./statement-node.js";
import type { ExpressionNode, ValueNode } from "./value-node.js";

export type CompareOperator = "=" | "<>" | "<" | "<=" | ">" | ">=" | "like" | "ilike";

export interface CompareNode {
  readonly kind: "compare";
  readonly column: ColumnMeta;
  readonly op: CompareOperator;
  readonly value: ValueNode;
}

export interface InListNode {
  readonly kind: "inList";
  readonly column: ColumnMeta;
  readonly negated: boolean;
  /** Never empty: the builder turns `in: []` into a constant. */
  readonly values: readonly ValueNode[];
}

export interface InSubqueryNode {
  readonly kind: "inSubquery";
  readonly column: ColumnMeta;
  readonly negated: boolean;
  readonly subquery: SubqueryNode;
}

export interface IsNullNode {
  readonly kind: "isNull";
  readonly column: ColumnMeta;
  readonly negated: boolean;
}

export interface BetweenNode {
  readonly kind: "between";
  readonly column: ColumnMeta;
  readonly low: ValueNode;
  readonly high: ValueNode;
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

export function compareNode(column: ColumnMeta, op: CompareOperator, value: ValueNode): CompareNode {
  return Object.freeze({ kind: "compare", column, op, value });
}

/** `values` is frozen by the caller (it is built with an index loop, see resolve-where). */
export function inListNode(column: ColumnMeta, negated: boolean, values: readonly ValueNode[]): InListNode {
  return Object.freeze({ kind: "inList", column, negated, values });
}

export function inSubqueryNode(column: ColumnMeta, negated: boolean, subquery: SubqueryNode): InSubqueryNode {
  return Object.freeze({ kind: "inSubquery", column, negated, subquery });
}

export function isNullNode(column: ColumnMeta, negated: boolean): IsNullNode {
  return Object.freeze({ kind: "isNull", column, negated });
}

export function betweenNode(column: ColumnMeta, low: ValueNode, high: ValueNode): BetweenNode {
  return Object.freeze({ kind: "between", column, low, high });
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

/** The two constants are shared values. */
export function constantNode(value: boolean): ConstantNode {
  return value ? TRUE : FALSE;
}

export function expressionConditionNode(expression: ExpressionNode): ExpressionConditionNode {
  return Object.freeze({ kind: "expressionCondition", expression });
}

/** `previous AND next`, or `next` alone when there is nothing before. */
export function andNodes(previous: ConditionNode | undefined, next: ConditionNode): ConditionNode {
  return previous === undefined ? next : junctionNode("and", [previous, next]);
}
