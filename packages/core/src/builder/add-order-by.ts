import { expressionNode } from "../ast/expression.js";
import { isTypedExpression } from "../ast/is-typed-expression.js";
import type { OrderByItem, SelectNode } from "../ast/statement-node.js";
import { orderByItem } from "../ast/statement-node.js";
import { outputColumnNode } from "../ast/value-node.js";
import { ValidationError } from "../errors.js";
import type { TableMeta } from "../schema/table-meta.js";
import { columnOf } from "../schema/table-meta.js";
import type { QueryScope } from "./query-scope.js";
import { refColumn } from "./query-scope.js";
import { orderItem, selectionOf } from "./select-clauses.js";
import type { OrderByOptions } from "./select-types.js";
import { refuseWindowValue } from "./window-rules.js";

/**
 * The ORDER BY of `node` with one more sort key: a typed expression, a field (`"alias.field"` with
 * named sources) or a key of `.columns()` (see SelectBuilder.orderBy). `scope` is asked for only where
 * a reference is resolved by name, so a builder works its scope out no sooner than it did.
 */
export function addOrderBy(
  node: SelectNode,
  key: unknown,
  direction: "asc" | "desc",
  options: OrderByOptions | undefined,
  scope: () => QueryScope | TableMeta,
): readonly OrderByItem[] {
  if (direction !== "asc" && direction !== "desc") throw new ValidationError(`orderBy: direction must be "asc" or "desc"`);
  const previous = node.orderBy;
  const expression = expressionNode(key);
  if (expression !== undefined) {
    if (!isTypedExpression(expression))
      throw new ValidationError("orderBy: takes a field, a projection key or a typed expression (fn.*, q.*)");
    refuseWindowValue(expression, "orderBy");
    const nulls = options?.nulls;
    if (nulls !== undefined && nulls !== "first" && nulls !== "last") throw new ValidationError(`orderBy: nulls must be "first" or "last"`);
    return Object.freeze([...previous, orderByItem(undefined, expression, direction, nulls)]);
  }
  if (node.parts === undefined && options === undefined) {
    const shared = orderItem(columnOf(node.table, key as string, "orderBy"), direction);
    return previous.length === 0 ? shared.alone : Object.freeze([...previous, shared.item]);
  }
  const nulls = options?.nulls;
  if (nulls !== undefined && nulls !== "first" && nulls !== "last") throw new ValidationError(`orderBy: nulls must be "first" or "last"`);
  const output = selectionOf(node.parts?.selections, key as string) !== undefined;
  const item = output
    ? orderByItem(undefined, outputColumnNode(key as string), direction, nulls)
    : orderByItem(refColumn(scope(), key, "orderBy"), undefined, direction, nulls);
  return Object.freeze([...previous, item]);
}
