import type {
  AddedColumn,
  BeginOptions,
  ColumnDefinition,
  ColumnKind,
  ColumnMeta,
  CompileContext,
  DatetimeField,
  DialectCapabilities,
  DropTableChange,
  InListNode,
  IntervalUnit,
  LockClause,
  ParamNode,
  SchemaChange,
  SchemaStep,
  SqlPart,
  TruncUnit,
} from "tempest-db-js/dialect";
import { jsonArrayText, LONG_LIST, SqlCompiler } from "tempest-db-js/dialect";
import { sqliteCodec } from "./sqlite-codec.js";

/** The text `Date.toISOString()` writes, so stored and database-made times compare as text. */
const ISO_NOW = "strftime('%Y-%m-%dT%H:%M:%fZ','now'";

/** strftime's opening for the text `Date.toISOString()` writes. */
const ISO_FORMAT = "strftime('%Y-%m-%dT%H:%M:%fZ'";
const SQLITE_TRUNC: Readonly<Record<Exclude<TruncUnit, "week">, string>> = {
  year: "%Y-01-01T00:00:00.000Z",
  month: "%Y-%m-01T00:00:00.000Z",
  day: "%Y-%m-%dT00:00:00.000Z",
  hour: "%Y-%m-%dT%H:00:00.000Z",
  minute: "%Y-%m-%dT%H:%M:00.000Z",
};
const SQLITE_FIELD: Readonly<Record<"year" | "month" | "day" | "hour" | "minute" | "second", string>> = {
  year: "%Y",
  month: "%m",
  day: "%d",
  hour: "%H",
  minute: "%M",
  second: "%S",
};

const SQLITE_UNIT = { seconds: " seconds", minutes: " minutes", hours: " hours", days: " days" } as const;

const NO_ROW_LOCKS_HINT =
  "SQLite has no row locks. Claim inside engine.transaction(), which takes BEGIN IMMEDIATE: the database's single write lock is held until commit, so no other writer (connection or process) can claim the same rows.";

export class SqliteCompiler extends SqlCompiler {
  constructor(capabilities: DialectCapabilities) {
    super("SQLite", capabilities, sqliteCodec);
  }

  protected placeholder(): string {
    return "?";
  }

  /** The table from the pragma table functions (`sqlite_autoindex_*` are the PRIMARY KEY / UNIQUE constraints). */
  protected override describeTableSql(name: string, ctx: CompileContext): string {
    return (
      `SELECT 'column' AS kind, c.name AS name, c.name AS column_name, 0 AS is_unique, c.cid + 1 AS position FROM pragma_table_info(${this.bind(name, undefined, ctx)}) c ` +
      `UNION ALL SELECT 'index', il.name, ii.name, il."unique", ii.seqno + 1 FROM pragma_index_list(${this.bind(name, undefined, ctx)}) il, pragma_index_info(il.name) ii ORDER BY 1, 2, 5`
    );
  }

  protected nowSql(): string {
    return `${ISO_NOW})`;
  }

  protected nowPlusSecondsSql(seconds: string): string {
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

  /** A relation load's owner keys: one JSON array parameter, unpacked by json_each (see inList). */
  protected override relationKeysSql(column: string, key: ColumnMeta, keys: readonly unknown[], ctx: CompileContext): string {
    const json = key.kind === "bytes" ? undefined : jsonArrayText(keys.map((v) => this.encodeParam(v, key)));
    if (json === undefined) return super.relationKeysSql(column, key, keys, ctx);
    return `${column} IN (SELECT value FROM json_each(${this.bind(json, undefined, ctx)}))`;
  }

  /** SQLite has no default LIKE escape character; PostgreSQL and MySQL use backslash, so say so. */
  protected override likeSql(left: string, right: string): string {
    return `${left} LIKE ${right} ESCAPE '\\'`;
  }

  /** ASCII case folding, like SQLite's own LIKE; other letters need the ICU extension. */
  protected override ilikeSql(left: string, right: string): string {
    return `LOWER(${left}) LIKE LOWER(${right}) ESCAPE '\\'`;
  }

  /** SQLite has no OFFSET without LIMIT; a negative LIMIT means none. */
  protected override limitOffset(limit: number | undefined, offset: number | undefined): string {
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
  protected override lockClause(lock: LockClause): string {
    return this.unsupported(lock.strength === "update" ? "row locks (forUpdate)" : "shared row locks (forShare)", NO_ROW_LOCKS_HINT);
  }

  // ---- typed expressions (see ExpressionCompiler) -----------------------------------------
  protected override expressionTypeSql(kind: ColumnKind): string {
    switch (kind) {
      case "integer":
      case "bigint":
      case "boolean":
        return "INTEGER";
      case "real":
        return "REAL";
      default:
        return "TEXT";
    }
  }

  /** Numbers bind typed (a JavaScript number would be a REAL); everything else is stored as it binds. */
  protected override typedParamSql(sql: string, kind: ColumnKind): string {
    return kind === "integer" || kind === "bigint" || kind === "real" ? `CAST(${sql} AS ${this.expressionTypeSql(kind)})` : sql;
  }

  /** Integers are 64-bit already. */
  protected override wideIntegerSql(sql: string): string {
    return sql;
  }

  /**
   * SQLite goes on in floating point when an integer + - * / leaves the 64-bit range (where
   * PostgreSQL and MySQL raise); the result is read once, in a subquery, and a float there raises
   * "integer overflow" (abs() of the minimum integer, SQLite's own error for it), so a comparison or
   * an order never reads the rounded value. The subquery is the way to name the value once without
   * writing its text (and binding its placeholders) twice.
   */
  protected override checkedIntegerSql(sql: string): string {
    return `(SELECT CASE WHEN typeof(v) = 'real' THEN abs(-9223372036854775807 - 1 + 0 * length(v)) ELSE v END FROM (SELECT ${sql} AS v))`;
  }

  /** CAST to INTEGER truncates toward zero. */
  protected override truncateToIntegerSql(sql: string): string {
    return `CAST(${sql} AS INTEGER)`;
  }

  protected override extremeSkipsNulls(): boolean {
    return false;
  }

  /** The scalar MAX / MIN of several arguments: NULL when any is. */
  protected override extremeSql(fn: "greatest" | "least", args: readonly string[]): string {
    return `${fn === "greatest" ? "MAX" : "MIN"}(${args.join(", ")})`;
  }

  // ---- dates and times: ISO-8601 UTC text, read and written by strftime -------------------------
  protected override datetimeTruncSql(unit: TruncUnit, value: SqlPart): string {
    // The Monday on or before the day: back six days, then forward to the next Monday (or stay).
    if (unit === "week") return `strftime('%Y-%m-%dT00:00:00.000Z', ${value()}, '-6 days', 'weekday 1')`;
    return `strftime('${SQLITE_TRUNC[unit]}', ${value()})`;
  }

  /** ISO weeks by their Thursday (which lies in the week's ISO year): %V and %G need SQLite 3.46. */
  protected override datetimeFieldSql(field: Exclude<DatetimeField, "epoch">, value: SqlPart): string {
    switch (field) {
      case "isoDayOfWeek":
        return `((CAST(strftime('%w', ${value()}) AS INTEGER) + 6) % 7 + 1)`;
      case "isoWeek":
        return `((CAST(strftime('%j', ${value()}, '-3 days', 'weekday 4') AS INTEGER) - 1) / 7 + 1)`;
      case "isoYear":
        return `CAST(strftime('%Y', ${value()}, '-3 days', 'weekday 4') AS INTEGER)`;
      default:
        return `CAST(strftime('${SQLITE_FIELD[field]}', ${value()}) AS INTEGER)`;
    }
  }

  /** julianday counts whole milliseconds inside; rounding undoes the floating point of the day fraction. */
  protected override epochMillisSql(value: SqlPart): string {
    return `CAST(ROUND((julianday(${value()}) - 2440587.5) * 86400000) AS INTEGER)`;
  }

  /** A strftime modifier; 'floor' makes January 31 plus a month February's last day (SQLite 3.46). */
  protected override datetimeShiftSql(value: SqlPart, amount: SqlPart, unit: IntervalUnit): string {
    const v = value();
    // `||` binds tighter than arithmetic: the amount is parenthesized.
    const n = `(${amount()})`;
    switch (unit) {
      case "milliseconds":
        return `${ISO_FORMAT}, ${v}, (${n} / 1000.0) || ' seconds')`;
      case "weeks":
        return `${ISO_FORMAT}, ${v}, (${n} * 7) || ' days')`;
      case "months":
        return `${ISO_FORMAT}, ${v}, ${n} || ' months', 'floor')`;
      case "years":
        return `${ISO_FORMAT}, ${v}, ${n} || ' years', 'floor')`;
      case "seconds":
      case "minutes":
      case "hours":
      case "days":
        return `${ISO_FORMAT}, ${v}, ${n} || '${SQLITE_UNIT[unit]}')`;
      default:
        return this.unsupported(`the interval unit ${String(unit)}`, "Use one of the units fn.addInterval takes.");
    }
  }

  /**
   * strftime answers NULL past year 9999 but goes on into year 0 and below ('-001-12-31...'), which
   * sort before the sentinel as text.
   */
  protected override datetimeInRangeSql(sql: string): string {
    const low = "'0000-12-31T23:59:59.999Z'";
    return `NULLIF(MAX(${sql}, ${low}), ${low})`;
  }

  protected columnType(column: ColumnDefinition): string {
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

  // ---- schema changes ---------------------------------------------------------------------
  /**
   * SQLite's ADD COLUMN takes the column constraints inline (its foreign key as REFERENCES) and
   * refuses what it cannot add to a table that has rows (https://www.sqlite.org/lang_altertable.html):
   * those are refused here by name, before anything runs.
   */
  protected override addColumnSql(table: string, added: AddedColumn): string {
    const { column, foreignKey } = added;
    const what = `adding ${table}.${column.name} with ALTER TABLE ADD COLUMN`;
    const rebuild = "Add the column with a table rebuild (rebuildTable), or";
    if (column.unique) {
      this.unsupported(`${what} UNIQUE`, `${rebuild} add it without UNIQUE and then a unique index on it (createIndex).`);
    }
    if (column.generated?.stored) this.unsupported(`${what} as a STORED generated column`, `${rebuild} make it VIRTUAL.`);
    if (column.default?.kind === "sql") {
      this.unsupported(`${what} and an expression default`, `${rebuild} give it a constant default and set the value with an update.`);
    }
    if (column.notNull && column.default === null && column.generated === null) {
      this.unsupported(`${what} NOT NULL without a default`, `${rebuild} give it a default.`);
    }
    if (foreignKey && column.default !== null) {
      this.unsupported(
        `${what}, a foreign key and a default`,
        `${rebuild} add it without the default (SQLite requires NULL as the default of a REFERENCES column it adds).`,
      );
    }
    const definition = this.addedDefinition(table, added);
    let sql = `ALTER TABLE ${this.quoteIdentifier(table)} ADD COLUMN ${this.columnSql(column, definition)}`;
    const check = this.columnCheckSql(definition);
    if (check) sql += ` ${check}`;
    if (foreignKey) {
      sql += ` REFERENCES ${this.quoteIdentifier(foreignKey.referencedTable)} (${this.quoteIdentifier(foreignKey.referencedColumns[0] as string)})${this.onDeleteSql(foreignKey)}`;
    }
    return sql;
  }

  /** A column with UNIQUE, or part of the primary key, cannot be dropped by ALTER TABLE. */
  protected override changeSteps(change: SchemaChange): SchemaStep[] {
    if (change.kind === "dropColumn" && change.column.unique) {
      this.unsupported(
        `dropping the UNIQUE column ${change.table}.${change.column.name} with ALTER TABLE DROP COLUMN`,
        "Rebuild the table without it (rebuildTable).",
      );
    }
    return super.changeSteps(change);
  }

  /** Foreign keys are not enforced during a rebuild; the pragma is a no-op inside a transaction, so it runs before. */
  protected override rebuildPrologueSql(): readonly string[] {
    return ["PRAGMA foreign_keys = OFF"];
  }

  protected override rebuildGuardSql(): string {
    return "SELECT 'foreign_keys is still ON inside the rebuild: its first step (PRAGMA foreign_keys = OFF) must run outside the transaction, or dropping the old table would delete or cascade to the rows that reference it' AS problem FROM pragma_foreign_keys WHERE foreign_keys = 1";
  }

  protected override foreignKeyCheckSql(): string {
    return "PRAGMA foreign_key_check";
  }

  /**
   * With foreign keys on, SQLite's DROP TABLE first deletes every row: ON DELETE CASCADE then deletes
   * the rows of the tables that reference it (which PostgreSQL and MySQL keep: their plans drop the
   * references first), and a referencing table whose other foreign key names a table already dropped
   * fails it ("no such table"). A migration drops a table only once the tables that keep referencing
   * it are dropped or rebuilt in the same plan, so it is dropped with foreign keys off, as a rebuild
   * does, and they are turned on again after.
   */
  protected override dropTableSteps(change: DropTableChange): SchemaStep[] {
    return [
      ...this.rebuildPrologueSql().map((sql) => this.ddlStep(change, sql, { transactional: false })),
      this.ddlStep(change, this.rebuildGuardSql(), { failsOnRows: true }),
      this.ddlStep(change, `DROP TABLE ${this.quoteIdentifier(change.table.name)}`),
      this.ddlStep(change, "PRAGMA foreign_keys = ON", { transactional: false, restores: true }),
    ];
  }

  /**
   * The driver turns foreign keys on for every connection: a rebuild leaves them on again; and
   * legacy_alter_table off, as it is by default, should the rename that turned it on have failed.
   */
  protected override rebuildEpilogueSql(): readonly string[] {
    return ["PRAGMA foreign_keys = ON", "PRAGMA legacy_alter_table = OFF"];
  }

  /**
   * The table's triggers (step 3 and 9 of https://www.sqlite.org/lang_altertable.html#otheralter):
   * DROP TABLE drops them, so their texts are saved first, in a temporary table of this connection
   * (dropped with the transaction if it rolls back), and run again on the rebuilt table.
   */
  protected override rebuildKeepSql(table: string): { save: readonly string[]; replay: string; discard: readonly string[] } {
    const saved = `temp.${this.quoteIdentifier("tempest_rebuild_triggers")}`;
    const name = `'${table.replaceAll("'", "''")}'`;
    return {
      save: [
        `CREATE TEMP TABLE ${this.quoteIdentifier("tempest_rebuild_triggers")} AS SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ${name} AND sql IS NOT NULL ORDER BY rowid`,
      ],
      replay: `SELECT sql FROM ${saved}`,
      discard: [`DROP TABLE ${saved}`],
    };
  }

  /**
   * Views, and triggers of other tables, that name the table stay as they are: with
   * legacy_alter_table on, RENAME neither rewrites nor re-checks them (otherwise it fails, "error in
   * view v: no such table", as the old table is gone by then), and they name the new table once it
   * has the old name. Turned off again at once, inside the rebuild's transaction.
   */
  protected override rebuildRenameSql(from: string, to: string): readonly string[] {
    return ["PRAGMA legacy_alter_table = ON", this.renameTableSql(from, to), "PRAGMA legacy_alter_table = OFF"];
  }

  /** SQLite has no uuid function: `defaultRandom()` columns are filled by the insert builder. */
  protected override randomUuidSql(): undefined {
    return undefined;
  }
}
