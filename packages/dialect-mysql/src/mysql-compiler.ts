import type {
  BeginOptions,
  ColumnKind,
  ColumnMeta,
  CompileContext,
  CompoundNode,
  ConflictClause,
  DatetimeField,
  DeleteNode,
  InListNode,
  InSubqueryNode,
  InsertNode,
  IntervalUnit,
  LockClause,
  ParamNode,
  SelectNode,
  SqlPart,
  TruncUnit,
  UpdateNode,
} from "tempest-db-js/dialect";
import { jsonArrayText, LONG_LIST } from "tempest-db-js/dialect";
import { jsonTableItemType, mysqlCastType } from "./mysql-column-type.js";
import { MysqlSchemaCompiler } from "./mysql-schema-compiler.js";

type LockStrength = LockClause["strength"];

/** The largest LIMIT MySQL takes: its documented spelling of "no limit" when only OFFSET is wanted. */
const NO_LIMIT = "18446744073709551615";

/** MySQL's and MariaDB's compiler: the queries, on top of the schema half (MysqlSchemaCompiler). */
export class MysqlCompiler extends MysqlSchemaCompiler {
  /** The table each UPDATE/DELETE being compiled writes to, keyed by its compile context. */
  readonly #writeTarget = new WeakMap<CompileContext, string>();

  protected placeholder(): string {
    return "?";
  }

  protected nowSql(): string {
    return "UTC_TIMESTAMP(3)";
  }

  /** Whole milliseconds, so the sum stores into datetime(3) without rounding. */
  protected nowPlusSecondsSql(seconds: string): string {
    return `TIMESTAMPADD(MICROSECOND, ROUND(${seconds} * 1000) * 1000, UTC_TIMESTAMP(3))`;
  }

  override beginStatements(options: BeginOptions): string[] {
    const statements: string[] = [];
    // Without SESSION/GLOBAL it applies to the next transaction only, which is the one started next.
    if (options.isolation) statements.push(`SET TRANSACTION ISOLATION LEVEL ${options.isolation.toUpperCase()}`);
    statements.push(options.readOnly ? "START TRANSACTION READ ONLY" : "START TRANSACTION");
    return statements;
  }

  protected override limitOffset(limit: number | undefined, offset: number | undefined): string {
    if (limit === undefined && offset !== undefined) return ` LIMIT ${NO_LIMIT} OFFSET ${offset}`;
    return super.limitOffset(limit, offset);
  }

  /**
   * Case folding of A-Z only, as on every dialect (LOWER would fold other letters by the server's own
   * Unicode tables, which differ from PostgreSQL's and SQLite's). REPLACE matches case-sensitively.
   */
  protected override ilikeSql(left: string, right: string): string {
    return `${asciiLower(left)} LIKE ${asciiLower(right)}`;
  }

  /** MySQL has no NULLS LAST: NULL sorts first ascending, so a leading `IS NULL` key moves it. */
  protected override nullsLargestSql(key: string, direction: "asc" | "desc"): string {
    return direction === "asc" ? `${key} IS NULL, ${key} ASC` : `${key} IS NULL DESC, ${key} DESC`;
  }

  /** An ENUM column already sorts by its declaration order (by member index); a computed value is text. */
  protected override enumOrderSql(column: ColumnMeta, name: string, computed = false): string {
    return computed ? super.enumOrderSql(column, name, computed) : name;
  }

  /**
   * A long list of bound values is one JSON parameter unpacked by JSON_TABLE (MariaDB 10.6+, MySQL 8),
   * each item typed as the column is and compared in the table's collation, so no list length runs
   * into the 65,535-parameter limit and LIMIT, ORDER BY and notIn keep their meaning. Short lists,
   * and servers without JSON_TABLE, keep `IN (?, ...)`.
   */
  protected override inList(node: InListNode, ctx: CompileContext): string {
    const column = node.column;
    const type = this.mysql.jsonTable ? jsonTableItemType(column) : undefined;
    if (ctx.inline || type === undefined || node.values.length <= LONG_LIST || !node.values.every((v) => v.kind === "param")) {
      return super.inList(node, ctx);
    }
    const json = jsonArrayText(node.values.map((v) => this.encodeParam((v as ParamNode).value, column)));
    if (json === undefined) return super.inList(node, ctx);
    return `${this.column(column, ctx)} ${node.negated ? "NOT IN" : "IN"} ${this.#jsonTableList(column, type, json, ctx)}`;
  }

  /**
   * A relation load's owner keys: one JSON array parameter unpacked by JSON_TABLE, typed and collated
   * as the key column (see inList). Without JSON_TABLE (MariaDB before 10.6, MySQL 5.7) it is refused.
   */
  protected override relationKeysSql(column: string, key: ColumnMeta, keys: readonly unknown[], ctx: CompileContext): string {
    const type = this.mysql.jsonTable ? jsonTableItemType(key) : undefined;
    const json = type === undefined ? undefined : jsonArrayText(keys.map((v) => this.encodeParam(v, key)));
    if (type === undefined || json === undefined) return super.relationKeysSql(column, key, keys, ctx);
    return `${column} IN ${this.#jsonTableList(key, type, json, ctx)}`;
  }

  /** `(SELECT v FROM JSON_TABLE(?, ...))`: the JSON array `json`, bound once, as rows typed `type` and compared in `column`'s collation. */
  #jsonTableList(column: ColumnMeta, type: string, json: string, ctx: CompileContext): string {
    const item = isTextual(column) ? `j.v COLLATE ${this.mysql.tableCollation}` : "j.v";
    return `(SELECT ${item} FROM JSON_TABLE(${this.bind(json, undefined, ctx)}, '$[*]' COLUMNS (v ${type} PATH '$')) AS j)`;
  }

  /** `CAST(x AS DOUBLE)` needs MySQL 8.0.17; adding a double literal makes a double on every version. */
  protected override floatSql(sql: string): string {
    return `(${sql} + 0e0)`;
  }

  // ---- typed expressions (see ExpressionCompiler) -----------------------------------------
  protected override expressionTypeSql(kind: ColumnKind): string {
    return mysqlCastType(kind);
  }

  /** Texts, uuids and booleans bind as they are: a CAST AS CHAR would give them the connection's collation. */
  protected override typedParamSql(sql: string, kind: ColumnKind): string {
    return kind === "integer" || kind === "bigint" || kind === "numeric" || kind === "datetime" || kind === "date" || kind === "real"
      ? super.typedParamSql(sql, kind)
      : sql;
  }

  /** Integer arithmetic is 64-bit already. */
  protected override wideIntegerSql(sql: string): string {
    return sql;
  }

  /** `/` of integers is a decimal here; DIV truncates toward zero. */
  protected override integerDivideSql(left: string, right: string): string {
    return `(${left} DIV ${right})`;
  }

  protected override truncateToIntegerSql(sql: string): string {
    return `CAST(TRUNCATE(${sql}, 0) AS SIGNED)`;
  }

  protected override extremeSkipsNulls(): boolean {
    return false;
  }

  /** In the tables' binary collation: a text of bound values alone would compare in the connection's (case-insensitive). */
  protected override textInputSql(sql: string): string {
    return `(${sql} COLLATE ${this.mysql.tableCollation})`;
  }

  /** A-Z only, as on every dialect: LOWER / UPPER would also fold other letters, by the server's own tables. */
  protected override caseFoldSql(fn: "lower" | "upper", sql: string): string {
    return fn === "lower" ? asciiLower(sql) : asciiUpper(sql);
  }

  // ---- dates and times: DATETIME(3) holds the UTC wall clock, and the session's time_zone is UTC ----
  protected override datetimeTruncSql(unit: TruncUnit, value: SqlPart): string {
    if (unit === "week") return `CAST(DATE_SUB(CAST(${value()} AS DATE), INTERVAL WEEKDAY(${value()}) DAY) AS DATETIME(3))`;
    return `CAST(DATE_FORMAT(${value()}, '${MYSQL_TRUNC[unit]}') AS DATETIME(3))`;
  }

  protected override datetimeFieldSql(field: Exclude<DatetimeField, "epoch">, value: SqlPart): string {
    switch (field) {
      case "isoDayOfWeek":
        return `(WEEKDAY(${value()}) + 1)`;
      case "isoWeek":
        return `WEEK(${value()}, 3)`;
      case "isoYear":
        return `(YEARWEEK(${value()}, 3) DIV 100)`;
      default:
        return `${MYSQL_FIELD[field]}(${value()})`;
    }
  }

  /** UNIX_TIMESTAMP stops at 1970 and 2038 (or 3001); a difference in microseconds covers every year. */
  protected override epochMillisSql(value: SqlPart): string {
    return `(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', ${value()}) DIV 1000)`;
  }

  /** DATE_ADD keeps the day of the month or falls back to the month's last day. */
  protected override datetimeShiftSql(value: SqlPart, amount: SqlPart, unit: IntervalUnit): string {
    const v = value();
    const interval = unit === "milliseconds" ? `INTERVAL ${amount()} * 1000 MICROSECOND` : `INTERVAL ${amount()} ${MYSQL_INTERVAL[unit]}`;
    return `CAST(DATE_ADD(${v}, ${interval}) AS DATETIME(3))`;
  }

  /**
   * DATE_ADD answers NULL past 9999 and for days and smaller units before year 1, but a month or
   * year before year 1 lands in year 0 (January 31 of year 1 less a month is 0000-12-31).
   */
  protected override datetimeInRangeSql(sql: string): string {
    const low = "CAST('0000-12-31 23:59:59.999' AS DATETIME(3))";
    return `NULLIF(GREATEST(${sql}, ${low}), ${low})`;
  }

  /** LENGTH counts bytes here. */
  protected override charLengthSql(sql: string): string {
    return `CHAR_LENGTH(${sql})`;
  }

  /** `||` is OR here; CONCAT is NULL when any argument is. */
  protected override concatSql(args: readonly string[]): string {
    return `CONCAT(${args.join(", ")})`;
  }

  /** An INTERSECT ALL / EXCEPT ALL reads the chain before it as a derived table on MariaDB (see `bagOperatorChains`). */
  protected override chainsSetOperators(_left: CompoundNode, next: CompoundNode): boolean {
    return this.mysql.bagOperatorChains || !next.all || next.op === "union";
  }

  /** A DISTINCT select with an OFFSET is paged over its distinct rows on MariaDB (see `distinctOffset`). */
  protected override pagesDistinctOutside(node: SelectNode): boolean {
    return !this.mysql.distinctOffset && node.offset !== undefined && node.offset > 0;
  }

  protected override lockStrengthSql(strength: LockStrength): string {
    if (strength === "share" && this.mysql.lockInShareMode) return "LOCK IN SHARE MODE";
    return super.lockStrengthSql(strength);
  }

  protected override update(node: UpdateNode, ctx: CompileContext): string {
    this.#writeTarget.set(ctx, node.table.name);
    return super.update(node, ctx);
  }

  protected override delete(node: DeleteNode, ctx: CompileContext): string {
    this.#writeTarget.set(ctx, node.table.name);
    return super.delete(node, ctx);
  }

  protected override inSubquery(node: InSubqueryNode, ctx: CompileContext): string {
    this.checkSubquery(node.subquery.select);
    if (!this.mysql.writeTargetInSubquery && this.#writeTarget.get(ctx) === node.subquery.select.table.name) {
      this.unsupported(
        "a subquery reading the table the UPDATE/DELETE writes (error 1093)",
        "Do it in two steps: inside transaction(), select the ids (with forUpdate()), then update or delete where { id: { in: ids } }.",
      );
    }
    return super.inSubquery(node, ctx);
  }

  // ---- conflicts: MySQL has no conflict target, only "any unique key" ---------------------
  protected override insertKeyword(node: InsertNode): string {
    return node.conflict && ignoresDuplicates(node.conflict) ? "INSERT IGNORE INTO" : "INSERT INTO";
  }

  protected override defaultValuesSql(): string {
    return "() VALUES ()";
  }

  protected override conflictClause(conflict: ConflictClause, ctx: CompileContext): string {
    if (ignoresDuplicates(conflict)) return "";
    // ON DUPLICATE KEY UPDATE is written there (onDuplicateKey is in the capabilities); a target (or its
    // predicate) is refused there, with the way out in the message.
    return super.conflictClause(conflict, ctx);
  }

  /** Deprecated since MySQL 8.0.20 in favour of a row alias, which MariaDB lacks; both still run it. */
  protected override excludedSql(column: ColumnMeta): string {
    return `VALUES(${this.quoteIdentifier(column.name)})`;
  }
}

function isTextual(column: ColumnMeta): boolean {
  return column.kind === "uuid" || column.kind === "text" || column.kind === "enum" || column.kind === "varchar";
}

const MYSQL_TRUNC: Readonly<Record<Exclude<TruncUnit, "week">, string>> = {
  year: "%Y-01-01",
  month: "%Y-%m-01",
  day: "%Y-%m-%d",
  hour: "%Y-%m-%d %H:00:00",
  minute: "%Y-%m-%d %H:%i:00",
};
const MYSQL_FIELD: Readonly<Record<"year" | "month" | "day" | "hour" | "minute" | "second", string>> = {
  year: "YEAR",
  month: "MONTH",
  day: "DAYOFMONTH",
  hour: "HOUR",
  minute: "MINUTE",
  second: "SECOND",
};
const MYSQL_INTERVAL: Readonly<Record<Exclude<IntervalUnit, "milliseconds">, string>> = {
  seconds: "SECOND",
  minutes: "MINUTE",
  hours: "HOUR",
  days: "DAY",
  weeks: "WEEK",
  months: "MONTH",
  years: "YEAR",
};

/** `sql` with the letters A-Z replaced by a-z and every other character kept. */
function asciiLower(sql: string): string {
  let folded = sql;
  for (let c = 65; c <= 90; c++) folded = `REPLACE(${folded}, '${String.fromCharCode(c)}', '${String.fromCharCode(c + 32)}')`;
  return folded;
}

function asciiUpper(sql: string): string {
  let folded = sql;
  for (let c = 97; c <= 122; c++) folded = `REPLACE(${folded}, '${String.fromCharCode(c)}', '${String.fromCharCode(c - 32)}')`;
  return folded;
}

/** `ignoreDuplicates()`, and `onConflictDoNothing()` without a target, which means the same thing. */
function ignoresDuplicates(conflict: ConflictClause): boolean {
  if (conflict.kind === "ignoreDuplicates") return true;
  return (
    conflict.kind === "onConflict" && conflict.action === "nothing" && conflict.target.length === 0 && conflict.targetWhere === undefined
  );
}
