import type { ValueNode } from "../ast/value-node.js";
import { ValidationError } from "../errors.js";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Not a constant: a column, a function of rows, or a kind this evaluator does not fold. */
const UNKNOWN = Symbol("unknown");
type Constant = bigint | null | typeof UNKNOWN;

/**
 * The value of integer arithmetic over bound values alone, as the databases would compute it; or
 * UNKNOWN when a column (or anything not folded here) takes part. Why it exists: PostgreSQL folds
 * such a constant while planning, so an overflow there is an error even in a CASE branch no row
 * takes, and MariaDB folds `0 - <minimum>` into a decimal instead of raising; refusing the overflow
 * when the expression is built gives the one answer, a ValidationError, everywhere.
 */
function constantOf(node: ValueNode): Constant {
  switch (node.kind) {
    case "param": {
      const value = node.value;
      if (value === null) return null;
      if (typeof value === "bigint") return value;
      return typeof value === "number" && Number.isSafeInteger(value) ? BigInt(value) : UNKNOWN;
    }
    case "literal":
      return BigInt(node.value);
    case "negate": {
      if (node.type.kind !== "integer" && node.type.kind !== "bigint") return UNKNOWN;
      const value = constantOf(node.operand);
      return value === UNKNOWN || value === null ? value : -value;
    }
    case "arithmetic": {
      if (node.type.kind !== "integer" && node.type.kind !== "bigint") return UNKNOWN;
      const left = constantOf(node.left);
      const right = constantOf(node.right);
      if (left === UNKNOWN || right === UNKNOWN) return UNKNOWN;
      if (left === null || right === null) return null;
      switch (node.op) {
        case "+":
          return left + right;
        case "-":
          return left - right;
        case "*":
          return left * right;
        case "/":
          return right === 0n ? null : left / right;
        case "%":
          return right === 0n ? null : left % right;
      }
      return UNKNOWN;
    }
    default:
      return UNKNOWN;
  }
}

/** Refuses integer arithmetic over bound values alone whose result leaves the 64-bit range. */
export function assertConstantInRange(node: ValueNode, where: string): void {
  const value = constantOf(node);
  if (typeof value === "bigint" && (value < INT64_MIN || value > INT64_MAX)) {
    throw new ValidationError(`${where}: over bound values alone, the result ${value} is outside the 64-bit range`);
  }
}
