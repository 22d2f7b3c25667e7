import type { ColumnMeta, CompileContext, DdlHooks, DialectCapabilities } from "tempest-db-js";
import { SqlCompiler } from "tempest-db-js";
import { decodePostgresJs, decodesAsIs, encodePostgresJs } from "./postgresjs-types.js";

/** The AST node types are reached through the compiler's own signatures, the public way. */
type InSubquery = Parameters<SqlCompiler["inSubquery"]>[0];

/** PostgreSQL SQL, written against the base compiler's hooks only. */
export class PostgresJsCompiler extends SqlCompiler implements DdlHooks {
  constructor(capabilities: DialectCapabilities) {
    super("PostgreSQL (postgres.js)", capabilities);
  }

  placeholder(index: number): string {
    return `$${index}`;
  }

  nowSql(): string {
    return "now()";
  }

  nowPlusSecondsSql(seconds: string): string {
    return `(now() + ${seconds} * interval '1 second')`;
  }

  override encodeParam(value: unknown, column: ColumnMeta | undefined): unknown {
    return encodePostgresJs(value, column);
  }

  override decodeValue(value: unknown, column: ColumnMeta): unknown {
    return decodePostgresJs(value, column);
  }

  override decodesAsIs(column: ColumnMeta): boolean {
    return decodesAsIs(column);
  }

  /** DDL literals: PostgreSQL reads X'..' as a bit string, so bytes need the bytea escape form. */
  override literal(value: unknown, column: ColumnMeta | undefined): string {
    if (value instanceof Uint8Array) return `'\\x${Buffer.from(value).toString("hex")}'::bytea`;
    return super.literal(value, column);
  }

  override notifySql(): string {
    return "SELECT pg_notify($1, $2)";
  }

  /**
   * `IN (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED)` may be planned as a join that evaluates the
   * subquery more than once, and each evaluation can skip to different rows: the claim would take
   * more than n. An ARRAY(...) subquery is evaluated exactly once.
   */
  override inSubquery(node: InSubquery, ctx: CompileContext): string {
    const inner = node.subquery.select;
    if (inner.lock === undefined && inner.limit === undefined) return super.inSubquery(node, ctx);
    const test = `${this.column(node.column, ctx)} = ANY(ARRAY(${this.select(inner, { ...ctx, qualify: false })}))`;
    return node.negated ? `NOT (${test})` : test;
  }

  columnType(column: ColumnMeta): string {
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

  randomUuidSql(): string {
    return "gen_random_uuid()";
  }
}
