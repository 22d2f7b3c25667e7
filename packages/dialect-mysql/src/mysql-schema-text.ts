import type { ColumnDefaultSnapshot, ColumnKind, ColumnSnapshot, SqlNode } from "tempest-db-js/dialect";
import { canonicalSql, parseSql, printSql, sqlTokens } from "tempest-db-js/dialect";

/**
 * How the MySQL/MariaDB introspector reads SQL texts: COLUMN_TYPE (and the compiler's column
 * types), COLUMN_DEFAULT (and the compiler's DEFAULT clauses), generation expressions and CHECKs.
 *
 * Rules:
 * - types: display widths are not part of the type (`int(11)` is `int`); `tinyint(1)` is a boolean,
 *   `char(36)` a uuid, `longtext`/`mediumtext`/`text` text, `varchar(n)` varchar of n (a model's text
 *   column that is part of a key is created as varchar(255) and reads back so), `decimal` numeric
 *   (a model's unsized numeric is decimal(65, 30)), `datetime(p)`/`timestamp(p)` datetime of
 *   precision p, `longblob`/`varbinary` bytes, `enum(...)` enum with its values. MariaDB's JSON is
 *   longtext with a `json_valid` CHECK: the introspector turns that pair back into json.
 * - defaults as MariaDB reports them (10.2.7+): string literals quoted (`'open'`), NULL as the text
 *   `NULL` (no default), numbers bare, expressions as text (`utc_timestamp(3)`, `uuid()`). MySQL 8
 *   reports literals unquoted and marks expressions DEFAULT_GENERATED in EXTRA; `mysqlDefault` takes
 *   both. A literal becomes its value as the column's kind reads it (a tinyint(1)'s 1 is true, a
 *   datetime's `2026-01-02 03:04:05.678` its ISO text, json parsed, bigint/decimal as text); `uuid()`
 *   is {kind: "random"}; any other expression is {kind: "sql"} in canonicalSql's spelling with
 *   backquoted names and lower-case functions, so MariaDB's `utc_timestamp(3)` and the compiler's
 *   `UTC_TIMESTAMP(3)` are one text.
 */

const quote = (name: string): string => `\`${name.replaceAll("`", "``")}\``;
const OPTIONS = { quote, identifierQuotes: "`", backslashEscapes: true } as const;

export function canonicalMysqlSql(text: string): string {
  return canonicalSql(text, OPTIONS);
}

export function parseMysqlSql(text: string): SqlNode | undefined {
  return parseSql(text, OPTIONS);
}

export type MysqlColumnType = Pick<ColumnSnapshot, "kind" | "enumValues" | "length" | "precision" | "scale">;

export function mysqlColumnType(typeText: string): MysqlColumnType {
  const type = typeText.trim();
  const lower = type.toLowerCase();
  const make = (
    kind: ColumnKind,
    length: number | null = null,
    precision: number | null = null,
    scale: number | null = null,
  ): MysqlColumnType => ({
    kind,
    enumValues: null,
    length,
    precision,
    scale,
  });
  if (lower.startsWith("enum(")) {
    const tokens = sqlTokens(type.slice(4), { backslashEscapes: true, identifierQuotes: "`" });
    return { ...make("enum"), enumValues: tokens.flatMap((t) => (t.kind === "string" ? [t.value] : [])) };
  }
  const match = /^([a-z ]+?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?(\s+unsigned)?(\s+zerofill)?$/.exec(lower);
  const name = match?.[1]?.trim() ?? lower;
  const first = match?.[2] === undefined ? null : Number(match[2]);
  const second = match?.[3] === undefined ? null : Number(match[3]);
  switch (name) {
    case "tinyint":
      return first === 1 ? make("boolean") : make("integer");
    case "bool":
    case "boolean":
      return make("boolean");
    case "smallint":
    case "mediumint":
    case "int":
    case "integer":
      return make("integer");
    case "bigint":
      return make("bigint");
    case "double":
    case "float":
    case "real":
    case "double precision":
      return make("real");
    case "decimal":
    case "numeric":
      return make("numeric", null, first ?? 10, second ?? 0);
    case "char":
      return first === 36 ? make("uuid") : make("varchar", first ?? 1);
    case "varchar":
      return make("varchar", first);
    case "tinytext":
    case "text":
    case "mediumtext":
    case "longtext":
      return make("text");
    case "json":
      return make("json");
    case "datetime":
    case "timestamp":
      return make("datetime", null, first ?? 0);
    case "date":
      return make("date");
    case "binary":
    case "varbinary":
    case "tinyblob":
    case "blob":
    case "mediumblob":
    case "longblob":
      return make("bytes");
    default:
      return make("text");
  }
}

/**
 * A default as the catalog or the compiler writes it. `expression` says the text is an expression
 * even without parentheses (MySQL 8's DEFAULT_GENERATED); `quotedLiterals` whether a bare word is a
 * literal's text (MySQL 8 reports `open` for DEFAULT 'open') or SQL (MariaDB quotes its literals).
 */
export function mysqlDefault(
  text: string,
  kind: ColumnKind,
  how: { expression: boolean; quotedLiterals: boolean },
): ColumnDefaultSnapshot | null {
  if (!how.expression && !how.quotedLiterals) return literalValue(text, kind);
  const node = parseMysqlSql(text);
  if (node === undefined) return { kind: "sql", sql: canonicalMysqlSql(text) };
  if (node.t === "keyword" && node.word === "NULL") return null;
  if (node.t === "keyword" && (node.word === "TRUE" || node.word === "FALSE")) return literalValue(node.word === "TRUE" ? "1" : "0", kind);
  if (node.t === "string") return literalValue(node.value, kind, node.prefix.toUpperCase() === "X");
  if (node.t === "literal") return literalValue(node.text, kind);
  const sql = printSql(node, OPTIONS);
  return sql === "uuid()" ? { kind: "random" } : { kind: "sql", sql };
}

function literalValue(text: string, kind: ColumnKind, hex = false): ColumnDefaultSnapshot {
  return { kind: "value", value: literalOf(text, kind, hex) };
}

function literalOf(text: string, kind: ColumnKind, hex: boolean): unknown {
  switch (kind) {
    case "boolean":
      return Number(text) !== 0;
    case "integer":
    case "real": {
      const n = Number(text);
      return Number.isFinite(n) && (kind === "real" || Number.isSafeInteger(n)) ? n : text;
    }
    case "json":
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    case "datetime": {
      const match = /^(\d{4,}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d+)?)Z?$/.exec(text);
      const date = match ? new Date(`${match[1]}T${match[2]}Z`) : undefined;
      return date && !Number.isNaN(date.getTime()) ? date.toISOString() : text;
    }
    case "bytes":
      return hex ? text.toLowerCase() : Buffer.from(text, "latin1").toString("hex");
    case "uuid":
      return text.toLowerCase();
    default:
      return text;
  }
}
