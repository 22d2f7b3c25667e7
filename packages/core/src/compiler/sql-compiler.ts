import type { ConditionNode, InListNode, InSubqueryNode } from "../ast/condition-node.js";
import type {
  Assignment,
  ConflictClause,
  DeleteNode,
  InsertNode,
  LockClause,
  SelectNode,
  StatementNode,
  UpdateNode,
} from "../ast/statement-node.js";
import type { ValueNode } from "../ast/value-node.js";
import type { DialectCapabilities } from "../dialect/capabilities.js";
import { UnsupportedFeatureError, ValidationError } from "../errors.js";
import { expressionNode } from "../expression/expression.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { TableMeta } from "../schema/table-meta.js";
import { textProblem, valueTextProblem } from "./check-text.js";
import { CompiledCache } from "./compiled-cache.js";
import type { CompileContext, CompiledQuery } from "./compiled-query.js";
import { newContext, resultColumns, tableOf } from "./compiled-query.js";
import { compileCreateIndex, compileCreateTable } from "./ddl.js";
import { formatLiteral } from "./format-literal.js";
import { ValuesTexts } from "./values-texts.js";

/** Statements whose text is made only of checked parts (see compile). */
const DML: ReadonlySet<StatementNode["kind"]> = new Set(["select", "insert", "update", "delete", "rawStatement"]);

export interface BeginOptions {
  readonly isolation?: "read uncommitted" | "read committed" | "repeatable read" | "serializable" | undefined;
  readonly readOnly?: boolean | undefined;
}

/**
 * Walks the AST once and writes standard SQL, asking the dialect's hooks for every difference.
 * A dialect subclasses it and overrides only what differs; where the AST asks for something the
 * capability table lacks, compilation throws UnsupportedFeatureError and nothing reaches the server.
 */
export abstract class SqlCompiler {
  readonly dialectName: string;
  readonly capabilities: DialectCapabilities;
  readonly #compiled = new CompiledCache();
  /** Texts of all-parameter INSERTs, per shape (see valuesRows). */
  readonly #valuesTexts = new ValuesTexts();
  /** Table and column names, quoted once: they come from model metadata, so the set is bounded. */
  readonly #quotedNames = new Map<string, string>();
  /** Column lists (SELECT, RETURNING, INSERT) per frozen column array. */
  readonly #columnLists = new WeakMap<readonly ColumnMeta[], string>();

  constructor(dialectName: string, capabilities: DialectCapabilities) {
    this.dialectName = dialectName;
    this.capabilities = capabilities;
  }

  // ---- hooks every dialect provides -------------------------------------------------------
  /** The placeholder for the n-th parameter (1-based). */
  abstract placeholder(index: number): string;
  /** SQL for the current time, comparable with stored datetimes. */
  abstract nowSql(): string;
  /** SQL for the current time shifted by `seconds` (an SQL fragment, usually a placeholder). */
  abstract nowPlusSecondsSql(seconds: string): string;
  /** The column type in CREATE TABLE. `table` tells, e.g., whether the column is part of an index. */
  abstract columnType(column: ColumnMeta, table: TableMeta): string;

  // ---- hooks with standard defaults -------------------------------------------------------
  quoteIdentifier(name: string): string {
    if (name.includes("\0")) throw new ValidationError(`Identifier ${JSON.stringify(name)} contains NUL`);
    return `"${name.replaceAll('"', '""')}"`;
  }

  /** A JavaScript value into what the driver should bind. `column` is undefined for free values. */
  encodeParam(value: unknown, _column: ColumnMeta | undefined): unknown {
    return value;
  }

  /** A driver value into the column's JavaScript type. */
  decodeValue(value: unknown, _column: ColumnMeta): unknown {
    return value;
  }

  /**
   * True when encodeParam returns this column's non-object values (strings, numbers, booleans,
   * bigints) and null unchanged, so a bulk insert can bind them without the call.
   */
  encodesAsIs(_column: ColumnMeta): boolean {
    return this.encodeParam === SqlCompiler.prototype.encodeParam;
  }

  /** True when the driver already delivers this column's JavaScript value, so decoding can skip it. */
  decodesAsIs(_column: ColumnMeta): boolean {
    return this.decodeValue === SqlCompiler.prototype.decodeValue;
  }

  /** The statement that sends a notification (`listenNotify` dialects): two parameters, channel and payload. */
  notifySql(): string | undefined {
    return undefined;
  }

  /** A value written into DDL (defaults, index predicates). */
  literal(value: unknown, column: ColumnMeta | undefined): string {
    return formatLiteral(this.encodeParam(value, column), false);
  }

  beginStatements(options: BeginOptions): string[] {
    const modes = [options.isolation && `ISOLATION LEVEL ${options.isolation.toUpperCase()}`, options.readOnly && "READ ONLY"];
    return [["BEGIN", ...modes.filter(Boolean)].join(" ")];
  }

  savepointSql(name: string): string {
    return `SAVEPOINT ${this.quoteIdentifier(name)}`;
  }

  releaseSavepointSql(name: string): string {
    return `RELEASE SAVEPOINT ${this.quoteIdentifier(name)}`;
  }

  rollbackToSavepointSql(name: string): string {
    return `ROLLBACK TO SAVEPOINT ${this.quoteIdentifier(name)}`;
  }

  /** `quoteIdentifier` of a table or column name from model metadata, memoized per compiler. */
  quoteName(name: string): string {
    let quoted = this.#quotedNames.get(name);
    if (quoted === undefined) {
      quoted = this.quoteIdentifier(name);
      this.#quotedNames.set(name, quoted);
    }
    return quoted;
  }

  unsupported(feature: string, hint: string): never {
    throw new UnsupportedFeatureError(this.dialectName, feature, hint);
  }

  // ---- entry point ------------------------------------------------------------------------
  compile(node: StatementNode): CompiledQuery {
    const cached = this.#compiled.get(node);
    if (cached) return cached;
    const ctx = newContext(node.kind === "createTable" || node.kind === "createIndex", tableOf(node));
    const sql = this.statement(node, ctx);
    // SQL text enters through sql.raw / sql.expr and model names, each checked where it enters;
    // DDL also quotes names given to its functions directly, so its whole text is checked here.
    if (!DML.has(node.kind)) {
      const problem = textProblem(sql, false);
      if (problem) throw new ValidationError(`The SQL text ${problem}: an identifier put it there. Pass data as a value.`);
    }
    if (ctx.params.length > this.capabilities.maxParams) {
      throw new ValidationError(
        `${this.dialectName} takes at most ${this.capabilities.maxParams} parameters per statement; this one has ${ctx.params.length}. Insert in smaller batches.`,
      );
    }
    const compiled: CompiledQuery = Object.freeze({
      sql,
      params: Object.freeze(ctx.params),
      kind: node.kind,
      columns: resultColumns(node),
    });
    this.#compiled.remember(node, compiled);
    return compiled;
  }

  statement(node: StatementNode, ctx: CompileContext): string {
    switch (node.kind) {
      case "select":
        return this.select(node, ctx);
      case "insert":
        return this.insert(node, ctx);
      case "update":
        return this.update(node, ctx);
      case "delete":
        return this.delete(node, ctx);
      case "rawStatement":
        return this.value(node.expression, ctx);
      case "createTable":
        return compileCreateTable(this, node, ctx);
      case "createIndex":
        return compileCreateIndex(this, node, ctx);
      case "dropTable":
        return `DROP TABLE ${node.ifExists ? "IF EXISTS " : ""}${this.quoteIdentifier(node.table.name)}`;
      default:
        return exhaustive(node);
    }
  }

  // ---- statements -------------------------------------------------------------------------
  select(node: SelectNode, ctx: CompileContext): string {
    let sql = `SELECT ${this.columnList(node.columns)} FROM ${this.quoteName(node.table.name)}`;
    sql += this.whereClause(node.where, ctx);
    if (node.orderBy.length > 0) {
      sql += " ORDER BY ";
      for (let i = 0; i < node.orderBy.length; i++) {
        const o = node.orderBy[i] as (typeof node.orderBy)[number];
        sql += `${i === 0 ? "" : ", "}${this.quoteName(o.column.name)} ${o.direction === "asc" ? "ASC" : "DESC"}`;
      }
    }
    sql += this.limitOffset(node.limit, node.offset);
    if (node.lock) sql += ` ${this.lockClause(node.lock)}`;
    return sql;
  }

  insert(node: InsertNode, ctx: CompileContext): string {
    let sql = `${this.insertKeyword(node)} ${this.quoteName(node.table.name)}`;
    if (node.columns.length === 0) {
      sql += ` ${this.defaultValuesSql()}`;
    } else {
      sql += ` (${this.columnList(node.columns)}) VALUES `;
      const values = this.valuesRows(node, ctx);
      if (!node.conflict && !node.returning) return this.#valuesTexts.whole(sql, values);
      sql += values;
    }
    if (node.conflict) sql += this.conflictClause(node.conflict, ctx);
    return sql + this.returningClause(node.returning, "insert");
  }

  update(node: UpdateNode, ctx: CompileContext): string {
    let sql = `UPDATE ${this.quoteName(node.table.name)} SET ${this.assignments(node.set, ctx)}`;
    sql += this.whereClause(node.where, ctx);
    return sql + this.returningClause(node.returning, "update");
  }

  delete(node: DeleteNode, ctx: CompileContext): string {
    let sql = `DELETE FROM ${this.quoteName(node.table.name)}`;
    sql += this.whereClause(node.where, ctx);
    return sql + this.returningClause(node.returning, "delete");
  }

  // ---- clauses ----------------------------------------------------------------------------
  columnList(columns: readonly ColumnMeta[]): string {
    let list = this.#columnLists.get(columns);
    if (list === undefined) {
      list = columns.map((c) => this.quoteName(c.name)).join(", ");
      if (Object.isFrozen(columns)) this.#columnLists.set(columns, list);
    }
    return list;
  }

  assignments(set: readonly Assignment[], ctx: CompileContext): string {
    // A loop rather than map/join: no array per statement.
    let sql = "";
    for (let i = 0; i < set.length; i++) {
      const a = set[i] as Assignment;
      sql += `${i === 0 ? "" : ", "}${this.quoteName(a.column.name)} = ${this.value(a.value, ctx)}`;
    }
    return sql;
  }

  whereClause(where: ConditionNode | undefined, ctx: CompileContext): string {
    return where ? ` WHERE ${this.condition(where, ctx, true)}` : "";
  }

  limitOffset(limit: number | undefined, offset: number | undefined): string {
    return (limit === undefined ? "" : ` LIMIT ${limit}`) + (offset === undefined ? "" : ` OFFSET ${offset}`);
  }

  insertKeyword(_node: InsertNode): string {
    return "INSERT INTO";
  }

  defaultValuesSql(): string {
    return "DEFAULT VALUES";
  }

  lockClause(lock: LockClause): string {
    const caps = this.capabilities;
    const txHint = "Claim inside transaction() instead: on this dialect the write transaction is exclusive.";
    if (lock.strength === "update" && !caps.rowLocks) this.unsupported("row locks (forUpdate)", txHint);
    if (lock.strength === "share" && !caps.shareLocks) this.unsupported("shared row locks (forShare)", txHint);
    if (lock.wait === "skipLocked" && !caps.skipLocked)
      this.unsupported("SKIP LOCKED", "Upgrade the server (MySQL 8, MariaDB 10.6+) or claim one row at a time.");
    if (lock.wait === "noWait" && !caps.noWait) this.unsupported("NOWAIT", "Upgrade the server or use a lock timeout.");
    if (lock.of.length > 0 && !caps.lockOf)
      this.unsupported("FOR UPDATE OF", "Drop { of }: on a single-table query every selected row is locked anyway.");
    let sql = this.lockStrengthSql(lock.strength);
    if (lock.of.length > 0) sql += ` OF ${lock.of.map((t) => this.quoteName(t)).join(", ")}`;
    if (lock.wait === "skipLocked") sql += " SKIP LOCKED";
    if (lock.wait === "noWait") sql += " NOWAIT";
    return sql;
  }

  lockStrengthSql(strength: LockClause["strength"]): string {
    return strength === "update" ? "FOR UPDATE" : "FOR SHARE";
  }

  returningClause(columns: readonly ColumnMeta[] | undefined, statement: "insert" | "update" | "delete"): string {
    if (!columns) return "";
    const caps = this.capabilities;
    const supported = statement === "insert" ? caps.returningInsert : statement === "update" ? caps.returningUpdate : caps.returningDelete;
    if (!supported) {
      this.unsupported(
        `RETURNING on ${statement.toUpperCase()}`,
        statement === "update"
          ? "Update inside transaction(), then select the rows by their ids."
          : `Drop .returning() and read the rows with a select (${statement === "insert" ? "ids generated by defaultRandom() are known before the insert" : "select them before deleting, in the same transaction"}).`,
      );
    }
    return ` RETURNING ${this.columnList(columns)}`;
  }

  conflictClause(conflict: ConflictClause, ctx: CompileContext): string {
    const caps = this.capabilities;
    switch (conflict.kind) {
      case "ignoreDuplicates":
        return " ON CONFLICT DO NOTHING";
      case "onDuplicateKey":
        return this.unsupported("ON DUPLICATE KEY UPDATE", "Use onConflictDoUpdate(target, set) on this dialect.");
      case "onConflict": {
        if (conflict.target.length > 0 && !caps.conflictTarget) {
          this.unsupported(
            "a conflict target (ON CONFLICT (columns))",
            "Use onDuplicateKeyUpdate(set) to update, or ignoreDuplicates() to skip: both act on any unique key, so keep one unique key per rule.",
          );
        }
        if (conflict.targetWhere && !caps.conflictTargetWhere) {
          this.unsupported(
            "a conflict target predicate (partial unique index)",
            "Use ignoreDuplicates() or onDuplicateKeyUpdate(set) over a plain unique index.",
          );
        }
        let sql = " ON CONFLICT";
        if (conflict.target.length > 0) sql += ` (${this.columnList(conflict.target)})`;
        if (conflict.targetWhere) sql += ` WHERE ${this.condition(conflict.targetWhere, ctx, true)}`;
        if (conflict.action === "nothing") return `${sql} DO NOTHING`;
        const qualified = { ...ctx, qualify: true };
        sql += ` DO UPDATE SET ${this.assignments(conflict.set, qualified)}`;
        if (conflict.updateWhere) sql += ` WHERE ${this.condition(conflict.updateWhere, qualified, true)}`;
        return sql;
      }
      default:
        return exhaustive(conflict);
    }
  }

  /** `sql.excluded(field)`: the value the insert proposed. */
  excludedSql(column: ColumnMeta): string {
    return `excluded.${this.quoteIdentifier(column.name)}`;
  }

  // ---- conditions -------------------------------------------------------------------------
  column(column: ColumnMeta, ctx: CompileContext): string {
    const name = this.quoteName(column.name);
    return ctx.qualify ? `${this.quoteName(column.table)}.${name}` : name;
  }

  condition(node: ConditionNode, ctx: CompileContext, top = false): string {
    switch (node.kind) {
      case "compare": {
        const left = this.column(node.column, ctx);
        const right = this.value(node.value, ctx);
        if (node.op === "like") return this.likeSql(left, right);
        return node.op === "ilike" ? this.ilikeSql(left, right) : `${left} ${node.op} ${right}`;
      }
      case "inList":
        return this.inList(node, ctx);
      case "inSubquery":
        return this.inSubquery(node, ctx);
      case "isNull":
        return `${this.column(node.column, ctx)} IS ${node.negated ? "NOT NULL" : "NULL"}`;
      case "between":
        return `${this.column(node.column, ctx)} BETWEEN ${this.value(node.low, ctx)} AND ${this.value(node.high, ctx)}`;
      case "and":
      case "or": {
        const separator = node.kind === "and" ? " AND " : " OR ";
        let joined = "";
        for (let i = 0; i < node.items.length; i++) {
          joined += (i === 0 ? "" : separator) + this.condition(node.items[i] as ConditionNode, ctx);
        }
        return top ? joined : `(${joined})`;
      }
      case "not":
        return `NOT (${this.condition(node.item, ctx, true)})`;
      case "constant":
        return node.value ? "1 = 1" : "1 = 0";
      case "expressionCondition":
        return `(${this.value(node.expression, ctx)})`;
      default:
        return exhaustive(node);
    }
  }

  /** `column IN (values)` (never empty: the builder turns `in: []` into a constant). */
  inList(node: InListNode, ctx: CompileContext): string {
    return `${this.column(node.column, ctx)} ${node.negated ? "NOT IN" : "IN"} (${this.valueList(node.values, ctx)})`;
  }

  /** `like` patterns treat `\\` as the escape character on every dialect (`\\%` matches a literal %). */
  likeSql(left: string, right: string): string {
    return `${left} LIKE ${right}`;
  }

  ilikeSql(left: string, right: string): string {
    return `${left} ILIKE ${right}`;
  }

  inSubquery(node: InSubqueryNode, ctx: CompileContext): string {
    this.checkSubquery(node.subquery.select);
    const inner = this.select(node.subquery.select, this.unqualified(ctx));
    return `${this.column(node.column, ctx)} ${node.negated ? "NOT IN" : "IN"} (${inner})`;
  }

  /** The context for a subquery: its columns are never qualified (the same context when they already are not). */
  unqualified(ctx: CompileContext): CompileContext {
    return ctx.qualify ? { ...ctx, qualify: false } : ctx;
  }

  checkSubquery(select: SelectNode): void {
    if ((select.limit !== undefined || select.offset !== undefined) && !this.capabilities.limitInSubquery) {
      this.unsupported(
        "LIMIT inside an IN (SELECT ...) subquery",
        "Claim in two steps: inside transaction(), select the ids with forUpdate(), then update where { id: { in: ids } }.",
      );
    }
  }

  // ---- values -----------------------------------------------------------------------------
  /** Comma-separated values (an IN list). */
  valueList(values: readonly ValueNode[], ctx: CompileContext): string {
    let sql = "";
    for (let i = 0; i < values.length; i++) sql += (i === 0 ? "" : ", ") + this.value(values[i] as ValueNode, ctx);
    return sql;
  }

  value(node: ValueNode, ctx: CompileContext): string {
    switch (node.kind) {
      case "param":
        return this.bind(node.value, node.column, ctx);
      case "raw":
        return node.text;
      case "template":
        return node.strings.reduce((sql, text, i) => {
          if (i === 0) return text;
          const value = node.values[i - 1];
          const nested = expressionNode(value);
          return sql + (nested ? this.value(nested, ctx) : this.bind(value, undefined, ctx)) + text;
        }, "");
      case "now":
        return node.plusSeconds ? this.nowPlusSecondsSql(this.value(node.plusSeconds, ctx)) : this.nowSql();
      case "excluded":
        return this.excludedSql(this.fieldColumn(node.field, ctx, "sql.excluded"));
      case "columnRef":
        return this.column(this.fieldColumn(node.field, ctx, "sql.ref"), ctx);
      default:
        return exhaustive(node);
    }
  }

  bind(value: unknown, column: ColumnMeta | undefined, ctx: CompileContext): string {
    this.#checkText(value, column);
    if (ctx.inline) return this.literal(value, column);
    ctx.params.push(this.encodeParam(value, column));
    return this.placeholder(ctx.params.length);
  }

  #checkText(value: unknown, column: ColumnMeta | undefined): void {
    const problem = valueTextProblem(value, this.capabilities.nulInText);
    if (problem) {
      const what = column ? `the value for ${column.table}.${column.field}` : "a bound value";
      throw new ValidationError(`${this.dialectName}: ${what} ${problem}; nothing was sent.`);
    }
  }

  /**
   * The rows of an INSERT's VALUES. When every cell is a value (the usual bulk insert) the text
   * depends only on the grid's size and where its placeholders start, so it is written once per size
   * and the cells are only checked, encoded and bound. A subclass that overrides value() or bind()
   * gets the cell-by-cell path.
   */
  valuesRows(node: InsertNode, ctx: CompileContext): string {
    const { rowCount, cells, columns, expressions } = node;
    const width = columns.length;
    const start = ctx.params.length;
    const plain =
      expressions.length === 0 && !ctx.inline && this.value === SqlCompiler.prototype.value && this.bind === SqlCompiler.prototype.bind;
    if (!plain) {
      let sql = "";
      // `expressions` ascends with the cells: `next` is the index of the next expression cell.
      for (let r = 0, at = 0, next = 0; r < rowCount; r++) {
        sql += r === 0 ? "(" : ", (";
        for (let c = 0; c < width; c++, at++) {
          const cell = cells[at];
          const expression = expressions[next] === at;
          if (expression) next++;
          const text = expression ? this.value(cell as ValueNode, ctx) : this.bind(cell, columns[c] as ColumnMeta, ctx);
          sql += c === 0 ? text : `, ${text}`;
        }
        sql += ")";
      }
      return sql;
    }
    const params = ctx.params;
    const nulInText = this.capabilities.nulInText;
    // The cells are appended as they are, in bulk. Then, column by column, strings are checked for their
    // text, and what the dialect does not bind unchanged is encoded in place: objects (a Date, JSON,
    // bytes), and every cell of a column encodesAsIs says no for.
    appendAll(params, cells);
    for (let c = 0; c < width; c++) {
      const column = columns[c] as ColumnMeta;
      const asIs = this.encodesAsIs(column);
      for (let at = c; at < cells.length; at += width) {
        const value = cells[at];
        const isObject = typeof value === "object" && value !== null;
        if (typeof value === "string" ? textProblem(value, nulInText) !== undefined : isObject) this.#checkText(value, column);
        if (isObject || !asIs) params[start + at] = this.encodeParam(value, column);
      }
    }
    return this.#valuesTexts.grid(start, rowCount, width, this);
  }

  fieldColumn(field: string, ctx: CompileContext, what: string): ColumnMeta {
    const column = ctx.table?.byField.get(field);
    if (!column) throw new ValidationError(`${what}("${field}"): no such field on the statement's table`);
    return column;
  }
}

/** Items spread per push: a spread puts each item on the stack, which a large VALUES grid would overflow. */
const SPREAD = 4096;

function appendAll(target: unknown[], items: readonly unknown[]): void {
  if (items.length <= SPREAD) target.push(...items);
  else for (let i = 0; i < items.length; i += SPREAD) target.push(...items.slice(i, i + SPREAD));
}

export function exhaustive(node: never): never {
  throw new ValidationError(`Unknown node ${JSON.stringify((node as { kind?: string })?.kind)}`);
}
