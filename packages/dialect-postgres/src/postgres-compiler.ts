import type {
  ColumnDefinition,
  ColumnKind,
  ColumnMeta,
  CompileContext,
  DialectCapabilities,
  InListNode,
  InSubqueryNode,
  ParamNode,
  SchemaChange,
  SchemaStep,
} from "tempest-db-js/dialect";
import { SqlCompiler, ValidationError } from "tempest-db-js/dialect";
import { postgresCodec } from "./postgres-codec.js";
import { isoTimestamp } from "./postgres-types.js";

/** Column kinds whose IN lists are bound as one array (see inList). */
const ARRAY_KINDS: ReadonlySet<ColumnKind> = new Set([
  "uuid",
  "text",
  "varchar",
  "enum",
  "integer",
  "bigint",
  "real",
  "numeric",
  "date",
  "datetime",
]);

/** NAMEDATALEN - 1 in a stock build. */
const MAX_IDENTIFIER_BYTES = 63;

export class PostgresCompiler extends SqlCompiler {
  constructor(capabilities: DialectCapabilities) {
    super("PostgreSQL", capabilities, postgresCodec);
  }

  protected placeholder(index: number): string {
    return `$${index}`;
  }

  /**
   * PostgreSQL cuts a longer name to its first 63 bytes with only a NOTICE, so two models whose table
   * names share those bytes would silently read and write the same table.
   */
  protected override quoteIdentifier(name: string): string {
    if (Buffer.byteLength(name, "utf8") > MAX_IDENTIFIER_BYTES) {
      throw new ValidationError(`Identifier ${JSON.stringify(name)} exceeds ${MAX_IDENTIFIER_BYTES} bytes; PostgreSQL would truncate it.`);
    }
    return super.quoteIdentifier(name);
  }

  /** The table in the current schema: information_schema for columns, pg_index for indexes (partial ones too). */
  protected override describeTableSql(name: string, ctx: CompileContext): string {
    const t = this.bind(name, undefined, ctx);
    return (
      `SELECT 'column' AS kind, c.column_name::text AS name, c.column_name::text AS column_name, 0 AS is_unique, c.ordinal_position::int AS position ` +
      `FROM information_schema.columns c WHERE c.table_schema = current_schema() AND c.table_name = ${t} ` +
      `UNION ALL SELECT 'index', i.relname::text, a.attname::text, CASE WHEN x.indisunique THEN 1 ELSE 0 END, k.n::int ` +
      `FROM pg_index x JOIN pg_class tb ON tb.oid = x.indrelid JOIN pg_namespace ns ON ns.oid = tb.relnamespace ` +
      `JOIN pg_class i ON i.oid = x.indexrelid CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, n) ` +
      `JOIN pg_attribute a ON a.attrelid = tb.oid AND a.attnum = k.attnum ` +
      `WHERE tb.relname = ${t} AND ns.nspname = current_schema() ORDER BY 1, 2, 5`
    );
  }

  protected nowSql(): string {
    return "now()";
  }

  protected nowPlusSecondsSql(seconds: string): string {
    return `(now() + make_interval(secs => ${seconds}))`;
  }

  protected override literal(value: unknown, column: ColumnMeta | undefined): string {
    if (value instanceof Uint8Array) return `'\\x${Buffer.from(value).toString("hex")}'::bytea`;
    if (value instanceof Date) return `'${isoTimestamp(value)}'::timestamptz`;
    return super.literal(value, column);
  }

  /**
   * In the "C" collation, as text columns are: a text of bound values alone would otherwise compare in
   * the database's, and LOWER / UPPER fold A-Z only there (under a libc or ICU locale they fold every
   * letter, which SQLite's built-in ones do not).
   */
  protected override textInputSql(sql: string): string {
    return `(${sql} COLLATE "C")`;
  }

  protected override notifyCallSql(channel: string, payload: string): string {
    return `pg_notify(${channel}, ${payload})`;
  }

  /**
   * A locked or limited subquery becomes `= ANY(ARRAY(...))`: the array is an InitPlan, computed
   * exactly once. As a plain IN the planner may choose a semi-join that runs the subquery again,
   * which under SKIP LOCKED can claim more rows than the LIMIT.
   */
  protected override inSubquery(node: InSubqueryNode, ctx: CompileContext): string {
    const select = node.subquery.select;
    if (select.lock === undefined && select.limit === undefined) return super.inSubquery(node, ctx);
    const inner = this.select(select, this.unqualified(ctx));
    const test = `${this.column(node.column, ctx)} = ANY(ARRAY(${inner}))`;
    return node.negated ? `NOT (${test})` : test;
  }

  /**
   * A list of bound values is one array parameter: `= ANY($n)` (`<> ALL($n)` for notIn), the server
   * inferring the array's type from the column. The statement's text then no longer depends on the
   * list's length, so one prepared statement (and its plan) serves every batch size, and the server
   * parses one parameter instead of hundreds. Kinds whose array text pg might not write exactly,
   * and lists holding expressions, keep `IN (...)`.
   */
  protected override inList(node: InListNode, ctx: CompileContext): string {
    const column = node.column;
    const list = this.listPlaceholder(node);
    // A prepared statement's list placeholder ("uuid[]", ...): the same one array parameter.
    if (list !== undefined && ARRAY_KINDS.has(column.kind)) {
      return `${this.column(column, ctx)} ${node.negated ? "<> ALL" : "= ANY"}(${this.placeholderSlot(list, ctx)})`;
    }
    if (ctx.inline || !ARRAY_KINDS.has(column.kind) || !node.values.every((v) => v.kind === "param")) return super.inList(node, ctx);
    const values = node.values.map((v) => this.encodeParam((v as ParamNode).value, column));
    // bind checks the text of every element, and binds the array as it is.
    const placeholder = this.bind(values, undefined, ctx);
    return `${this.column(column, ctx)} ${node.negated ? "<> ALL" : "= ANY"}(${placeholder})`;
  }

  /** A relation load's owner keys: one array parameter, typed by the server from the key column. */
  protected override relationKeysSql(column: string, key: ColumnMeta, keys: readonly unknown[], ctx: CompileContext): string {
    if (!ARRAY_KINDS.has(key.kind)) return super.relationKeysSql(column, key, keys, ctx);
    const values = keys.map((v) => this.encodeParam(v, key));
    return `${column} = ANY(${this.bind(values, undefined, ctx)})`;
  }

  /** PostgreSQL already sorts NULL as the largest value: no pinning, so an index on a nullable column still serves ORDER BY. */
  protected override nullsLargestSql(key: string, direction: "asc" | "desc"): string {
    return `${key} ${direction === "asc" ? "ASC" : "DESC"}`;
  }

  /**
   * Case folding of A-Z only, as on every dialect: under the "C" collation PostgreSQL's ILIKE folds
   * ASCII letters and nothing else, whatever the database's locale (docs/dialects.md).
   */
  protected override ilikeSql(left: string, right: string): string {
    return `${left} ILIKE ${right} COLLATE "C"`;
  }

  /**
   * A rename carries along the names PostgreSQL derived from the old one for an enum's CHECK and a
   * UNIQUE constraint (it keeps them as they were), so they stay what CREATE TABLE would name them.
   */
  protected override changeSteps(change: SchemaChange): SchemaStep[] {
    const steps = super.changeSteps(change);
    const renames: [table: string, from: string, to: string][] = [];
    const derived = implicitConstraintName;
    if (change.kind === "renameColumn" && change.column) {
      const c = change.column;
      if (c.kind === "enum")
        renames.push([change.table, derived(change.table, change.from, "check"), derived(change.table, change.to, "check")]);
      if (c.unique) renames.push([change.table, derived(change.table, change.from, "key"), derived(change.table, change.to, "key")]);
    }
    if (change.kind === "renameTable" && change.table) {
      for (const c of change.table.columns) {
        if (c.kind === "enum") renames.push([change.to, derived(change.from, c.name, "check"), derived(change.to, c.name, "check")]);
        if (c.unique) renames.push([change.to, derived(change.from, c.name, "key"), derived(change.to, c.name, "key")]);
      }
    }
    for (const [table, from, to] of renames) {
      if (from === to) continue;
      const q = (name: string) => this.quoteIdentifier(name);
      steps.push(this.ddlStep(change, `ALTER TABLE ${q(table)} RENAME CONSTRAINT ${q(from)} TO ${q(to)}`));
    }
    return steps;
  }

  /** The type without its collation: what stored values are cast to when a column's kind changes. */
  protected override castTypeSql(column: ColumnDefinition): string {
    return this.columnType(column).replace(' COLLATE "C"', "");
  }

  /** The name PostgreSQL gives a CHECK declared without one, which is how CREATE TABLE declares an enum's. */
  protected override enumCheckName(table: string, column: string): string {
    return implicitConstraintName(table, column, "check");
  }

  /** The name PostgreSQL gives a column's UNIQUE constraint declared without one. */
  protected override uniqueConstraintName(table: string, column: string): string {
    return implicitConstraintName(table, column, "key");
  }

  protected columnType(column: ColumnDefinition): string {
    switch (column.kind) {
      case "uuid":
        return "uuid";
      // Code point order, as MySQL's binary collation and SQLite's BINARY compare, whatever the database's locale.
      case "text":
        return 'text COLLATE "C"';
      case "enum":
        return "text";
      case "varchar":
        return `varchar(${column.length ?? 255}) COLLATE "C"`;
      case "integer":
        return "integer";
      case "bigint":
        return "bigint";
      case "real":
        return "double precision";
      case "numeric":
        return column.precision === undefined ? "numeric" : `numeric(${column.precision}, ${column.scale ?? 0})`;
      case "boolean":
        return "boolean";
      case "datetime":
        return "timestamptz(3)";
      case "date":
        return "date";
      case "json":
        return "jsonb";
      case "bytes":
        return "bytea";
    }
  }

  protected override randomUuidSql(): string {
    return "gen_random_uuid()";
  }
}

/**
 * PostgreSQL's makeObjectName: `table_column_label`, the longer of the two names cut a byte at a time
 * until the whole fits in 63 bytes (never inside a multi-byte character).
 */
export function implicitConstraintName(table: string, column: string, label: string): string {
  const available = MAX_IDENTIFIER_BYTES - label.length - 2;
  const first: Buffer = Buffer.from(table, "utf8");
  const second: Buffer = Buffer.from(column, "utf8");
  let firstBytes = first.length;
  let secondBytes = second.length;
  while (firstBytes + secondBytes > available) {
    if (firstBytes > secondBytes) firstBytes--;
    else secondBytes--;
  }

  return `${clip(first, firstBytes).toString("utf8")}_${clip(second, secondBytes).toString("utf8")}_${label}`;
}

/** The first `bytes` bytes of `text`, backed off to the start of a character (pg_mbcliplen). */
function clip(text: Buffer, bytes: number): Buffer {
  let end = bytes;
  // A UTF-8 continuation byte is 10xxxxxx: cut before the character it belongs to.
  while (end > 0 && end < text.length && ((text[end] as number) & 0xc0) === 0x80) end--;
  return text.subarray(0, end);
}
