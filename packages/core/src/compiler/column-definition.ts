import type { ColumnKind, ColumnMeta } from "../schema/column-meta.js";
import type { ColumnSnapshot, TableSnapshot } from "../schema/schema-snapshot.js";

/**
 * A column as the DDL hooks see it (`columnType`, `enumCheckSql`), the same whether the column
 * comes from a model or from a schema snapshot: CREATE TABLE, ADD COLUMN and ALTER COLUMN all
 * write their types from this, so each dialect maps kinds to types once.
 */
export interface ColumnDefinition {
  /** The table's name, for messages. */
  readonly table: string;
  readonly name: string;
  /** The column's name again (a snapshot knows no TypeScript field), so hooks written against ColumnMeta read it. */
  readonly field: string;
  readonly kind: ColumnKind;
  readonly notNull: boolean;
  readonly primaryKey: boolean;
  readonly unique: boolean;
  readonly enumValues: readonly string[] | undefined;
  readonly length: number | undefined;
  readonly precision: number | undefined;
  readonly scale: number | undefined;
  /**
   * Part of a key: the primary key, UNIQUE, an index or a foreign key. MySQL bounds such a text
   * column (a key cannot cover a whole TEXT/BLOB). Always set by the compiler; optional in the type
   * only so that a hook written against ColumnMeta (contract 3) still type-checks.
   */
  readonly keyed?: boolean;
}

/** Whether `column` of `table` is part of a key (see ColumnDefinition.keyed). */
export function isKeyed(table: TableSnapshot, column: string): boolean {
  return (
    table.primaryKey.includes(column) ||
    table.columns.some((c) => c.name === column && c.unique) ||
    table.indexes.some((index) => index.columns.includes(column)) ||
    table.foreignKeys.some((fk) => fk.columns.includes(column))
  );
}

export function columnDefinition(table: string, column: ColumnSnapshot, primaryKey: boolean, keyed: boolean): ColumnDefinition {
  return Object.freeze({
    table,
    name: column.name,
    field: column.name,
    kind: column.kind,
    notNull: column.notNull,
    primaryKey,
    unique: column.unique,
    enumValues: column.enumValues ?? undefined,
    length: column.length ?? undefined,
    precision: column.precision ?? undefined,
    scale: column.scale ?? undefined,
    keyed: keyed || primaryKey || column.unique,
  });
}

/** The column as the value codec takes it, to encode a default the way a bound value is encoded. */
export function codecColumn(definition: ColumnDefinition): ColumnMeta {
  return Object.freeze({
    ...definition,
    default: undefined,
    references: undefined,
    dbName: definition.name,
    required: false,
  });
}

/** A default value as a snapshot stores it (JSON): a Date as ISO text, a bigint as decimal text, bytes as hex. */
export function snapshotValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString("hex");
  return value;
}

/** A snapshot's default value back as the JavaScript value the column's codec encodes. */
export function revivedValue(value: unknown, kind: ColumnKind): unknown {
  if (typeof value !== "string") return value;
  switch (kind) {
    case "datetime":
      return new Date(value);
    case "bigint":
      return /^-?\d+$/.test(value) ? BigInt(value) : value;
    case "bytes":
      return /^([0-9a-f]{2})*$/i.test(value) ? new Uint8Array(Buffer.from(value, "hex")) : value;
    default:
      return value;
  }
}
