import type { ConditionNode } from "../ast/condition-node.js";
import { ValidationError } from "../errors.js";

/**
 * What a condition is whatever the row, when that is known while building: true, false, or undefined
 * (it depends on the row). Decided by meaning, not spelling: `or({}, x)`, `not({ id: op.in([]) })`,
 * `{ key: op.isNull(false) }` on a NOT NULL column and `like("%")` on one are all true for every row,
 * so the no-where guard of update and delete refuses them as it refuses a missing where. SQL text
 * (`sql.expr`) and subqueries are the row's business: undefined.
 */
export function conditionTruth(node: ConditionNode): boolean | undefined {
  switch (node.kind) {
    case "constant":
      return node.value;
    case "and": {
      let truth: boolean | undefined = true;
      for (const item of node.items) {
        const value = conditionTruth(item);
        if (value === false) return false;
        if (value === undefined) truth = undefined;
      }
      return truth;
    }
    case "or": {
      let truth: boolean | undefined = false;
      for (const item of node.items) {
        const value = conditionTruth(item);
        if (value === true) return true;
        if (value === undefined) truth = undefined;
      }
      return truth;
    }
    case "not": {
      const value = conditionTruth(node.item);
      return value === undefined ? undefined : !value;
    }
    case "isNull":
      // A column that cannot hold NULL: IS NOT NULL holds for every row, IS NULL for none.
      return node.column.notNull || node.column.primaryKey ? node.negated : undefined;
    case "compare":
      // `%` alone matches every string that is not NULL (a request's "%" passed to like).
      if ((node.op === "like" || node.op === "ilike") && (node.column.notNull || node.column.primaryKey)) {
        const value = node.value;
        if (value.kind === "param" && typeof value.value === "string" && /^%+$/.test(value.value)) return true;
      }
      return undefined;
    case "inList":
    case "inSubquery":
    case "between":
    case "expressionCondition":
      return undefined;
    default:
      throw new ValidationError(`Unknown condition ${JSON.stringify((node as { kind?: string }).kind)}`);
  }
}
