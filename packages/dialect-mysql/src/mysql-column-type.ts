import type { ColumnKind } from "tempest-db-js/dialect";

/** The kinds whose MySQL type is the same wherever a column of them is declared. */
export type PlainKind = Exclude<ColumnKind, "text" | "bytes" | "enum" | "boolean" | "json">;

/** The sizes a kind's type may carry (ColumnMeta and ColumnDefinition both have them). */
export interface ColumnSize {
  readonly length: number | undefined;
  readonly precision: number | undefined;
  readonly scale: number | undefined;
}

/**
 * The one mapping of column kinds to MySQL/MariaDB types that a table's DDL (MysqlSchemaCompiler's
 * columnType) and JSON_TABLE's COLUMNS (jsonTableItemType) share. Text, bytes, enum, boolean and json
 * are typed by each place itself: a key bounds a text, JSON_TABLE has no enum or blob column.
 */
export function mysqlColumnType(kind: PlainKind, size: ColumnSize): string {
  switch (kind) {
    case "uuid":
      return "char(36)";
    case "varchar":
      return `varchar(${size.length ?? 255})`;
    case "integer":
      return "int";
    case "bigint":
      return "bigint";
    case "real":
      return "double";
    // Plain `decimal` means decimal(10, 0) here and would round away every fraction.
    case "numeric":
      return size.precision === undefined ? "decimal(65, 30)" : `decimal(${size.precision}, ${size.scale ?? 0})`;
    case "datetime":
      return "datetime(3)";
    case "date":
      return "date";
  }
}

/** The type a JSON_TABLE column gives list items of this kind; undefined for kinds sent as a list (bytes, boolean, json). */
export function jsonTableItemType(column: ColumnSize & { readonly kind: ColumnKind }): string | undefined {
  switch (column.kind) {
    case "text":
    case "enum":
      return "longtext CHARACTER SET utf8mb4";
    case "bytes":
    case "boolean":
    case "json":
      return undefined;
    case "uuid":
    case "varchar":
      return `${mysqlColumnType(column.kind, column)} CHARACTER SET utf8mb4`;
    default:
      return mysqlColumnType(column.kind, column);
  }
}

/**
 * The type `CAST(x AS ...)` takes for a kind. Not the column types: CAST accepts only SIGNED,
 * UNSIGNED, DECIMAL, DATE, DATETIME, DOUBLE, CHAR, BINARY and JSON, so integers and booleans are
 * SIGNED, a numeric is always the widest decimal, and every text kind is CHAR.
 */
export function mysqlCastType(kind: ColumnKind): string {
  switch (kind) {
    case "integer":
    case "bigint":
    case "boolean":
      return "SIGNED";
    case "numeric":
      return "DECIMAL(65, 30)";
    case "datetime":
      return "DATETIME(3)";
    case "date":
      return "DATE";
    case "real":
      return "DOUBLE";
    default:
      return "CHAR";
  }
}
