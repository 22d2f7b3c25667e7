import type { ColumnMeta, CompileContext, DialectCapabilities, InSubqueryNode } from "tempest-db-js/dialect";
import { SqlCompiler } from "tempest-db-js/dialect";
import { postgresJsCodec } from "./postgresjs-codec.js";

/** PostgreSQL SQL, written against the base compiler's hooks only. */
export class PostgresJsCompiler extends SqlCompiler {
  constructor(capabilities: DialectCapabilities) {
    super("PostgreSQL (postgres.js)", capabilities, postgresJsCodec);
  }

  protected placeholder(index: number): string {
    return `$${index}`;
  }

  protected nowSql(): string {
    return "now()";
  }

  protected nowPlusSecondsSql(seconds: string): string {
    return `(now() + ${seconds} * interval '1 second')`;
  }

  /** DDL literals: PostgreSQL reads X'..' as a bit string, so bytes need the bytea escape form. */
  protected override literal(value: unknown, column: ColumnMeta | undefined): string {
    if (value instanceof Uint8Array) return `'\\x${Buffer.from(value).toString("hex")}'::bytea`;
    return super.literal(value, column);
  }

  /** The string functions in code point order, and LOWER / UPPER folding A-Z only (a libc or ICU locale folds every letter). */
  protected override textInputSql(sql: string): string {
    return `(${sql} COLLATE "C")`;
  }

  /** A relation load's owner keys: one array parameter, typed by the server from the key column. */
  protected override relationKeysSql(column: string, key: ColumnMeta, keys: readonly unknown[], ctx: CompileContext): string {
    return `${column} = ANY(${this.bind(
      keys.map((v) => this.encodeParam(v, key)),
      undefined,
      ctx,
    )})`;
  }

  protected override notifyCallSql(channel: string, payload: string): string {
    return `pg_notify(${channel}, ${payload})`;
  }

  /**
   * `IN (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED)` may be planned as a join that evaluates the
   * subquery more than once, and each evaluation can skip to different rows: the claim would take
   * more than n. An ARRAY(...) subquery is evaluated exactly once.
   */
  protected override inSubquery(node: InSubqueryNode, ctx: CompileContext): string {
    const inner = node.subquery.select;
    if (inner.lock === undefined && inner.limit === undefined) return super.inSubquery(node, ctx);
    const test = `${this.column(node.column, ctx)} = ANY(ARRAY(${this.select(inner, { ...ctx, qualify: false })}))`;
    return node.negated ? `NOT (${test})` : test;
  }

  protected columnType(column: ColumnMeta): string {
    switch (column.kind) {
      case "uuid":
        return "uuid";
      case "text":
      case "enum":
        return "text";
      case "varchar":
        return `varchar(${column.length ?? 255})`;
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
