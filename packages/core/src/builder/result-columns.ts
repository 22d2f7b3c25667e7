import type { AggregateFunction } from "../ast/value-node.js";
import { TempestError, ValidationError } from "../errors.js";
import type { ColumnKind, ColumnMeta } from "../schema/column-meta.js";

/**
 * How a computed value reaches JavaScript: the codec decodes it as the result column's kind, then
 * the conversion, if any, makes it the same value on every database.
 */
export type Conversion = "safeNumber" | "number" | "trimDecimal";

const conversions = new WeakMap<ColumnMeta, Conversion>();

/** The conversion a result column's decoded values go through, if any (read once per row shape). */
export function conversionOf(column: ColumnMeta): ((value: unknown) => unknown) | undefined {
  const conversion = conversions.get(column);
  return conversion && CONVERT[conversion];
}

/** The conversion's name, to give a derived result column (a scalar subquery's) the same one. */
export function conversionNameOf(column: ColumnMeta): Conversion | undefined {
  return conversions.get(column);
}

function safeNumber(value: unknown): number {
  const n = typeof value === "bigint" ? Number(value) : Number(value as string);
  if (!Number.isSafeInteger(n)) {
    throw new TempestError(
      `An integer aggregate returned ${String(value)}, past Number.MAX_SAFE_INTEGER (2^53 - 1): it cannot be a number without losing digits. Sum a bigint column in SQL text and read it with a typed raw query as "bigint".`,
    );
  }
  return n;
}

function toNumber(value: unknown): number {
  return typeof value === "number" ? value : Number(value);
}

/** A decimal string without trailing fractional zeros: "1.5000" and "1.500000000" are both "1.5". */
export function trimDecimal(value: unknown): string {
  const text = String(value);
  if (!text.includes(".") || /e/i.test(text)) return text;
  const trimmed = text.replace(/0+$/, "");
  return trimmed.endsWith(".") ? trimmed.slice(0, -1) : trimmed;
}

const CONVERT: Record<Conversion, (value: unknown) => unknown> = { safeNumber, number: toNumber, trimDecimal };

/** Result columns per (base column, key, kind, conversion): each a frozen ColumnMeta the decoders cache on. */
const results = new Map<string, ColumnMeta>();
const ids = new WeakMap<object, number>();
let nextId = 1;
const MAX_RESULTS = 8192;

/** A small number per object, for cache keys made of several objects. */
export function idOf(object: object): number {
  let id = ids.get(object);
  if (id === undefined) {
    id = nextId++;
    ids.set(object, id);
  }
  return id;
}

/**
 * The result column for a projection key: `base` (a model column, or undefined for COUNT(*)) read as
 * `kind` under the name `key`, nullable unless `notNull`, with a conversion.
 */
export function resultColumn(
  base: ColumnMeta | undefined,
  key: string,
  kind: ColumnKind,
  notNull: boolean,
  conversion: Conversion | undefined,
): ColumnMeta {
  const cacheKey = `${base ? idOf(base) : 0}\0${key}\0${kind}\0${notNull}\0${conversion ?? ""}`;
  let column = results.get(cacheKey);
  if (column) return column;
  const sameKind = base !== undefined && base.kind === kind;
  column = Object.freeze({
    kind,
    notNull,
    primaryKey: false,
    unique: false,
    default: undefined,
    enumValues: sameKind ? base.enumValues : undefined,
    length: sameKind ? base.length : undefined,
    precision: sameKind ? base.precision : undefined,
    scale: sameKind ? base.scale : undefined,
    references: undefined,
    dbName: undefined,
    field: key,
    name: key,
    table: base?.table ?? "",
    required: false,
  });
  if (conversion) conversions.set(column, conversion);
  if (results.size < MAX_RESULTS) results.set(cacheKey, column);
  return column;
}

/**
 * `base` read again from a derived source (a CTE, a set operation) named `table`: the same field,
 * name, kind and conversion, so its values decode exactly as `base`'s do. One frozen copy per shape.
 */
export function derivedColumn(base: ColumnMeta, table: string, notNull: boolean): ColumnMeta {
  const cacheKey = `derived\0${idOf(base)}\0${table}\0${notNull}`;
  let column = results.get(cacheKey);
  if (column) return column;
  column = Object.freeze({ ...base, table, notNull, primaryKey: false, unique: false, default: undefined, references: undefined });
  const conversion = conversions.get(base);
  if (conversion) conversions.set(column, conversion);
  if (results.size < MAX_RESULTS) results.set(cacheKey, column);
  return column;
}

/** Gives `copy` (the same column under another alias) the conversion `base` has. */
export function keepConversion(base: ColumnMeta, copy: ColumnMeta): void {
  const conversion = conversions.get(base);
  if (conversion) conversions.set(copy, conversion);
}

const NUMERIC_KINDS: ReadonlySet<ColumnKind> = new Set(["integer", "bigint", "real", "numeric"]);
/** Kinds MIN/MAX are refused for: not ordered the same way (or at all) on every database. */
const UNORDERED_KINDS: ReadonlySet<ColumnKind> = new Set(["json", "bytes", "boolean", "uuid"]);

/** How an aggregate's values read: its result column under `key`. Refuses what no database computes alike. */
export function aggregateResult(fn: AggregateFunction, column: ColumnMeta | undefined, key: string, where: string): ColumnMeta {
  if (fn === "count") return resultColumn(undefined, key, "bigint", true, "safeNumber");
  if (!column) throw new ValidationError(`${where}: ${fn}() needs a field`);
  switch (fn) {
    case "sum":
    case "avg":
      if (!NUMERIC_KINDS.has(column.kind)) {
        throw new ValidationError(`${where}: ${fn}(${column.table}.${column.field}) needs a number column, not ${column.kind}`);
      }
      if (column.kind === "numeric") return resultColumn(column, key, "numeric", false, fn === "avg" ? "trimDecimal" : undefined);
      // AVG of integers and reals is computed in double precision on every database (see compiler-base).
      if (fn === "avg") return resultColumn(column, key, "real", false, "number");
      return column.kind === "real"
        ? resultColumn(column, key, "real", false, "number")
        : resultColumn(column, key, "bigint", false, "safeNumber");
    case "min":
    case "max":
      if (UNORDERED_KINDS.has(column.kind)) {
        throw new ValidationError(
          `${where}: ${fn}(${column.table}.${column.field}) over a ${column.kind} column is not computed alike on every database`,
        );
      }
      return resultColumn(column, key, column.kind, false, undefined);
    default:
      throw new ValidationError(`${where}: unknown aggregate ${String(fn)}`);
  }
}

/** Frozen column lists per list of columns (by identity), so decoders and compiled lists are reused. */
const lists = new Map<string, readonly ColumnMeta[]>();

export function internColumns(columns: readonly ColumnMeta[], tag: string): readonly ColumnMeta[] {
  let key = tag;
  for (const column of columns) key += `,${idOf(column)}`;
  let list = lists.get(key);
  if (!list) {
    list = Object.freeze([...columns]);
    if (lists.size < MAX_RESULTS) lists.set(key, list);
  }
  return list;
}
