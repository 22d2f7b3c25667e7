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

/** A result column made for a base column (or COUNT(*)) and key, with what else it was made of. */
interface MadeResult {
  readonly kind: ColumnKind;
  readonly notNull: boolean;
  readonly conversion: Conversion | undefined;
  readonly column: ColumnMeta;
}

/**
 * Result columns per base column, then key, then (kind, notNull, conversion): each a frozen ColumnMeta
 * the decoders cache on. Looked up by the objects and the key as they are: a key string made per
 * call cost more to hash than the rest of the projection.
 */
const results = new WeakMap<object, Map<string, MadeResult[]>>();
/** Derived copies per base column, then source name: [nullable, not null]. */
const derived = new WeakMap<ColumnMeta, Map<string, [ColumnMeta | undefined, ColumnMeta | undefined]>>();
/** The base of COUNT(*), which has no column. */
const NO_BASE = {};
let resultCount = 0;
const MAX_RESULTS = 8192;

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
  let byKey = results.get(base ?? NO_BASE);
  const made = byKey?.get(key);
  if (made) {
    for (const m of made) if (m.kind === kind && m.notNull === notNull && m.conversion === conversion) return m.column;
  }
  const sameKind = base !== undefined && base.kind === kind;
  const column: ColumnMeta = Object.freeze({
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
  if (resultCount < MAX_RESULTS) {
    resultCount++;
    if (!byKey) results.set(base ?? NO_BASE, (byKey = new Map()));
    const entry: MadeResult = { kind, notNull, conversion, column };
    if (made) made.push(entry);
    else byKey.set(key, [entry]);
  }
  return column;
}

/** The columns derivedColumn made: values computed by the statement, not the table's typed column. */
const derivedColumns = new WeakSet<ColumnMeta>();

/**
 * Whether the column is an output of a CTE or a set operation. Its server type is what the server
 * makes of the query (MySQL/MariaDB: an ENUM through UNION is text), not the column type it came from.
 */
export function isDerivedColumn(column: ColumnMeta): boolean {
  return derivedColumns.has(column);
}

/**
 * `base` read again from a derived source (a CTE, a set operation) named `table`: the same field,
 * name, kind and conversion, so its values decode exactly as `base`'s do. One frozen copy per shape.
 */
export function derivedColumn(base: ColumnMeta, table: string, notNull: boolean): ColumnMeta {
  let byTable = derived.get(base);
  const made = byTable?.get(table);
  const cached = made?.[notNull ? 1 : 0];
  if (cached) return cached;
  const column: ColumnMeta = Object.freeze({
    ...base,
    table,
    notNull,
    primaryKey: false,
    unique: false,
    default: undefined,
    references: undefined,
  });
  derivedColumns.add(column);
  const conversion = conversions.get(base);
  if (conversion) conversions.set(column, conversion);
  if (resultCount < MAX_RESULTS) {
    resultCount++;
    if (!byTable) derived.set(base, (byTable = new Map()));
    const pair = made ?? [undefined, undefined];
    pair[notNull ? 1 : 0] = column;
    if (!made) byTable.set(table, pair);
  }
  return column;
}

/** Gives `copy` (the same column under another alias) the conversion `base` has, and its being derived. */
export function keepConversion(base: ColumnMeta, copy: ColumnMeta): void {
  const conversion = conversions.get(base);
  if (conversion) conversions.set(copy, conversion);
  if (derivedColumns.has(base)) derivedColumns.add(copy);
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

/** A step of the list trie: the list ending here, and the lists one column longer. */
interface ListStep {
  list: readonly ColumnMeta[] | undefined;
  readonly next: Map<ColumnMeta, ListStep>;
}

/**
 * Frozen column lists per tag and list of columns (by identity), so decoders and compiled lists are
 * reused: a trie walked column by column, no key string per call.
 */
const lists = new Map<string, ListStep>();
let listCount = 0;

export function internColumns(columns: readonly ColumnMeta[], tag: string): readonly ColumnMeta[] {
  let step = lists.get(tag);
  if (!step) lists.set(tag, (step = { list: undefined, next: new Map() }));
  for (let i = 0; i < columns.length && step; i++) {
    const column = columns[i] as ColumnMeta;
    let next: ListStep | undefined = step.next.get(column);
    if (!next && listCount < MAX_RESULTS) {
      listCount++;
      step.next.set(column, (next = { list: undefined, next: new Map() }));
    }
    step = next;
  }
  if (step?.list) return step.list;
  const list = Object.freeze([...columns]);
  if (step) step.list = list;
  return list;
}
