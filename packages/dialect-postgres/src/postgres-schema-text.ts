import type { ColumnDefaultSnapshot, ColumnKind, ColumnSnapshot, SqlNode } from "tempest-db-js/dialect";
import { canonicalSql, parseSql, printSql } from "tempest-db-js/dialect";

/**
 * How PostgreSQL's introspector reads SQL texts: column types (as `format_type` and as the
 * compiler writes them), defaults and predicates (as `pg_get_expr` deparses them and as the compiler
 * writes them). Both sides go through the same functions, so a model's DDL reads back as its snapshot.
 *
 * Rules:
 * - types: `COLLATE` clauses are not part of the type (collations are not compared); `timestamptz(3)`
 *   and `timestamp(3) with time zone` are one type, `varchar(n)` and `character varying(n)` too.
 *   A datetime's `precision` is its fractional-second digits (3 for the library's; 6 when unstated).
 * - casts PostgreSQL adds to constants and to text-like names (`'a'::text`, `(0)::double precision`,
 *   `(name)::text`) are dropped; other casts (`'1 day'::interval`, `::regclass`) are kept.
 * - `x = ANY (ARRAY[...])` is `x IN (...)`, `x <> ALL (ARRAY[...])` is `x NOT IN (...)`.
 * - an IN of one value is `=` (NOT IN: `<>`), as PostgreSQL keeps it.
 * - a number compared with something (`=`, `<`, IN, BETWEEN, ...) is a quoted constant (`"n" > '0'`).
 * - a timestamptz constant is written as `toISOString()` text, whatever the session's TimeZone.
 * - a default that is a constant becomes {kind: "value"} with the value as the column's kind reads
 *   it (bigint and numeric as decimal text, json parsed, bytea as lowercase hex, a timestamp as ISO
 *   text); `gen_random_uuid()` (and `uuid_generate_v4()`) is {kind: "random"}; NULL is no default;
 *   any other expression is {kind: "sql"} in canonicalSql's spelling (`now()`, `2 + 3`).
 */

const DROPPED_CASTS = new Set([
  "text",
  "character varying",
  "varchar",
  "bpchar",
  "character",
  "name",
  "integer",
  "bigint",
  "smallint",
  "numeric",
  "boolean",
  "uuid",
  "json",
  "jsonb",
  "date",
  "timestamp with time zone",
  "timestamptz",
  "double precision",
  "real",
  "bytea",
  "unknown",
]);
const TEXT_TYPES = new Set(["text", "character varying", "varchar", "bpchar", "character", "name"]);

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

function baseType(type: string): string {
  return type
    .replace(/\(.*\)/, "")
    .replace(/\[\]$/, "")
    .trim();
}

const COMPARED = new Set(["=", "<>", "<", ">", "<=", ">="]);

/**
 * A number compared with something is written as a quoted constant: PostgreSQL deparses some
 * numeric constants bare (`5`, `1.5` for numeric) and others quoted with a cast (`'1.5'::double
 * precision`, `'9007199254740993'::bigint`), and the compiler writes a bigint or numeric value as a
 * string; a quoted constant means the same on every numeric column.
 */
const quoted = (node: SqlNode): SqlNode => (node.t === "literal" ? { t: "string", value: plainDecimal(node.text), prefix: "" } : node);

/**
 * `1e+21` as `1000000000000000000000`, `1.5e-7` as `0.00000015`: PostgreSQL reads a bare number
 * with an exponent as a numeric constant and deparses it without one. Digits are moved, not computed.
 */
export function plainDecimal(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d*))?e([+-]?\d+)$/i.exec(text);
  if (!match) return text;
  const [, sign, whole = "", fraction = "", exponent = "0"] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  const padded = point <= 0 ? `${"0".repeat(1 - point)}${digits}` : digits.padEnd(point, "0");
  const at = Math.max(point, 1);
  const integer = padded.slice(0, at).replace(/^0+(?=\d)/, "");
  const decimals = padded.slice(at).replace(/0+$/, "");
  return `${sign}${integer}${decimals ? `.${decimals}` : ""}`;
}

function rewrite(node: SqlNode): SqlNode {
  const cast = castRewrite(node);
  if (cast.t === "binary" && COMPARED.has(cast.op)) return { ...cast, left: quoted(cast.left), right: quoted(cast.right) };
  if (cast.t === "in" && cast.items.length === 1) {
    return { t: "binary", op: cast.negated ? "<>" : "=", left: cast.operand, right: quoted(cast.items[0] as SqlNode) };
  }
  if (cast.t === "in") return { ...cast, items: cast.items.map(quoted) };
  if (cast.t === "between") return { ...cast, low: quoted(cast.low), high: quoted(cast.high) };
  return cast;
}

function castRewrite(node: SqlNode): SqlNode {
  if (node.t === "cast") {
    const type = baseType(node.type);
    const operand = node.operand;
    const constant =
      operand.t === "string" || operand.t === "literal" || (operand.t === "keyword" && operand.word === "NULL") || operand.t === "array";
    if (constant && (type === "timestamp with time zone" || type === "timestamptz") && operand.t === "string") {
      return { t: "string", value: isoText(operand.value), prefix: "" };
    }
    if (constant && DROPPED_CASTS.has(type)) return operand.t === "array" ? { t: "array", items: operand.items } : operand;
    if (operand.t === "name" && TEXT_TYPES.has(type)) return operand;
    if (operand.t === "cast" && TEXT_TYPES.has(type)) return operand;
    return node;
  }
  if (node.t === "quantified" && node.list.t === "array") {
    if (node.op === "=" && (node.quantifier === "any" || node.quantifier === "some"))
      return { t: "in", operand: node.operand, negated: false, items: node.list.items };
    if (node.op === "<>" && node.quantifier === "all") return { t: "in", operand: node.operand, negated: true, items: node.list.items };
  }
  return node;
}

const OPTIONS = { quote, rewrite } as const;

/** An expression (predicate, default, generated column) in the one spelling both sides compare by. */
export function canonicalPgSql(text: string): string {
  return canonicalSql(text, OPTIONS);
}

export function parsePgSql(text: string): SqlNode | undefined {
  return parseSql(text, OPTIONS);
}

/** `2026-01-02 03:04:05.678+00` (any offset, any session time zone) as `2026-01-02T03:04:05.678Z`. */
export function isoText(text: string): string {
  const match = /^(\d{4,}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?$/i.exec(text.trim());
  if (!match) return text;
  let offset = match[3] ?? "Z";
  if (/^[+-]\d{2}$/.test(offset)) offset += ":00";
  else if (/^[+-]\d{4}$/.test(offset)) offset = `${offset.slice(0, 3)}:${offset.slice(3)}`;
  const date = new Date(`${match[1]}T${match[2]}${offset.slice(0, 6)}`);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

export type PgColumnType = Pick<ColumnSnapshot, "kind" | "enumValues" | "length" | "precision" | "scale">;

/**
 * The kind of a PostgreSQL type, from `format_type` text or the compiler's spelling. Types with no
 * model kind (inet, interval, arrays, ...) read as "text", so `pull` still writes a column for them.
 */
export function pgColumnType(typeText: string, enumValues: readonly string[] | null): PgColumnType {
  const type = typeText
    .replace(/\s+collate\s+("(?:[^"]|"")*"|\S+)/gi, "")
    .trim()
    .toLowerCase();
  const make = (
    kind: ColumnKind,
    length: number | null = null,
    precision: number | null = null,
    scale: number | null = null,
  ): PgColumnType => ({
    kind,
    enumValues: null,
    length,
    precision,
    scale,
  });
  if (enumValues) return { ...make("enum"), enumValues: [...enumValues] };
  const mods = /\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/.exec(type);
  const first = mods?.[1] === undefined ? null : Number(mods[1]);
  const second = mods?.[2] === undefined ? null : Number(mods[2]);
  const name = type
    .replace(/\(.*?\)/, "")
    .replace(/\s+/g, " ")
    .trim();
  switch (name) {
    case "uuid":
      return make("uuid");
    case "text":
      return make("text");
    case "character varying":
    case "varchar":
    case "character":
    case "char":
    case "bpchar":
      return first === null ? make("text") : make("varchar", first);
    case "smallint":
    case "integer":
    case "int":
    case "int4":
    case "int2":
      return make("integer");
    case "bigint":
    case "int8":
      return make("bigint");
    case "real":
    case "double precision":
    case "float8":
    case "float4":
      return make("real");
    case "numeric":
    case "decimal":
      return make("numeric", null, first, first === null ? null : (second ?? 0));
    case "boolean":
    case "bool":
      return make("boolean");
    case "timestamptz":
    case "timestamp with time zone":
    case "timestamp":
    case "timestamp without time zone":
      return make("datetime", null, first ?? 6);
    case "date":
      return make("date");
    case "json":
    case "jsonb":
      return make("json");
    case "bytea":
      return make("bytes");
    default:
      return make("text");
  }
}

const RANDOM = new Set(["gen_random_uuid()", "uuid_generate_v4()"]);

/** A default's SQL (deparsed, or as the compiler writes it) as the snapshot holds it. */
export function pgDefault(text: string, kind: ColumnKind): ColumnDefaultSnapshot | null {
  const node = parsePgSql(text);
  if (node === undefined) return { kind: "sql", sql: canonicalPgSql(text) };
  if (node.t === "keyword" && node.word === "NULL") return null;
  // A named enum type's constant: `'meh'::mood`.
  const constant = kind === "enum" && node.t === "cast" && node.operand.t === "string" ? node.operand : node;
  const value = constantValue(constant, kind);
  if (value !== undefined) return { kind: "value", value: value.value };
  const sql = printSql(node, OPTIONS);
  return RANDOM.has(sql) ? { kind: "random" } : { kind: "sql", sql };
}

function constantValue(node: SqlNode, kind: ColumnKind): { value: unknown } | undefined {
  if (node.t === "keyword" && (node.word === "TRUE" || node.word === "FALSE")) return { value: node.word === "TRUE" };
  let text: string;
  if (node.t === "string") text = node.value;
  else if (node.t === "literal") text = node.text;
  else return undefined;
  switch (kind) {
    case "integer":
    case "real": {
      const n = Number(text);
      return Number.isFinite(n) && (kind === "real" || Number.isSafeInteger(n)) ? { value: n } : { value: text };
    }
    case "boolean":
      return { value: ["t", "true", "1", "yes", "on", "y"].includes(text.toLowerCase()) };
    case "json":
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { value: text };
      }
    case "bytes":
      return { value: text.startsWith("\\x") ? text.slice(2).toLowerCase() : Buffer.from(text, "latin1").toString("hex") };
    case "datetime":
      return { value: isoText(text) };
    case "uuid":
      return { value: text.toLowerCase() };
    default:
      return { value: text };
  }
}
