import type { TypedExpressionNode } from "./expression-node.js";

/**
 * Every kind of TypedExpressionNode, once: a kind added to the union and not here fails to compile,
 * so each switch that hands typed expressions on by this test (the compiler's value, typeOf, a
 * selection's result column) stays exhaustive.
 */
const TYPED_KINDS: { readonly [K in TypedExpressionNode["kind"]]: true } = {
  arithmetic: true,
  negate: true,
  functionCall: true,
  case: true,
  cast: true,
  comparison: true,
  aggregateOf: true,
  literal: true,
  datetimeTrunc: true,
  datetimeField: true,
  datetimeShift: true,
  datetimeDiff: true,
};

const TYPED_KIND_SET: ReadonlySet<string> = new Set(Object.keys(TYPED_KINDS));

/** Whether a node is a typed expression: one that carries its ValueType (`node.type`), set by the builder. */
export function isTypedExpression(node: { readonly kind: string }): node is TypedExpressionNode {
  return TYPED_KIND_SET.has(node.kind);
}
