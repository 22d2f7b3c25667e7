import type { ColumnSnapshot } from "./schema-snapshot.js";

/** What an introspector reads off a column's database type. */
export type ColumnTypeReading = Pick<ColumnSnapshot, "kind" | "enumValues" | "length" | "precision" | "scale">;

/**
 * A column snapshot with its fields in the type's order, so that snapshot files written from any
 * dialect's introspector list every column's fields alike.
 */
export function snapshotColumn(
  name: string,
  type: ColumnTypeReading,
  notNull: boolean,
  unique: boolean,
  fallback: ColumnSnapshot["default"],
  generated: ColumnSnapshot["generated"],
): ColumnSnapshot {
  return {
    name,
    kind: type.kind,
    notNull,
    unique,
    default: fallback,
    enumValues: type.enumValues,
    length: type.length,
    precision: type.precision,
    scale: type.scale,
    generated,
  };
}
