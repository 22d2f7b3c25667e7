import { expressionNode } from "../ast/expression.js";
import type { ValueNode } from "../ast/value-node.js";
import { paramNode } from "../ast/value-node.js";
import { ValidationError } from "../errors.js";
import { placeAt } from "../expression/placeholder.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import { checkValue } from "./check-value.js";
import { refuseWindowValue } from "./window-rules.js";

/** A value for a column: a branded expression passes through, anything else must fit the column. */
export function resolveValue(column: ColumnMeta, value: unknown, where: string, allowNull?: boolean): ValueNode {
  const node = expressionNode(value);
  // A placeholder is checked at execute() as a literal here would be now.
  if (node) {
    refuseWindowValue(node, where || column.field);
    return placeAt(node, column, where, allowNull ?? !column.notNull);
  }
  if (value === undefined) {
    throw new ValidationError(`${where}: ${column.field} is undefined; omit the field or pass null`);
  }
  checkValue(column, value, where, allowNull);
  return paramNode(value, column);
}
