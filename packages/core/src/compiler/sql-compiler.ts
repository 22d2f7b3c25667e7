import { nestingOf } from "../ast/row-nesting.js";
import type { Assignment, ConflictClause, DeleteNode, InsertNode, StatementNode, UpdateNode } from "../ast/statement-node.js";
import type { ValueNode } from "../ast/value-node.js";
import { tooDeep } from "../ast/walk-tree.js";
import { textProblem } from "../codec/check-text.js";
import { ValidationError } from "../errors.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import { CompiledCache } from "./compiled-cache.js";
import type { CompileContext, CompiledQuery, PlaceholderSlot } from "./compiled-query.js";
import { contextWith, newContext, resultColumns, tableOf } from "./compiled-query.js";
import { exhaustive } from "./compiler-base.js";
import { RelationCompiler } from "./relation-compiler.js";
import { StatementShapes } from "./statement-shapes.js";
import { ValuesTexts } from "./values-texts.js";

export { exhaustive } from "./compiler-base.js";

/** Statements whose text is made only of checked parts (see compile). */
const DML: ReadonlySet<StatementNode["kind"]> = new Set([
  "select",
  "compound",
  "insert",
  "update",
  "delete",
  "rawStatement",
  "relationSelect",
]);

export interface BeginOptions {
  readonly isolation?: "read uncommitted" | "read committed" | "repeatable read" | "serializable" | undefined;
  readonly readOnly?: boolean | undefined;
}

/**
 * Walks the AST once and writes standard SQL, asking the dialect's hooks for every difference.
 * A dialect subclasses it and overrides only what differs; where the AST asks for something the
 * capability table lacks, compilation throws UnsupportedFeatureError and nothing reaches the server.
 */
export abstract class SqlCompiler extends RelationCompiler {
  readonly #compiled = new CompiledCache();
  /** Texts of all-parameter INSERTs, per shape (see valuesRows). */
  readonly #valuesTexts = new ValuesTexts();
  /** The placeholder hook for ValuesTexts, made once. */
  readonly #placeholder = (index: number): string => this.placeholder(index);
  /** Texts of the statements builders make again and again, by shape (see StatementShapes). */
  readonly #shapes = new StatementShapes({
    value: (value, column, ctx) => void this.bind(value, column, ctx),
    cells: (node, ctx) => this.#bindCells(node, ctx),
  });
  /**
   * Whether shapes are cached: only for a dialect that declares the capability (its conformance run
   * proves a cached compile equals the full one), and only while values are written by the base
   * hooks, which make a placeholder of every value whatever it is.
   */
  #shaped: boolean | undefined;

  /**
   * The statement that sends a notification (`listenNotify` dialects): two parameters, channel and
   * payload. By default `SELECT` of the dialect's `notifyCallSql` (see expression-compiler.ts).
   */
  notifySql(): string | undefined {
    const call = this.notifyCallSql(this.placeholder(1), this.placeholder(2));
    return call === undefined ? undefined : `SELECT ${call}`;
  }

  beginStatements(options: BeginOptions): string[] {
    const modes = [options.isolation && `ISOLATION LEVEL ${options.isolation.toUpperCase()}`, options.readOnly && "READ ONLY"];
    return [["BEGIN", ...modes.filter(Boolean)].join(" ")];
  }

  /** Ends a transaction; the engine sends it when the callback settled with every statement done. */
  commitSql(): string {
    return "COMMIT";
  }

  /** Undoes a transaction; also sent after a failed COMMIT, which can leave the transaction open (SQLite busy). */
  rollbackSql(): string {
    return "ROLLBACK";
  }

  /**
   * Whether the command tag the driver reports for `commitSql()` says the server rolled back instead:
   * PostgreSQL answers COMMIT in an aborted transaction with the tag ROLLBACK and no error.
   */
  commitRolledBack(tag: string | undefined): boolean {
    return tag === "ROLLBACK";
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

  // ---- entry point ------------------------------------------------------------------------
  compile(node: StatementNode): CompiledQuery {
    const cached = this.#compiled.get(node);
    if (cached) return cached;
    const compiled = this.#compileShaped(node) ?? this.#compileWith(node, undefined);
    this.#compiled.remember(node, compiled);
    return compiled;
  }

  /**
   * A statement of a shape compiled before: that text, with this statement's values bound by the walk
   * that found the shape. A shape seen for the first time is compiled in full and its text kept.
   */
  #compileShaped(node: StatementNode): CompiledQuery | undefined {
    this.#shaped ??=
      this.capabilities.shapeCache &&
      this.value === SqlCompiler.prototype.value &&
      this.bind === SqlCompiler.prototype.bind &&
      this.condition === SqlCompiler.prototype.condition;
    if (!this.#shaped) return undefined;
    const ctx = newContext(false, tableOf(node));
    const level = this.#shapes.find(node, ctx);
    if (level === undefined) return undefined;
    const sql = this.#shapes.text(level);
    if (sql === undefined) {
      const compiled = this.#compileWith(node, undefined);
      this.#shapes.remember(level, compiled.sql);
      return compiled;
    }
    // The same parameters as the full compile, which passed the parameter limit with as many.
    return Object.freeze({ sql, params: Object.freeze(ctx.params), kind: node.kind, columns: resultColumns(node) });
  }

  /**
   * Compiles a statement holding placeholders (engine.prepare): its text, its parameters with an
   * undefined at every placeholder's position, and those positions. Not cached here: the prepared
   * statement keeps it.
   */
  compilePrepared(node: StatementNode): { readonly compiled: CompiledQuery; readonly slots: readonly PlaceholderSlot[] } {
    const slots: PlaceholderSlot[] = [];
    const compiled = this.#compileWith(node, slots);
    return { compiled, slots: Object.freeze(slots) };
  }

  #compileWith(node: StatementNode, slots: PlaceholderSlot[] | undefined): CompiledQuery {
    const ctx = newContext(node.kind === "createTable" || node.kind === "createIndex" || node.kind === "addColumn", tableOf(node), slots);
    let sql: string;
    try {
      sql = this.statement(node, ctx);
    } catch (error) {
      // A tree deep enough to exhaust the stack (the builders refuse the deep nestings they make, see
      // MAX_NESTING): the same typed refusal, never an untyped RangeError.
      if (error instanceof RangeError && /call stack/i.test(error.message)) throw tooDeep(`${node.kind} statement`);
      throw error;
    }
    // SQL text enters through sql.raw / sql.expr and model names, each checked where it enters;
    // DDL also quotes names given to its functions directly, so its whole text is checked here.
    if (!DML.has(node.kind)) {
      const problem = textProblem(sql, false);
      if (problem) throw new ValidationError(`The SQL text ${problem}: an identifier put it there. Pass data as a value.`);
    }
    if (ctx.params.length > this.capabilities.maxParams) {
      throw new ValidationError(
        `${this.dialectName} takes at most ${this.capabilities.maxParams} parameters per statement; this one has ${ctx.params.length}. ${
          node.kind === "insert"
            ? "Insert in smaller batches, inside one transaction."
            : "Never split a select (LIMIT, ORDER BY and notIn would change meaning): put the values in a table and use in: select(...).asSubquery(field)."
        }`,
      );
    }
    const nesting = node.kind === "select" ? nestingOf(node) : node.kind === "relationSelect" ? node.nesting : undefined;
    const params = Object.freeze(ctx.params);
    const columns = resultColumns(node);
    // `nesting` only where rows nest (a joined select), so every other compiled statement keeps its shape.
    return Object.freeze(
      nesting === undefined ? { sql, params, kind: node.kind, columns } : { sql, params, kind: node.kind, columns, nesting },
    );
  }

  protected statement(node: StatementNode, ctx: CompileContext): string {
    switch (node.kind) {
      case "select":
        return this.select(node, ctx);
      case "compound":
        return this.compound(node, ctx);
      case "insert":
        return this.insert(node, ctx);
      case "update":
        return this.update(node, ctx);
      case "delete":
        return this.delete(node, ctx);
      case "rawStatement":
        return node.columns ? this.typedRaw(node.columns, this.value(node.expression, ctx)) : this.value(node.expression, ctx);
      case "createTable":
        return this.createTable(node, ctx);
      case "createIndex":
        return this.createIndex(node, ctx);
      case "dropTable":
        return this.dropTable(node);
      case "addColumn":
        return this.addColumn(node, ctx);
      case "describeTable":
        return this.describeTableSql(node.table.name, ctx);
      case "relationSelect":
        return this.relationSelect(node, ctx);
      default:
        return exhaustive(node);
    }
  }

  // ---- statements -------------------------------------------------------------------------
  protected insert(node: InsertNode, ctx: CompileContext): string {
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

  protected update(node: UpdateNode, ctx: CompileContext): string {
    let sql = `UPDATE ${this.quoteName(node.table.name)} SET ${this.assignments(node.set, ctx)}`;
    sql += this.whereClause(node.where, ctx);
    return sql + this.returningClause(node.returning, "update");
  }

  protected delete(node: DeleteNode, ctx: CompileContext): string {
    let sql = `DELETE FROM ${this.quoteName(node.table.name)}`;
    sql += this.whereClause(node.where, ctx);
    return sql + this.returningClause(node.returning, "delete");
  }

  // ---- clauses ----------------------------------------------------------------------------
  protected assignments(set: readonly Assignment[], ctx: CompileContext): string {
    // A loop rather than map/join: no array per statement.
    let sql = "";
    for (let i = 0; i < set.length; i++) {
      const a = set[i] as Assignment;
      sql += `${i === 0 ? "" : ", "}${this.quoteName(a.column.name)} = ${this.assignedValue(a.value, a.column, ctx)}`;
    }
    return sql;
  }

  protected insertKeyword(_node: InsertNode): string {
    return "INSERT INTO";
  }

  protected defaultValuesSql(): string {
    return "DEFAULT VALUES";
  }

  protected returningClause(columns: readonly ColumnMeta[] | undefined, statement: "insert" | "update" | "delete"): string {
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

  protected conflictClause(conflict: ConflictClause, ctx: CompileContext): string {
    const caps = this.capabilities;
    switch (conflict.kind) {
      case "ignoreDuplicates":
        return " ON CONFLICT DO NOTHING";
      case "onDuplicateKey":
        if (!caps.onDuplicateKey)
          return this.unsupported("ON DUPLICATE KEY UPDATE", "Use onConflictDoUpdate(target, set) on this dialect.");
        return ` ON DUPLICATE KEY UPDATE ${this.assignments(conflict.set, ctx)}`;
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
        const qualified = contextWith(ctx, true, ctx.outputs);
        sql += ` DO UPDATE SET ${this.assignments(conflict.set, qualified)}`;
        if (conflict.updateWhere) sql += ` WHERE ${this.condition(conflict.updateWhere, qualified, true)}`;
        return sql;
      }
      default:
        return exhaustive(conflict);
    }
  }

  /**
   * The rows of an INSERT's VALUES. When every cell is a value (the usual bulk insert) the text
   * depends only on the grid's size and where its placeholders start, so it is written once per size
   * and the cells are only checked, encoded and bound. A subclass that overrides value() or bind()
   * gets the cell-by-cell path.
   */
  protected valuesRows(node: InsertNode, ctx: CompileContext): string {
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
    this.#bindCells(node, ctx);
    return this.#valuesTexts.grid(start, rowCount, width, this.#placeholder);
  }

  /**
   * Binds the cells of an insert whose cells are all values. They are appended as they are, in bulk.
   * Then, column by column, strings are checked for their text, and what the dialect does not bind
   * unchanged is encoded in place: objects (a Date, JSON, bytes), and every cell of a column
   * encodesAsIs says no for.
   */
  #bindCells(node: InsertNode, ctx: CompileContext): void {
    const { cells, columns } = node;
    const width = columns.length;
    const params = ctx.params;
    const start = params.length;
    const nulInText = this.capabilities.nulInText;
    appendAll(params, cells);
    for (let c = 0; c < width; c++) {
      const column = columns[c] as ColumnMeta;
      const asIs = this.codec.encodesAsIs(column);
      for (let at = c; at < cells.length; at += width) {
        const value = cells[at];
        const isObject = typeof value === "object" && value !== null;
        if (typeof value === "string" ? textProblem(value, nulInText) !== undefined : isObject) this.checkText(value, column);
        if (isObject || !asIs) params[start + at] = this.encodeParam(value, column);
      }
    }
  }
}

/** Items spread per push: a spread puts each item on the stack, which a large VALUES grid would overflow. */
const SPREAD = 4096;

function appendAll(target: unknown[], items: readonly unknown[]): void {
  if (items.length <= SPREAD) target.push(...items);
  else for (let i = 0; i < items.length; i += SPREAD) target.push(...items.slice(i, i + SPREAD));
}
