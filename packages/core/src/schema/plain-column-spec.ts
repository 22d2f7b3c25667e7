import type { ColumnKind, ColumnSpec } from "./column-meta.js";

/**
 * A column of `kind` with nothing declared: nullable, no key, no default, no length or precision, no
 * reference, its name from the model's naming. What `column.*()` starts from, and what the columns an
 * expression's literals are checked against (expression/value-type.ts, kindColumn) are made of.
 */
export function plainColumnSpec(kind: ColumnKind): ColumnSpec {
  return {
    kind,
    notNull: false,
    primaryKey: false,
    unique: false,
    default: undefined,
    enumValues: undefined,
    length: undefined,
    precision: undefined,
    scale: undefined,
    references: undefined,
    dbName: undefined,
  };
}
