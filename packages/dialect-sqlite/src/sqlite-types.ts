import type { ColumnMeta } from "tempest-db-js/dialect";
import { TempestError, ValidationError } from "tempest-db-js/dialect";
import { decodeNumeric, encodeNumeric } from "./sqlite-numeric.js";

/**
 * How values travel to and from SQLite, which stores only NULL, INTEGER, REAL, TEXT and BLOB.
 * Datetimes are ISO-8601 UTC text with milliseconds (`Date.toISOString()`), the exact format
 * `sql.now()` produces, so JS-written and database-written times compare and sort as text.
 * numeric is TEXT in an ordered form (sqlite-numeric) so that no digit goes through a double and
 * comparisons are numeric; uuids are lower-case; json is text; booleans are 0/1;
 * bigint binds as a JavaScript BigInt so 64-bit values stay exact.
 */
export function encodeSqlite(value: unknown, column: ColumnMeta | undefined): unknown {
  if (value === null || value === undefined) return null;
  switch (column?.kind) {
    case "json":
      return JSON.stringify(value);
    case "bigint":
      return typeof value === "number" ? BigInt(value) : value;
    case "numeric":
      return encodeNumeric(value as string | number | bigint);
    // PostgreSQL's uuid type and MySQL's dialect write a uuid lower-case; so does this one, so that
    // equality and order agree (rows stored upper-case by earlier versions read back lower-case).
    case "uuid":
      return typeof value === "string" ? value.toLowerCase() : value;
    default:
      break;
  }
  // Strings and numbers, most cells of a bulk insert, leave before the object tests.
  if (typeof value !== "object") return typeof value === "boolean" ? (value ? 1 : 0) : value;
  if (value instanceof Date) return isoText(value);
  if (value instanceof Uint8Array && !Buffer.isBuffer(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return value;
}

/**
 * Stored datetimes compare as text, which orders instants correctly only while the year has four
 * digits: toISOString writes year 10000 as "+010000-...", which sorts before "2024-...", so a job
 * scheduled for then would be due now.
 */
function isoText(date: Date): string {
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) {
    throw new ValidationError(
      `SQLite stores datetimes as ISO-8601 text, which sorts correctly only for years 0000 to 9999; got ${date.toISOString()}`,
    );
  }
  return date.toISOString();
}

/**
 * A value as better-sqlite3 returned it into the column's JavaScript type. When a statement reads
 * with safe integers (a bigint column is in the row) every INTEGER arrives as a bigint, so the
 * number-typed kinds convert back.
 */
export function decodeSqlite(value: unknown, column: ColumnMeta): unknown {
  switch (column.kind) {
    case "boolean":
      return Number(value) !== 0;
    case "integer":
    case "real":
      return typeof value === "bigint" ? Number(value) : value;
    case "bigint":
      return typeof value === "bigint" ? value : BigInt(value as number | string);
    case "numeric":
      return decodeNumeric(
        typeof value === "string" ? value : String(value),
        column.precision === undefined ? undefined : (column.scale ?? 0),
      );
    case "uuid":
      return typeof value === "string" ? value.toLowerCase() : value;
    case "datetime":
      return parseSqliteDatetime(value, column);
    case "json":
      return typeof value === "string" ? JSON.parse(value) : value;
    default:
      return value;
  }
}

/** Kinds whose strings and numbers encodeSqlite passes through unchanged (booleans become 0/1). */
export function encodesAsIs(column: ColumnMeta): boolean {
  switch (column.kind) {
    case "text":
    case "varchar":
    case "enum":
    case "date":
    case "integer":
    case "real":
      return true;
    default:
      return false;
  }
}

/** Kinds whose better-sqlite3 value already is the JavaScript value (BLOBs arrive as Buffer). */
export function decodesAsIs(column: ColumnMeta): boolean {
  switch (column.kind) {
    case "text":
    case "varchar":
    case "enum":
    case "date":
    case "bytes":
      return true;
    default:
      return false;
  }
}

/** SQLite's own `datetime()` / `CURRENT_TIMESTAMP` spelling: UTC without a zone designator. */
const SQLITE_DATETIME = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;

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
 * The instant of a `YYYY-MM-DDTHH:MM:SS.sssZ` text, or undefined for anything the fast path does
 * not cover exactly (a non-digit, a year before 100, a day past 28, a leap second): the Date parser
 * decides those.
 */
function isoMilliseconds(text: string): number | undefined {
  if (
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 || // T
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
  if (
    year < 100 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > 28 ||
    hour > 23 ||
    minute > 59 ||
    second > 59 ||
    minute < 0 ||
    second < 0 ||
    hour < 0 ||
    ms < 0
  )
    return undefined;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms);
}

/**
 * The last two ISO texts read and their instants, most recent first: rows written by one statement
 * share a `sql.now()` (a claim's `updatedAt`, the same in each of its rows while the other datetime
 * differs), so most of a batch's second datetimes are found here without being read again.
 */
let recentText0 = "";
let recentTime0 = 0;
let recentText1 = "";
let recentTime1 = 0;

/** The instant of an ISO text, through the two most recent (see recentText0). */
function recentIsoMilliseconds(text: string): number | undefined {
  if (text === recentText0) return recentTime0;
  if (text === recentText1) {
    const time = recentTime1;
    recentText1 = recentText0;
    recentTime1 = recentTime0;
    recentText0 = text;
    recentTime0 = time;
    return time;
  }
  const time = isoMilliseconds(text);
  if (time === undefined) return undefined;
  recentText1 = recentText0;
  recentTime1 = recentTime0;
  recentText0 = text;
  recentTime0 = time;
  return time;
}

function parseSqliteDatetime(value: unknown, column: ColumnMeta): Date {
  if (value instanceof Date) return value;
  if (typeof value === "string") {
    // The spelling this dialect writes (Date#toISOString, sql.now()): read field by field, which
    // takes half the time of the Date parser (a claim decodes two datetimes per row).
    if (value.length === 24 && value.charCodeAt(23) === 90 /* Z */) {
      const time = recentIsoMilliseconds(value);
      if (time !== undefined) return new Date(time);
      const date = new Date(value);
      if (!Number.isNaN(date.getTime())) return date;
    }
    // Without this, `new Date("2026-01-01 10:00:00")` would read SQLite's UTC text as local time.
    const bare = SQLITE_DATETIME.exec(value);
    const date = new Date(bare ? `${bare[1]}T${bare[2]}Z` : value);
    if (!Number.isNaN(date.getTime())) return date;
  }
  throw new TempestError(`SQLite: ${column.table}.${column.name} holds ${JSON.stringify(value)}, which is not an ISO-8601 datetime`);
}
