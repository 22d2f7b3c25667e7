// The oracle: a JavaScript evaluator of the rules table in docs/dialects.md ("One statement, one
// answer"). Nothing here asks a database; every database's answer is compared with this one.

/** The column kinds the differential test generates (numeric twice: constrained and not). */
export type Kind =
  | "integer"
  | "bigint"
  | "real"
  | "numeric"
  | "numeric10_2"
  | "text"
  | "varchar"
  | "uuid"
  | "enum"
  | "boolean"
  | "date"
  | "datetime";

export const KINDS: readonly Kind[] = [
  "integer",
  "bigint",
  "real",
  "numeric",
  "numeric10_2",
  "text",
  "varchar",
  "uuid",
  "enum",
  "boolean",
  "date",
  "datetime",
];

/** Declared in this order on purpose: declaration order is not alphabetical. */
export const ENUM_VALUES = ["queued", "failed", "sent", "Sending"] as const;
export const VARCHAR_LENGTH = 6;

export interface ColumnSpec {
  readonly field: string;
  readonly kind: Kind;
  readonly nullable: boolean;
}

export type DatabaseName = "PostgreSQL" | "MySQL" | "SQLite";

/** Whether the column's kind holds text the where language may match with like/ilike. */
export function isTextKind(kind: Kind): boolean {
  return kind === "text" || kind === "varchar" || kind === "enum";
}

/** Whether the kind may be compared with lt/lte/gt/gte/between (enum compares by equality only). */
export function isOrdered(kind: Kind): boolean {
  return kind !== "enum";
}

// ---- which values a column takes ----------------------------------------------------------
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const DECIMAL = /^-?\d+(\.\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isLoneSurrogateFree(text: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

function validDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return false;
  const date = new Date(Date.UTC(2000, mo - 1, d));
  date.setUTCFullYear(y);
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** Integer and fraction digits of a decimal string (or finite number), without sign and leading/trailing zeros. */
function decimalParts(value: string): { negative: boolean; int: string; frac: string } {
  const negative = value.startsWith("-");
  const body = negative ? value.slice(1) : value;
  const [int = "", frac = ""] = body.split(".");
  return { negative, int: int.replace(/^0+/, ""), frac: frac.replace(/0+$/, "") };
}

function numericText(value: unknown): string | undefined {
  if (typeof value === "string") return DECIMAL.test(value) ? value : undefined;
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number" && Number.isFinite(value)) {
    const text = String(value);
    return DECIMAL.test(text) ? text : undefined;
  }
  return undefined;
}

/**
 * Why every database refuses the value for the column at build time (a ValidationError), or
 * undefined when they store it. null is handled by the caller (nullable columns take it).
 */
export function refusal(column: ColumnSpec, value: unknown): string | undefined {
  switch (column.kind) {
    case "integer":
      return typeof value === "number" && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX ? undefined : "int32 range";
    case "bigint": {
      const v = typeof value === "bigint" ? value : typeof value === "number" && Number.isSafeInteger(value) ? BigInt(value) : undefined;
      return v !== undefined && v >= INT64_MIN && v <= INT64_MAX ? undefined : "int64 range";
    }
    case "real":
      return typeof value === "number" && Number.isFinite(value) ? undefined : "finite";
    case "numeric":
    case "numeric10_2": {
      const text = numericText(value);
      if (text === undefined) return "decimal";
      const { int, frac } = decimalParts(text);
      const [intDigits, fracDigits] = column.kind === "numeric" ? [35, 30] : [8, 2];
      return int.length > intDigits || frac.length > fracDigits ? "precision" : undefined;
    }
    case "text":
    case "varchar": {
      if (typeof value !== "string" || !isLoneSurrogateFree(value)) return "string";
      if (column.kind === "varchar" && [...value].length > VARCHAR_LENGTH) return "length";
      if (value.includes("\0")) return "NUL";
      return undefined;
    }
    case "uuid":
      return typeof value === "string" && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
        ? undefined
        : "uuid";
    case "enum":
      return typeof value === "string" && (ENUM_VALUES as readonly string[]).includes(value) ? undefined : "enum";
    case "boolean":
      return typeof value === "boolean" ? undefined : "boolean";
    case "date":
      return typeof value === "string" && validDate(value) ? undefined : "date";
    case "datetime": {
      if (!(value instanceof Date) || Number.isNaN(value.getTime())) return "date";
      const year = value.getUTCFullYear();
      return year < 0 || year > 9999 ? "year range" : undefined;
    }
  }
}

// ---- what a stored value reads back as ----------------------------------------------------
/** The value a column reads back after `value` was written (the rules table's "reads back as"). */
export function canonical(column: ColumnSpec, value: unknown): unknown {
  if (value === null) return null;
  switch (column.kind) {
    case "bigint":
      return typeof value === "bigint" ? value : BigInt(value as number);
    case "real":
      return Object.is(value, -0) ? 0 : value;
    case "numeric":
    case "numeric10_2": {
      const { negative, int, frac } = decimalParts(numericText(value) as string);
      if (column.kind === "numeric10_2") {
        const zero = int === "" && frac === "";
        return `${negative && !zero ? "-" : ""}${int || "0"}.${frac.padEnd(2, "0")}`;
      }
      if (int === "" && frac === "") return "0";
      return `${negative ? "-" : ""}${int || "0"}${frac ? `.${frac}` : ""}`;
    }
    case "uuid":
      return (value as string).toLowerCase();
    case "datetime":
      return new Date((value as Date).getTime());
    default:
      return value;
  }
}

// ---- comparison -------------------------------------------------------------------------
function sign(n: number | bigint): -1 | 0 | 1 {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

/** Code point order: what PostgreSQL's "C" collation, MariaDB's binary collation and SQLite's BINARY do on UTF-8. */
export function compareText(a: string, b: string): -1 | 0 | 1 {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i] as string).codePointAt(0)! - (y[i] as string).codePointAt(0)!;
    if (d !== 0) return sign(d);
  }
  return sign(x.length - y.length);
}

function decimalScaled(text: string): bigint {
  const { negative, int, frac } = decimalParts(text);
  const digits = BigInt(`${int || "0"}${frac.padEnd(40, "0")}`);
  return negative ? -digits : digits;
}

/** Compares two canonical values of the column's kind. */
export function compare(column: ColumnSpec, a: unknown, b: unknown): -1 | 0 | 1 {
  switch (column.kind) {
    case "integer":
    case "real":
      return sign((a as number) - (b as number));
    case "bigint":
      return sign((a as bigint) - (b as bigint));
    case "numeric":
    case "numeric10_2":
      return sign(decimalScaled(a as string) - decimalScaled(b as string));
    case "text":
    case "varchar":
    case "uuid":
    case "date":
      return compareText(a as string, b as string);
    case "enum":
      return sign(ENUM_VALUES.indexOf(a as never) - ENUM_VALUES.indexOf(b as never));
    case "boolean":
      return sign(Number(a) - Number(b));
    case "datetime":
      return sign((a as Date).getTime() - (b as Date).getTime());
  }
}

// ---- where trees, with SQL's three-valued logic ---------------------------------------------
export type LeafOp = "eq" | "ne" | "lt" | "lte" | "gt" | "gte" | "in" | "notIn" | "isNull" | "between" | "like" | "ilike";

export type Tree =
  | { readonly t: "leaf"; readonly field: string; readonly op: LeafOp; readonly value: unknown }
  | { readonly t: "and" | "or"; readonly items: readonly Tree[] }
  | { readonly t: "not"; readonly item: Tree };

type Truth = boolean | null;

/** LIKE over code points, `\` escaping the next character; `ascii` folds A-Z onto a-z on both sides (ilike). */
export function likeMatches(text: string, pattern: string, ascii: boolean): boolean {
  const fold = (s: string) => (ascii ? String(s).replace(/[A-Z]/g, (c) => c.toLowerCase()) : s);
  const t = [...fold(String(text))];
  const tokens: { literal?: string; any?: boolean; one?: boolean }[] = [];
  const p = [...fold(pattern)];
  for (let i = 0; i < p.length; i++) {
    const c = p[i] as string;
    if (c === "\\") tokens.push({ literal: p[++i] as string });
    else if (c === "%") tokens.push({ any: true });
    else if (c === "_") tokens.push({ one: true });
    else tokens.push({ literal: c });
  }
  // Dynamic programming over (token, character).
  let reach = new Array<boolean>(t.length + 1).fill(false);
  reach[0] = true;
  for (const token of tokens) {
    const next = new Array<boolean>(t.length + 1).fill(false);
    for (let j = 0; j <= t.length; j++) {
      if (!reach[j]) continue;
      if (token.any) for (let k = j; k <= t.length; k++) next[k] = true;
      else if (j < t.length && (token.one || t[j] === token.literal)) next[j + 1] = true;
    }
    reach = next;
  }
  return reach[t.length] === true;
}

/** Why a pattern is refused at build time: a trailing escape character escapes nothing. */
export function patternRefusal(pattern: string): string | undefined {
  let backslashes = 0;
  for (let i = pattern.length - 1; i >= 0 && pattern[i] === "\\"; i--) backslashes++;
  return backslashes % 2 === 1 ? "trailing escape" : undefined;
}

export function evaluate(tree: Tree, row: Readonly<Record<string, unknown>>, columns: ReadonlyMap<string, ColumnSpec>): Truth {
  switch (tree.t) {
    case "and": {
      let result: Truth = true;
      for (const item of tree.items) {
        const v = evaluate(item, row, columns);
        if (v === false) return false;
        if (v === null) result = null;
      }
      return result;
    }
    case "or": {
      let result: Truth = false;
      for (const item of tree.items) {
        const v = evaluate(item, row, columns);
        if (v === true) return true;
        if (v === null) result = null;
      }
      return result;
    }
    case "not": {
      const v = evaluate(tree.item, row, columns);
      return v === null ? null : !v;
    }
    case "leaf": {
      const column = columns.get(tree.field) as ColumnSpec;
      const stored = row[tree.field] ?? null;
      if (tree.op === "isNull") return (stored === null) === tree.value;
      if (stored === null) return null;
      const cmp = (v: unknown) => compare(column, stored, canonical(column, v));
      switch (tree.op) {
        case "eq":
          return cmp(tree.value) === 0;
        case "ne":
          return cmp(tree.value) !== 0;
        case "lt":
          return cmp(tree.value) < 0;
        case "lte":
          return cmp(tree.value) <= 0;
        case "gt":
          return cmp(tree.value) > 0;
        case "gte":
          return cmp(tree.value) >= 0;
        case "in":
          return (tree.value as unknown[]).some((v) => cmp(v) === 0);
        case "notIn":
          return !(tree.value as unknown[]).some((v) => cmp(v) === 0);
        case "between": {
          const [low, high] = tree.value as [unknown, unknown];
          return cmp(low) >= 0 && cmp(high) <= 0;
        }
        case "like":
        case "ilike":
          return likeMatches(stored as string, tree.value as string, tree.op === "ilike");
      }
    }
  }
}

/** The values a where tree binds, with the column each is checked against. */
export function* leafValues(tree: Tree): Generator<{ field: string; op: LeafOp; value: unknown }> {
  if (tree.t === "leaf") {
    if (tree.op === "in" || tree.op === "notIn" || tree.op === "between")
      for (const v of tree.value as unknown[]) yield { ...tree, value: v };
    else if (tree.op !== "isNull") yield tree;
  } else if (tree.t === "not") yield* leafValues(tree.item);
  else for (const item of tree.items) yield* leafValues(item);
}

/** Why the where tree is refused at build time (on every database alike), or undefined. */
export function treeRefusal(tree: Tree, columns: ReadonlyMap<string, ColumnSpec>): string | undefined {
  for (const leaf of leaves(tree)) {
    const column = columns.get(leaf.field) as ColumnSpec;
    if (leaf.op === "like" || leaf.op === "ilike") {
      if (!isTextKind(column.kind)) return "like on a non-text column";
      if (typeof leaf.value !== "string") return "pattern";
      const why = patternRefusal(leaf.value);
      if (why) return why;
      if (leaf.value.includes("\0")) return "NUL";
      continue;
    }
    if (!isOrdered(column.kind) && ["lt", "lte", "gt", "gte", "between"].includes(leaf.op)) return "order on enum";
  }
  for (const leaf of leafValues(tree)) {
    if (leaf.op === "like" || leaf.op === "ilike") continue;
    const column = columns.get(leaf.field) as ColumnSpec;
    if (leaf.value === null) return "null value";
    const why = refusal(column, leaf.value);
    if (why) return why;
  }
  return undefined;
}

function* leaves(tree: Tree): Generator<Extract<Tree, { t: "leaf" }>> {
  if (tree.t === "leaf") yield tree;
  else if (tree.t === "not") yield* leaves(tree.item);
  else for (const item of tree.items) yield* leaves(item);
}

/** The ids of `rows` in `orderBy(field, direction)` order, ties by id ascending; NULL sorts as the largest value. */
export function order(rows: readonly Readonly<Record<string, unknown>>[], column: ColumnSpec, direction: "asc" | "desc"): number[] {
  const sorted = [...rows].sort((a, b) => {
    const x = a[column.field] ?? null;
    const y = b[column.field] ?? null;
    let c: number;
    if (x === null || y === null) c = x === y ? 0 : x === null ? 1 : -1;
    else c = compare(column, x, y);
    if (direction === "desc") c = -c;
    return c !== 0 ? c : (a.id as number) - (b.id as number);
  });
  return sorted.map((r) => r.id as number);
}
