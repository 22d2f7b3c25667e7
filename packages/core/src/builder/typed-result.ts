import type { ValueType } from "../ast/expression-node.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import { resultColumn } from "./result-columns.js";

/**
 * How a typed expression's values read, per kind (docs/api.md's table): integers as numbers (an
 * error past 2^53 - 1, whichever way the server sends them), bigints as bigint, reals as numbers,
 * exact decimals as strings without trailing fractional zeros (each database keeps its own scale).
 */
export function typedResult(type: ValueType, key: string): ColumnMeta {
  const notNull = !type.nullable;
  switch (type.kind) {
    case "integer":
      return resultColumn(undefined, key, "bigint", notNull, "safeNumber");
    case "real":
      return resultColumn(undefined, key, "real", notNull, "number");
    case "numeric":
      return resultColumn(undefined, key, "numeric", notNull, "trimDecimal");
    case "varchar":
    case "enum":
      return resultColumn(undefined, key, "text", notNull, undefined);
    default:
      return resultColumn(undefined, key, type.kind, notNull, undefined);
  }
}
