import type { ColumnMeta } from "tempest-db-js/dialect";

/**
 * How values travel to and from MySQL/MariaDB. Dates go as UTC `YYYY-MM-DD HH:MM:SS.mmm` text into
 * `datetime(3)`, which stores no time zone, so nothing depends on the server's or the session's zone.
 * The driver is configured to hand back dates, 64-bit integers and JSON as text (dateStrings,
 * bigNumberStrings, jsonStrings), and they are parsed here, so that no value is ever reinterpreted
 * in the Node process's local time zone or rounded through `number`.
 */
export function encodeMysql(value: unknown, column: ColumnMeta | undefined): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return formatUtcDateTime(value);
  switch (column?.kind) {
    case "json":
      return JSON.stringify(value);
    // PostgreSQL's uuid type reads back lower-case whatever was written; char(36) would keep the case.
    case "uuid":
      return typeof value === "string" ? value.toLowerCase() : value;
    default:
      break;
  }
  if (value instanceof Uint8Array && !Buffer.isBuffer(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return value;
}

export function decodeMysql(value: unknown, column: ColumnMeta): unknown {
  switch (column.kind) {
    case "datetime":
      return value instanceof Date ? value : parseUtcDateTime(String(value));
    case "bigint":
      return typeof value === "bigint" ? value : BigInt(value as string | number);
    case "boolean":
      return typeof value === "boolean" ? value : Number(value) !== 0;
    case "json":
      if (typeof value === "string") return JSON.parse(value);
      return Buffer.isBuffer(value) ? JSON.parse(value.toString("utf8")) : value;
    case "numeric":
      return column.precision === undefined ? trimScale(String(value)) : String(value);
    default:
      return value;
  }
}

/** Kinds whose driver value already is the JavaScript value. */
export function decodesAsIs(column: ColumnMeta): boolean {
  switch (column.kind) {
    case "datetime":
    case "bigint":
    case "boolean":
    case "json":
      return false;
    case "numeric":
      return column.precision !== undefined;
    default:
      return true;
  }
}

export function formatUtcDateTime(date: Date): string {
  return date.toISOString().replace("T", " ").replace("Z", "");
}

const DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?)?$/;

/** The digits of text[from, to) as a number, or -1 when one is not a digit. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

/**
 * The usual text, `YYYY-MM-DD HH:MM:SS.sss`, read field by field: a claim decodes two datetimes per
 * row, and this takes a fraction of the regex's time. The same Date.UTC arithmetic as the general
 * path; undefined (the general path decides) for any other shape or a year below 100.
 */
function fastUtcDateTime(text: string): Date | undefined {
  if (text.length !== 23) return undefined;
  if (
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 32 || // space
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(19) !== 46 // .
  )
    return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  const ms = digits(text, 20, 23);
  if (year < 100 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0 || ms < 0) return undefined;
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
}

/** `datetime` text as UTC. Parsed by hand: `Date.parse` would read a zone-less string as local time. */
export function parseUtcDateTime(text: string): Date {
  const fast = fastUtcDateTime(text);
  if (fast) return fast;
  const m = DATETIME.exec(text);
  if (!m) return new Date(Number.NaN);
  const ms = m[7] ? Number(m[7].padEnd(3, "0").slice(0, 3)) : 0;
  const date = new Date(
    Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), ms),
  );
  // Date.UTC maps years 0-99 onto 1900-1999.
  date.setUTCFullYear(Number(m[1]));
  return date;
}

/**
 * An unconstrained numeric is stored as decimal(65, 30), which pads every value to 30 decimals;
 * the padding was never part of the value written.
 */
function trimScale(text: string): string {
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}
