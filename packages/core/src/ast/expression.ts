import type { ExpressionNode } from "./value-node.js";

const BRAND = Symbol.for("tempest-db-js.expression");

/**
 * A piece of SQL made by `sql.raw`, `sql.expr`, `sql.now` and friends. The brand is a
 * non-enumerable symbol, so no parsed JSON or spread object can ever pass as an expression.
 */
export interface Expression<T = unknown, K = unknown> {
  readonly node: ExpressionNode;
  /** Phantom: the value type the expression produces. */
  readonly __expressionType?: T;
  /**
   * Phantom: the SQL kind of the value where the expression builders know it (`"numeric"`, `"text"`,
   * ...), so that a decimal string and a text, both `string`, are told apart; unknown otherwise.
   */
  readonly __expressionKind?: K;
  /** Type-only twin of the runtime brand: an object literal shaped like an expression does not compile either. */
  readonly [typeBrand]: true;
}

declare const typeBrand: unique symbol;

/**
 * The brand sits on the prototype, non-enumerable: a spread, JSON or structured clone of an
 * expression is a plain object without it, and making an expression costs no property definition.
 */
class BrandedExpression {
  readonly node: ExpressionNode;

  constructor(node: ExpressionNode) {
    this.node = node;
    Object.freeze(this);
  }

  static {
    Object.defineProperty(this.prototype, BRAND, { value: true });
  }
}

export function brandExpression<T>(node: ExpressionNode): Expression<T> {
  return new BrandedExpression(Object.freeze(node)) as unknown as Expression<T>;
}

/**
 * An expression with methods of its own (an aggregate's `over`): the same brand and prototype, the
 * methods as frozen own properties.
 */
export function brandExpressionWith<T, M extends object>(node: ExpressionNode, methods: M): Expression<T> & M {
  const expression = Object.create(BrandedExpression.prototype) as { node: ExpressionNode };
  expression.node = Object.freeze(node);
  return Object.freeze(Object.assign(expression, methods)) as unknown as Expression<T> & M;
}

export function isExpression(value: unknown): value is Expression {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto === BrandedExpression.prototype) return true;
  // The brand lives on an expression class's prototype, never on a plain object or an array (so an own
  // brand, or one put on Object.prototype, makes nothing an expression). These answers also spare the
  // brand lookup, which on the many shapes of where and set objects is a megamorphic load.
  if (proto === Object.prototype || proto === null || proto === Array.prototype) return false;
  // An expression made by another copy of this package (two versions installed side by side).
  return (value as Record<symbol, unknown>)[BRAND] === true;
}

/** The node behind a branded expression, or undefined for anything else. */
export function expressionNode(value: unknown): ExpressionNode | undefined {
  return isExpression(value) ? value.node : undefined;
}
