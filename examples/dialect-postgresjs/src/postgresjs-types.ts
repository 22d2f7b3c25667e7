import type postgres from "postgres";
import type { ColumnMeta } from "tempest-db-js/dialect";

/**
 * Type handlers handed to postgres.js. Two of its defaults do not fit tempest-db-js's model types:
 * a `date` column would come back as a Date at UTC midnight instead of `"YYYY-MM-DD"`, and a jsonb
 * parameter would be JSON-encoded a second time after `encodePostgresJs` already did it (the
 * driver learns the parameter's type from the server and applies its serializer). Everything else
 * keeps the driver's own behaviour: timestamptz parses to Date, bytea to Buffer, json to values,
 * int8 and numeric stay text.
 */
export const postgresJsTypes = {
  calendarDate: {
    to: 1082,
    from: [1082],
    serialize: (value: unknown) => String(value),
    parse: (text: string) => text,
  },
  json: {
    to: 114,
    from: [114, 3802],
    serialize: (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value)),
    parse: (text: string) => JSON.parse(text) as unknown,
  },
} satisfies Record<string, postgres.PostgresType>;

/** A value from the compiler on its way to postgres.js. */
export function encodePostgresJs(value: unknown, column: ColumnMeta | undefined): unknown {
  if (value === null || value === undefined) return null;
  // Always a string here, so the json serializer above passes it through untouched.
  if (column?.kind === "json") return JSON.stringify(value);
  if (value instanceof Uint8Array && !Buffer.isBuffer(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return value;
}

/** A value postgres.js returned, into the column's JavaScript type. */
export function decodePostgresJs(value: unknown, column: ColumnMeta): unknown {
  switch (column.kind) {
    case "bigint":
      return typeof value === "bigint" ? value : BigInt(value as string);
    case "integer":
    case "real":
      return typeof value === "number" ? value : Number(value);
    case "datetime":
      return value instanceof Date ? value : new Date(value as string);
    case "bytes":
      return Buffer.isBuffer(value) ? value : Buffer.from(value as Uint8Array);
    default:
      return value;
  }
}

/** Kinds whose postgres.js value already is the JavaScript value, so the row decoder skips them. */
export function decodesAsIs(column: ColumnMeta): boolean {
  return column.kind !== "bigint";
}
