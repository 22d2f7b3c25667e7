import type { BeginOptions, ColumnMeta, CompileContext, DialectCapabilities, InListNode, LockClause, ParamNode } from "tempest-db-js";
import { jsonArrayText, LONG_LIST, SqlCompiler } from "tempest-db-js";
import { sqliteCodec } from "./sqlite-codec.js";

/** The text `Date.toISOString()` writes, so stored and database-made times compare as text. */
const ISO_NOW = "strftime('%Y-%m-%dT%H:%M:%fZ','now'";

const NO_ROW_LOCKS_HINT =
  "SQLite has no row locks. Claim inside engine.transaction(), which takes BEGIN IMMEDIATE: the database's single write lock is held until commit, so no other writer (connection or process) can claim the same rows.";

export class SqliteCompiler extends SqlCompiler {
  constructor(capabilities: DialectCapabilities) {
    super("SQLite", capabilities, sqliteCodec);
  }

  placeholder(): string {
    return "?";
  }

  /** The table from the pragma table functions (`sqlite_autoindex_*` are the PRIMARY KEY / UNIQUE constraints). */
  protected override describeTableSql(name: string, ctx: CompileContext): string {
    return (
      `SELECT 'column' AS kind, c.name AS name, c.name AS column_name, 0 AS is_unique, c.cid + 1 AS position FROM pragma_table_info(${this.bind(name, undefined, ctx)}) c ` +
      `UNION ALL SELECT 'index', il.name, ii.name, il."unique", ii.seqno + 1 FROM pragma_index_list(${this.bind(name, undefined, ctx)}) il, pragma_index_info(il.name) ii ORDER BY 1, 2, 5`
    );
  }

  nowSql(): string {
    return `${ISO_NOW})`;
  }

  nowPlusSecondsSql(seconds: string): string {
    // `||` binds tighter than any arithmetic in SQLite: an expression operand needs parentheses.
    const operand = /^(\?|-?\d+(\.\d+)?)$/.test(seconds) ? seconds : `(${seconds})`;
    return `${ISO_NOW},(${operand} || ' seconds'))`;
  }

  /**
   * A long list of bound values is one JSON parameter read by json_each: `IN (SELECT value FROM
   * json_each(?))`, so no list length runs into the parameter limit, and LIMIT, ORDER BY and notIn
   * keep meaning what they say (a split statement would not). Short lists keep `IN (?, ...)`.
   */
  protected override inList(node: InListNode, ctx: CompileContext): string {
    const column = node.column;
    if (ctx.inline || node.values.length <= LONG_LIST || column.kind === "bytes" || !node.values.every((v) => v.kind === "param")) {
      return super.inList(node, ctx);
    }
    const json = jsonArrayText(node.values.map((v) => this.encodeParam((v as ParamNode).value, column)));
    if (json === undefined) return super.inList(node, ctx);
    const placeholder = this.bind(json, undefined, ctx);
    return `${this.column(column, ctx)} ${node.negated ? "NOT IN" : "IN"} (SELECT value FROM json_each(${placeholder}))`;
  }

  /** SQLite has no default LIKE escape character; PostgreSQL and MySQL use backslash, so say so. */
  override likeSql(left: string, right: string): string {
    return `${left} LIKE ${right} ESCAPE '\\'`;
  }

  /** ASCII case folding, like SQLite's own LIKE; other letters need the ICU extension. */
  override ilikeSql(left: string, right: string): string {
    return `LOWER(${left}) LIKE LOWER(${right}) ESCAPE '\\'`;
  }

  /** SQLite has no OFFSET without LIMIT; a negative LIMIT means none. */
  override limitOffset(limit: number | undefined, offset: number | undefined): string {
    if (limit === undefined && offset !== undefined) return ` LIMIT -1 OFFSET ${offset}`;
    return super.limitOffset(limit, offset);
  }

  /**
   * A write transaction takes the write lock at BEGIN (IMMEDIATE), so it waits up to busy_timeout
   * there instead of failing with SQLITE_BUSY halfway when it first writes, and so that a claim
   * inside it is exclusive. Isolation levels are ignored: SQLite transactions are serializable.
   * readOnly opens a DEFERRED transaction (a read snapshot that takes no write lock); SQLite does
   * not refuse writes in it.
   */
  override beginStatements(options: BeginOptions): string[] {
    return [options.readOnly ? "BEGIN DEFERRED" : "BEGIN IMMEDIATE"];
  }

  /** Always an error, whatever the options: a lock that silently does not exist loses rows under load. */
  override lockClause(lock: LockClause): string {
    return this.unsupported(lock.strength === "update" ? "row locks (forUpdate)" : "shared row locks (forShare)", NO_ROW_LOCKS_HINT);
  }

  columnType(column: ColumnMeta): string {
    switch (column.kind) {
      case "integer":
      case "bigint":
      case "boolean":
        return "INTEGER";
      case "real":
        return "REAL";
      case "bytes":
        return "BLOB";
      case "uuid":
      case "text":
      case "varchar":
      case "enum":
      case "numeric":
      case "datetime":
      case "date":
      case "json":
        return "TEXT";
    }
  }

  /** SQLite has no uuid function: `defaultRandom()` columns are filled by the insert builder. */
  override randomUuidSql(): undefined {
    return undefined;
  }
}
