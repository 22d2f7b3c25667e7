import type postgres from "postgres";
import type { ColumnMeta } from "tempest-db-js/dialect";

/**
 * Type handlers handed to postgres.js. Two of its defaults do not fit tempest-db-js's model types:
 * a `date` column would come back as a Date at UTC midnight instead of `"YYYY-MM-DD"`, and a jsonb
 * parameter would be JSON-encoded a second time after `encodePostgresJs` already did it (the
 * driver learns the parameter's type from the server and applies its serializer). Everything else
 * keeps the driver's own behaviour: bytea to Buffer, json to values, int8 and numeric stay text.
 * Timestamps parse to a Date as the driver's do, but by the fields of the server's ISO text: the
 * driver's `new Date(text)` reads "0001-01-01 00:00:00+00" as the year 2001 (V8's legacy date
 * parser takes a year below 50 for 20xx).
 */
export const postgresJsTypes = {
  calendarDate: {
    to: 1082,
    from: [1082],
    serialize: (value: unknown) => String(value),
    parse: (text: string) => text,
  },
  timestamp: {
    to: 1184,
    from: [1114, 1184],
    serialize: (value: unknown) => (value instanceof Date ? value : new Date(value as string)).toISOString(),
    parse: parseTimestamp,
  },
  json: {
    to: 114,
    from: [114, 3802],
    serialize: (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value)),
    parse: (text: string) => JSON.parse(text) as unknown,
  },
} satisfies Record<string, postgres.PostgresType>;

const ISO_TIMESTAMP = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(\.\d+)?(?:([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?)?( BC)?$/;

/**
 * A timestamp or timestamptz as PostgreSQL writes it in the ISO DateStyle (`2026-03-01 09:30:00.5+01`,
 * `0001-01-01 00:00:00+00:53:28`, `... BC`) to its Date; no offset (timestamp) is UTC. Any other text
 * (`infinity`) goes to `new Date`, as the driver would.
 */
export function parseTimestamp(text: string): Date {
  const m = ISO_TIMESTAMP.exec(text);
  if (!m) return new Date(text);
  const [, y, mo, d, h, mi, sec, fraction, sign, oh, om, os, bc] = m;
  const year = bc ? 1 - Number(y) : Number(y);
  const ms = fraction ? Math.round(Number(fraction) * 1000) : 0;
  const date = new Date(0);
  date.setUTCFullYear(year, Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(sec), ms);
  if (sign) {
    const offsetMs = ((Number(oh) * 60 + Number(om ?? 0)) * 60 + Number(os ?? 0)) * 1000;
    date.setTime(date.getTime() - (sign === "+" ? offsetMs : -offsetMs));
  }
  return date;
}

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
