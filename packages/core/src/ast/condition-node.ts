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
