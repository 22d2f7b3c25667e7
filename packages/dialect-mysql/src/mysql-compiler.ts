import type {
  AlterColumnChange,
  BeginOptions,
  ColumnDefinition,
  ColumnKind,
  ColumnMeta,
  CompileContext,
  CompoundNode,
  ConflictClause,
  DatetimeField,
  DeleteNode,
  DialectCapabilities,
  DropForeignKeyChange,
  DropIndexChange,
  InListNode,
  InSubqueryNode,
  InsertNode,
  IntervalUnit,
  LockClause,
  ParamNode,
  SchemaChange,
  SchemaStep,
  SchemaStepFlags,
  SelectNode,
  SqlPart,
  TruncUnit,
  UpdateNode,
} from "tempest-db-js/dialect";
import { formatLiteral, jsonArrayText, LONG_LIST, SqlCompiler, UnsupportedFeatureError, ValidationError } from "tempest-db-js/dialect";
import type { AlterAlgorithm } from "./mysql-alter-algorithm.js";
import { algorithmClause, changeAlgorithm, modifyAlgorithm, worst } from "./mysql-alter-algorithm.js";
import type { MysqlCapabilities } from "./mysql-capabilities.js";
import { asMysqlCapabilities } from "./mysql-capabilities.js";
import { mysqlCodec } from "./mysql-codec.js";
import { foreignKeyIndexAdds, foreignKeyIndexDrops } from "./mysql-foreign-key-index.js";
import { describeServer } from "./mysql-server-version.js";

type LockStrength = LockClause["strength"];

/** The largest LIMIT MySQL takes: its documented spelling of "no limit" when only OFFSET is wanted. */
const NO_LIMIT = "18446744073709551615";

/** Column types stored off-page that cannot be a default literal or a key without an expression / prefix. */
const LOB_KINDS = new Set(["text", "json", "bytes"]);

export class MysqlCompiler extends SqlCompiler {
  protected readonly mysql: MysqlCapabilities;
  /** The table each UPDATE/DELETE being compiled writes to, keyed by its compile context. */
  readonly #writeTarget = new WeakMap<CompileContext, string>();

  constructor(capabilities: DialectCapabilities) {
    const mysql = asMysqlCapabilities(capabilities);
    super("MySQL", mysql, mysqlCodec);
    this.mysql = mysql;
  }

  /**
   * `dialect` stays "MySQL", the dialect that refuses (one dialect serves both servers); the message
   * names the server the capability table describes, since MySQL 8 and MariaDB lack different things.
   */
  override unsupported(feature: string, hint: string): never {
    throw new UnsupportedFeatureError(this.dialectName, feature, hint, { subject: describeServer(this.mysql.server) });
  }

  protected placeholder(): string {
    return "?";
  }

  protected override quoteIdentifier(name: string): string {
    if (name.includes("\0")) throw new ValidationError(`Identifier ${JSON.stringify(name)} contains NUL`);
    return `\`${name.replaceAll("`", "``")}\``;
  }

  /** The table in the current database, from information_schema (STATISTICS lists each index's columns in order). */
  protected override describeTableSql(name: string, ctx: CompileContext): string {
    return (
      `SELECT 'column' AS kind, COLUMN_NAME AS name, COLUMN_NAME AS column_name, 0 AS is_unique, ORDINAL_POSITION AS position ` +
      `FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${this.bind(name, undefined, ctx)} ` +
      `UNION ALL SELECT 'index', INDEX_NAME, COLUMN_NAME, CASE WHEN NON_UNIQUE = 0 THEN 1 ELSE 0 END, SEQ_IN_INDEX ` +
      `FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${this.bind(name, undefined, ctx)} ORDER BY 1, 2, 5`
    );
  }

  protected nowSql(): string {
    return "UTC_TIMESTAMP(3)";
  }

  /** Whole milliseconds, so the sum stores into datetime(3) without rounding. */
  protected nowPlusSecondsSql(seconds: string): string {
    return `TIMESTAMPADD(MICROSECOND, ROUND(${seconds} * 1000) * 1000, UTC_TIMESTAMP(3))`;
  }

  /**
   * MySQL reads backslashes in string literals as escapes. TEXT, JSON and BLOB columns take a
   * default only as an expression on MySQL 8, hence the parentheses (MariaDB accepts both).
   */
  protected override literal(value: unknown, column: ColumnMeta | undefined): string {
    const sql = formatLiteral(this.encodeParam(value, column), true);
    return column && LOB_KINDS.has(column.kind) && sql !== "NULL" ? `(${sql})` : sql;
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
    const type = this.mysql.jsonTable ? jsonItemType(column) : undefined;
    if (ctx.inline || type === undefined || node.values.length <= LONG_LIST || !node.values.every((v) => v.kind === "param")) {
      return super.inList(node, ctx);
    }
    const json = jsonArrayText(node.values.map((v) => this.encodeParam((v as ParamNode).value, column)));
    if (json === undefined) return super.inList(node, ctx);
    const placeholder = this.bind(json, undefined, ctx);
    const item = isTextual(column) ? `j.v COLLATE ${this.mysql.tableCollation}` : "j.v";
    return `${this.column(column, ctx)} ${node.negated ? "NOT IN" : "IN"} (SELECT ${item} FROM JSON_TABLE(${placeholder}, '$[*]' COLUMNS (v ${type} PATH '$')) AS j)`;
  }

  /**
   * A relation load's owner keys: one JSON array parameter unpacked by JSON_TABLE, typed and collated
   * as the key column (see inList). Without JSON_TABLE (MariaDB before 10.6, MySQL 5.7) it is refused.
   */
  protected override relationKeysSql(column: string, key: ColumnMeta, keys: readonly unknown[], ctx: CompileContext): string {
    const type = this.mysql.jsonTable ? jsonItemType(key) : undefined;
    const json = type === undefined ? undefined : jsonArrayText(keys.map((v) => this.encodeParam(v, key)));
    if (json === undefined) return super.relationKeysSql(column, key, keys, ctx);
    const item = isTextual(key) ? `j.v COLLATE ${this.mysql.tableCollation}` : "j.v";
    return `${column} IN (SELECT ${item} FROM JSON_TABLE(${this.bind(json, undefined, ctx)}, '$[*]' COLUMNS (v ${type} PATH '$')) AS j)`;
  }

  /** `CAST(x AS DOUBLE)` needs MySQL 8.0.17; adding a double literal makes a double on every version. */
  protected override floatSql(sql: string): string {
    return `(${sql} + 0e0)`;
  }

  // ---- typed expressions (see ExpressionCompiler) -----------------------------------------
  protected override expressionTypeSql(kind: ColumnKind): string {
    switch (kind) {
      case "integer":
      case "bigint":
      case "boolean":
        return "SIGNED";
      case "numeric":
        return "DECIMAL(65, 30)";
      case "datetime":
        return "DATETIME(3)";
      case "date":
        return "DATE";
      case "real":
        return "DOUBLE";
      default:
        return "CHAR";
    }
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

  // ---- DDL --------------------------------------------------------------------------------
  /** InnoDB explicitly: another engine would accept FOR UPDATE and transactions and silently ignore both. */
  protected override tableOptionsSql(): string {
    return ` ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=${this.mysql.tableCollation}`;
  }

  protected columnType(column: ColumnDefinition): string {
    const keyed = column.keyed ?? false;
    switch (column.kind) {
      case "uuid":
        return "char(36)";
      // A key cannot cover a whole TEXT/BLOB; a bounded type keeps uniqueness over the full value.
      // longtext: `text` holds only 65,535 bytes, and the other dialects take any length.
      case "text":
        return keyed ? "varchar(255)" : "longtext";
      case "bytes":
        return keyed ? "varbinary(255)" : "longblob";
      case "varchar":
        return `varchar(${column.length ?? 255})`;
      case "enum":
        return this.enumType(column);
      case "integer":
        return "int";
      case "bigint":
        return "bigint";
      case "real":
        return "double";
      // Plain `decimal` means decimal(10, 0) here and would round away every fraction.
      case "numeric":
        return column.precision === undefined ? "decimal(65, 30)" : `decimal(${column.precision}, ${column.scale ?? 0})`;
      case "boolean":
        return "tinyint(1)";
      case "datetime":
        return "datetime(3)";
      case "date":
        return "date";
      case "json":
        return "json";
    }
  }

  /**
   * The server strips trailing spaces from ENUM members and then stores "a " as "a" without an error,
   * so such a member cannot be kept as written.
   */
  protected enumType(column: ColumnDefinition): string {
    const values = column.enumValues ?? [];
    const padded = values.find((v) => v.endsWith(" "));
    if (padded !== undefined) {
      this.unsupported(
        "ENUM values ending in a space",
        `${column.table}.${column.field} has ${JSON.stringify(padded)}, and the server strips trailing spaces from ENUM members. Choose values without them.`,
      );
    }
    return `enum(${values.map((v) => formatLiteral(v, true)).join(", ")})`;
  }

  protected override randomUuidSql(): string {
    return "uuid()";
  }

  /** The enum type itself refuses other values (strict mode, which the driver keeps on). */
  protected override enumCheckSql(): undefined {
    return undefined;
  }

  protected override indexIfNotExists(): boolean {
    return this.mysql.indexIfNotExists;
  }

  // ---- schema changes ---------------------------------------------------------------------
  /**
   * Every ALTER asks for the best algorithm the server has for it (INSTANT, else INPLACE with
   * LOCK=NONE), so that the server fails the statement rather than quietly copy the table and block
   * writes; an ALTER that can only copy has no clause and is marked `copiesTable` for the lint.
   */
  protected override ddlStep(change: SchemaChange, sql: string, flags: SchemaStepFlags & { transactional?: boolean } = {}): SchemaStep {
    const algorithm = changeAlgorithm(change, this.mysql, (side) =>
      this.columnType(this.alterDefinition(change as AlterColumnChange, side)),
    );
    return this.algorithmStep(change, sql, algorithm, flags);
  }

  protected algorithmStep(
    change: SchemaChange,
    sql: string,
    algorithm: AlterAlgorithm | undefined,
    flags: SchemaStepFlags & { transactional?: boolean },
  ): SchemaStep {
    if (algorithm === undefined) return super.ddlStep(change, sql, flags);
    const index = /^CREATE (UNIQUE )?INDEX /.test(sql);
    return super.ddlStep(change, sql + algorithmClause(algorithm, index), { ...flags, copiesTable: algorithm === "copy" });
  }

  /**
   * One ALTER: MODIFY COLUMN with the whole new definition (MySQL has no separate type and
   * nullability changes), or ALTER COLUMN ... SET/DROP DEFAULT when only the default changes (instant);
   * UNIQUE added or dropped beside it (its index is named after the column, as CREATE TABLE makes it).
   */
  protected override alterColumnSteps(change: AlterColumnChange): SchemaStep[] {
    const { from, to, table } = change;
    if (JSON.stringify(from.generated) !== JSON.stringify(to.generated)) {
      this.unsupported(`changing a generated column (${table}.${to.name})`, "Drop the column and add it again.");
    }
    const q = (name: string) => this.quoteIdentifier(name);
    const before = this.alterDefinition(change, "from");
    const after = this.alterDefinition(change, "to");
    const typeOf = (side: "from" | "to") => this.columnType(side === "from" ? before : after);
    const actions: string[] = [];
    const algorithms: AlterAlgorithm[] = [];
    const reshaped = this.columnType(before) !== this.columnType(after) || from.notNull !== to.notNull;
    if (reshaped) {
      actions.push(`MODIFY COLUMN ${this.columnSql(to, after)}`);
      algorithms.push(modifyAlgorithm(from, to, typeOf));
    } else if (JSON.stringify(from.default) !== JSON.stringify(to.default)) {
      const fallback = this.defaultSql(to, after);
      actions.push(`ALTER COLUMN ${q(to.name)} ${fallback === undefined ? "DROP DEFAULT" : `SET DEFAULT ${fallback}`}`);
      algorithms.push("instant");
    }
    if (from.unique !== to.unique) {
      actions.push(to.unique ? `ADD UNIQUE (${q(to.name)})` : `DROP INDEX ${q(to.name)}`);
      algorithms.push("inplace");
    }
    if (actions.length === 0) return [];
    return [this.algorithmStep(change, `ALTER TABLE ${q(table)} ${actions.join(", ")}`, worst(algorithms), {})];
  }

  /** The index, after an index of their own for the keys it alone serves (see foreignKeyIndexAdds): one statement. */
  protected override dropIndexSql(change: DropIndexChange): string {
    const q = (name: string) => this.quoteIdentifier(name);
    const ifNotExists = this.mysql.indexIfNotExists ? "IF NOT EXISTS " : "";
    const adds = foreignKeyIndexAdds(change).map(
      (fk) => `ADD INDEX ${ifNotExists}${q(fk.name ?? (fk.columns[0] as string))} (${fk.columns.map(q).join(", ")}), `,
    );
    return `ALTER TABLE ${q(change.table)} ${adds.join("")}DROP INDEX ${q(change.index.name)}`;
  }

  /** The key, and the index InnoDB made for it by itself (see foreignKeyIndexDrops). */
  protected override dropForeignKeySql(change: DropForeignKeyChange): string {
    const q = (name: string) => this.quoteIdentifier(name);
    const indexes = foreignKeyIndexDrops(change, this.mysql.indexIfNotExists).map(
      (drop) => `, DROP INDEX ${drop.ifExists ? "IF EXISTS " : ""}${q(drop.name)}`,
    );
    return `ALTER TABLE ${q(change.table)} DROP FOREIGN KEY ${q(change.foreignKey.name)}${indexes.join("")}`;
  }
}

/** The type a JSON_TABLE column gives list items of this column's kind; undefined for kinds sent as a list. */
function jsonItemType(column: ColumnMeta): string | undefined {
  switch (column.kind) {
    case "uuid":
      return "char(36) CHARACTER SET utf8mb4";
    case "text":
    case "enum":
      return "longtext CHARACTER SET utf8mb4";
    case "varchar":
      return `varchar(${column.length ?? 255}) CHARACTER SET utf8mb4`;
    case "integer":
      return "int";
    case "bigint":
      return "bigint";
    case "real":
      return "double";
    case "numeric":
      return column.precision === undefined ? "decimal(65, 30)" : `decimal(${column.precision}, ${column.scale ?? 0})`;
    case "date":
      return "date";
    case "datetime":
      return "datetime(3)";
    default:
      return undefined;
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
