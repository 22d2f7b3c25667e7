import type { ColumnMeta } from "../schema/column-meta.js";
import { checkValue } from "./check-value.js";
import { isUuid } from "./is-uuid.js";

const accepters = new WeakMap<ColumnMeta, (value: unknown) => boolean>();

/**
 * A predicate for the column's non-null values, exactly as strict as checkValue, made once per
 * column: a bulk insert tests every cell with it, and goes through checkValue (which words the error)
 * only when it says no. The usual kinds get a one-line test; the others ask checkValue itself.
 */
export function valueAccepter(column: ColumnMeta): (value: unknown) => boolean {
  let accepts = accepters.get(column);
  if (accepts === undefined) {
    accepts = makeAccepter(column);
    accepters.set(column, accepts);
  }
  return accepts;
}

function makeAccepter(column: ColumnMeta): (value: unknown) => boolean {
  switch (column.kind) {
    case "text":
      return (v) => typeof v === "string";
    case "integer":
      return (v) => typeof v === "number" && Number.isSafeInteger(v);
    case "real":
      return (v) => typeof v === "number" && Number.isFinite(v);
    case "boolean":
      return (v) => typeof v === "boolean";
    case "uuid":
      return (v) => typeof v === "string" && isUuid(v);
    default:
      return (v) => {
        if (v === null) return false;
        try {
          checkValue(column, v, "");
          return true;
        } catch {
          return false;
        }
      };
  }
}
