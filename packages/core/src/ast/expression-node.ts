import type { ColumnKind } from "../schema/column-meta.js";
import type { ConditionNode } from "./condition-node.js";
import type { DatetimeNode } from "./datetime-node.js";
import type { AggregateFunction, ValueNode } from "./value-node.js";

/**
 * The kind of value a typed expression produces, and whether it may be NULL. Set by the builder
 * (expression/value-type.ts) from its operands' kinds, so the compiler and the row decoder read it
 * and never guess: one meaning per kind on every database.
 */
export interface ValueType {
  readonly kind: ColumnKind;
  readonly nullable: boolean;
}

export type ArithmeticOperator = "+" | "-" | "*" | "/" | "%";

/** `left op right`, both operands already of (or promoted to) the kind of `type`. */
export interface ArithmeticNode {
  readonly kind: "arithmetic";
  readonly op: ArithmeticOperator;
  readonly left: ValueNode;
  readonly right: ValueNode;
  readonly type: ValueType;
}

/** `-operand`. */
export interface NegateNode {
  readonly kind: "negate";
  readonly operand: ValueNode;
  readonly type: ValueType;
}

/**
 * The string functions (docs/expressions.md#strings): texts in, code points counted, A-Z the only
 * letters `lower` / `upper` change. `substring`'s start and length are bound integers.
 */
export type StringFunction = "lower" | "upper" | "trim" | "ltrim" | "rtrim" | "length" | "concat" | "substring";

/**
 * Scalar functions with one meaning on every database (see compiler/expression-compiler.ts), and
 * `notify`: a notification to a LISTEN channel, sent at commit (dialects with `listenNotify`).
 */
export type ScalarFunction = "coalesce" | "nullif" | "greatest" | "least" | "notify" | StringFunction;

/** `fn(args...)`; each argument's kind is what `fn` takes (the builder checks it). */
export interface FunctionCallNode {
  readonly kind: "functionCall";
  readonly fn: ScalarFunction;
  readonly args: readonly ValueNode[];
  readonly type: ValueType;
}

export interface CaseBranch {
  readonly when: ConditionNode;
  readonly value: ValueNode;
}

/** `CASE WHEN c THEN v ... ELSE e END`; no `otherwise`: ELSE NULL. */
export interface CaseNode {
  readonly kind: "case";
  readonly branches: readonly CaseBranch[];
  readonly otherwise: ValueNode | undefined;
  readonly type: ValueType;
}

/** A value converted to another kind, by the rules of `fn.cast` (truncation toward zero into integers). */
export interface CastNode {
  readonly kind: "cast";
  readonly operand: ValueNode;
  /** The operand's kind. */
  readonly from: ColumnKind;
  readonly type: ValueType;
}

export type ComparisonOperator = "=" | "<>" | "<" | "<=" | ">" | ">=";

/** `left op right` between two values of one kind: a boolean, usable as a condition. */
export interface ComparisonNode {
  readonly kind: "comparison";
  readonly op: ComparisonOperator;
  readonly left: ValueNode;
  readonly right: ValueNode;
  /** The kind both operands are compared as. */
  readonly operandKind: ColumnKind;
  readonly type: ValueType;
}

/**
 * An aggregate over an expression: `SUM(a * b)`, `COUNT(CASE ...)`, optionally over the rows a
 * condition keeps (`filter`, written as a CASE inside the call, which every database runs).
 * `operand` undefined: COUNT(*).
 */
export interface AggregateOfNode {
  readonly kind: "aggregateOf";
  readonly fn: AggregateFunction;
  readonly distinct: boolean;
  readonly operand: ValueNode | undefined;
  /** The operand's kind (what SUM / AVG compute over). */
  readonly operandKind: ColumnKind | undefined;
  readonly filter: ConditionNode | undefined;
  readonly type: ValueType;
}

/**
 * An integer constant of the program written into the SQL text (`fn.lit`): the builder accepts only a
 * safe integer or a 64-bit bigint, so the text is digits and a sign, never anything a caller wrote.
 */
export interface LiteralNode {
  readonly kind: "literal";
  readonly value: number | bigint;
  readonly type: ValueType;
}

export type TypedExpressionNode =
  | ArithmeticNode
  | NegateNode
  | FunctionCallNode
  | CaseNode
  | CastNode
  | ComparisonNode
  | AggregateOfNode
  | LiteralNode
  | DatetimeNode;

// ---- factories: the only places these nodes are made; each returns a frozen node --------------

export function valueType(kind: ColumnKind, nullable: boolean): ValueType {
  return Object.freeze({ kind, nullable });
}

export function arithmeticNode(op: ArithmeticOperator, left: ValueNode, right: ValueNode, type: ValueType): ArithmeticNode {
  return Object.freeze({ kind: "arithmetic", op, left, right, type });
}

export function literalNode(value: number | bigint, type: ValueType): LiteralNode {
  return Object.freeze({ kind: "literal", value, type });
}

export function negateNode(operand: ValueNode, type: ValueType): NegateNode {
  return Object.freeze({ kind: "negate", operand, type });
}

/** `args` are frozen here. */
export function functionCallNode(fn: ScalarFunction, args: readonly ValueNode[], type: ValueType): FunctionCallNode {
  return Object.freeze({ kind: "functionCall", fn, args: Object.freeze([...args]), type });
}

/** `branches` (and each branch) are frozen here. */
export function caseNode(branches: readonly CaseBranch[], otherwise: ValueNode | undefined, type: ValueType): CaseNode {
  return Object.freeze({
    kind: "case",
    branches: Object.freeze(branches.map((b) => Object.freeze({ when: b.when, value: b.value }))),
    otherwise,
    type,
  });
}

export function castNode(operand: ValueNode, from: ColumnKind, type: ValueType): CastNode {
  return Object.freeze({ kind: "cast", operand, from, type });
}

export function comparisonNode(
  op: ComparisonOperator,
  left: ValueNode,
  right: ValueNode,
  operandKind: ColumnKind,
  type: ValueType,
): ComparisonNode {
  return Object.freeze({ kind: "comparison", op, left, right, operandKind, type });
}

export function aggregateOfNode(
  fn: AggregateFunction,
  distinct: boolean,
  operand: ValueNode | undefined,
  operandKind: ColumnKind | undefined,
  filter: ConditionNode | undefined,
  type: ValueType,
): AggregateOfNode {
  return Object.freeze({ kind: "aggregateOf", fn, distinct, operand, operandKind, filter, type });
}

/** The values a typed expression is computed from, in the order the compiler writes them. */
export function expressionOperands(node: TypedExpressionNode): readonly ValueNode[] {
  switch (node.kind) {
    case "arithmetic":
    case "comparison":
      return [node.left, node.right];
    case "negate":
    case "cast":
      return [node.operand];
    case "functionCall":
      return node.args;
    case "case": {
      const values = node.branches.map((b) => b.value);
      if (node.otherwise !== undefined) values.push(node.otherwise);
      return values;
    }
    case "aggregateOf":
      return node.operand === undefined ? [] : [node.operand];
    case "literal":
      return [];
    case "datetimeTrunc":
    case "datetimeField":
      return [node.operand];
    case "datetimeShift":
      return [node.operand, node.amount];
    case "datetimeDiff":
      return [node.left, node.right];
  }
}

/** The conditions inside a typed expression (CASE's WHENs, an aggregate's filter). */
export function expressionConditions(node: TypedExpressionNode): readonly ConditionNode[] {
  if (node.kind === "case") return node.branches.map((b) => b.when);
  if (node.kind === "aggregateOf" && node.filter !== undefined) return [node.filter];
  return [];
}
