import pg from "pg";
import type { ColumnMeta } from "tempest-db-js/dialect";

/**
 * How values travel to and from PostgreSQL. Dates go as ISO-8601 UTC text (`toISOString()`): pg
 * would write a Date in the process's local time with a whole-minute offset, which shifts instants
 * from before about 1914 (local mean time offsets have seconds) by up to a minute. json goes as
 * text, since pg would turn a JS array into a PostgreSQL array; int8 as text both ways, so that no
 * digit is rounded through `number`.
 */
export function encodePostgres(value: unknown, column: ColumnMeta | undefined): unknown {
  if (value === null) return null;
  if (value instanceof Date) return isoTimestamp(value);
  if (column?.kind === "json") return JSON.stringify(value);
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Uint8Array && !Buffer.isBuffer(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return value;
}

/** `toISOString()`, except that PostgreSQL spells year 0 (ISO 8601's 1 BC) as 0001 BC. */
export function isoTimestamp(date: Date): string {
  const text = date.toISOString();
  return date.getUTCFullYear() === 0 ? `0001${text.slice(4)} BC` : text;
}

export function decodePostgres(value: unknown, column: ColumnMeta): unknown {
  switch (column.kind) {
    case "bigint":
      return typeof value === "bigint" ? value : BigInt(value as string);
    case "datetime":
      return value instanceof Date ? value : new Date(value as string);
    case "bytes":
      return value instanceof Uint8Array ? value : Buffer.from(value as string);
    // An unconstrained numeric keeps the scale it was written with ("1.50"); every dialect reads it
    // back without trailing fractional zeros.
    case "numeric":
      return column.precision === undefined ? trimScale(value as string) : value;
    default:
      return value;
  }
}

function trimScale(text: string): string {
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

/** Kinds whose pg value already is the JavaScript value. */
export function decodesAsIs(column: ColumnMeta): boolean {
  return column.kind !== "bigint" && !(column.kind === "numeric" && column.precision === undefined);
}

const DATE_OID = 1082;

/** Per-pool type parsers: a `date` stays `YYYY-MM-DD` instead of becoming a local-midnight Date. */
export const postgresTypeParsers = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === DATE_OID && format !== "binary") return (text: string) => text;
    return pg.types.getTypeParser(oid, format as "text");
  },
};
