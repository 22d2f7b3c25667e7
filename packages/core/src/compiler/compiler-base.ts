import { expressionNode } from "../ast/expression.js";
import type { TypedExpressionNode } from "../ast/expression-node.js";
import { isTypedExpression } from "../ast/is-typed-expression.js";
import type { SelectionNode } from "../ast/query-node.js";
import type { SelectNode } from "../ast/statement-node.js";
import type { AggregateNode, PlaceholderNode, ValueNode } from "../ast/value-node.js";
import type { WindowNode } from "../ast/window-node.js";
import { valueTextProblem } from "../codec/check-text.js";
import type { ValueCodec } from "../codec/value-codec.js";
import type { DialectCapabilities } from "../dialect/capabilities.js";
import { UnsupportedFeatureError, ValidationError } from "../errors.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { CompileContext } from "./compiled-query.js";
import { contextWith } from "./compiled-query.js";
import { formatLiteral } from "./format-literal.js";

/**
 * The first layer of the compiler: names, bound values and value expressions. The layers above it
 * (conditions, DDL, statements) each add one concept; a dialect subclasses the top one, SqlCompiler.
 * Everything a dialect may override or call is `protected`; the engine sees only the public entry
 * points of SqlCompiler.
 */
export abstract class CompilerBase {
  readonly dialectName: string;
  readonly capabilities: DialectCapabilities;
  /** The dialect's value codec: how bound values are encoded (rows are decoded by the engine with the same codec). */
  readonly codec: ValueCodec;
  /** Table and column names, quoted once: they come from model metadata, so the set is bounded. */
  readonly #quotedNames = new Map<string, string>();
  /** `"table"."column"` per column (model metadata, or a source's copy of it). */
  readonly #sourceColumns = new WeakMap<ColumnMeta, string>();
  /** Quoted projection keys per result column. */
  readonly #outputNames = new WeakMap<ColumnMeta, string>();

  constructor(dialectName: string, capabilities: DialectCapabilities, codec: ValueCodec) {
    this.dialectName = dialectName;
    this.capabilities = capabilities;
    this.codec = codec;
  }

  // ---- hooks every dialect provides -------------------------------------------------------
  /** The placeholder for the n-th parameter (1-based). */
  protected abstract placeholder(index: number): string;
  /** SQL for the current time, comparable with stored datetimes. */
  protected abstract nowSql(): string;
  /** SQL for the current time shifted by `seconds` (an SQL fragment, usually a placeholder). */
  protected abstract nowPlusSecondsSql(seconds: string): string;

  /** A SELECT (written by the statement layer), for subqueries. */
  protected abstract select(node: SelectNode, ctx: CompileContext): string;

  /** `fn(...) OVER (...)` (written by the window layer). */
  protected abstract window(node: WindowNode, ctx: CompileContext): string;

  /** A typed expression (written by the expression layer). */
  protected abstract typedExpression(node: TypedExpressionNode, ctx: CompileContext): string;

  /** Throws UnsupportedFeatureError naming this dialect, the feature and the way out. */
  unsupported(feature: string, hint: string): never {
    throw new UnsupportedFeatureError(this.dialectName, feature, hint);
  }

  // ---- names ------------------------------------------------------------------------------
  protected quoteIdentifier(name: string): string {
    if (name.includes("\0")) throw new ValidationError(`Identifier ${JSON.stringify(name)} contains NUL`);
    return name.includes('"') ? `"${name.replaceAll('"', '""')}"` : `"${name}"`;
  }

  /** `quoteIdentifier` of a table or column name from model metadata, memoized per compiler. */
  protected quoteName(name: string): string {
    let quoted = this.#quotedNames.get(name);
    if (quoted === undefined) {
      quoted = this.quoteIdentifier(name);
      this.#quotedNames.set(name, quoted);
    }
    return quoted;
  }

  protected column(column: ColumnMeta, ctx: CompileContext): string {
    // HAVING names the projection's keys: each is written as its selection's expression.
    const outputs = ctx.outputs;
    if (outputs !== undefined) {
      for (let i = 0; i < outputs.length; i++) {
        const output = outputs[i] as SelectionNode;
        if (output.result === column) return this.value(output.value, ctx);
      }
    }
    return ctx.qualify ? this.sourceColumn(column) : this.quoteName(column.name);
  }

  /** A column of a named source: always `"alias"."column"`, written once per column. */
  protected sourceColumn(column: ColumnMeta): string {
    let text = this.#sourceColumns.get(column);
    if (text === undefined) {
      text = `${this.quoteName(column.table)}.${this.quoteName(column.name)}`;
      this.#sourceColumns.set(column, text);
    }
    return text;
  }

  /**
   * A projection key as its output name: quoted once per result column (interned per key, see
   * builder/result-columns), whose name is the key.
   */
  protected outputName(result: ColumnMeta): string {
    let text = this.#outputNames.get(result);
    if (text === undefined) {
      text = this.quoteIdentifier(result.name);
      this.#outputNames.set(result, text);
    }
    return text;
  }

  /** A subquery's SELECT: it qualifies its own columns when it names sources; outer aliases are always qualified. */
  protected subquery(select: SelectNode, ctx: CompileContext): string {
    return this.select(select, this.unqualified(ctx));
  }

  /**
   * COUNT / SUM / AVG / MIN / MAX, computed alike on every database (see builder/result-columns).
   * `over` (` OVER (...)`, from the window layer) follows every aggregate call the value is made of;
   * it writes the window afresh at each call, so its bound values come in the order of the text.
   */
  protected aggregate(node: AggregateNode, ctx: CompileContext, over: Over = NO_OVER): string {
    const column = node.column;
    if (column === undefined) return `COUNT(*)${over()}`;
    const arg = this.column(column, ctx);
    if (column.kind === "numeric" && (node.fn === "sum" || node.fn === "avg") && !this.capabilities.exactDecimalAggregates) {
      this.unsupported(
        `${node.fn}() of a numeric column (exact decimal arithmetic)`,
        "This database would compute it in floating point. Store the amounts as integer minor units (cents) and sum those, or aggregate in the application.",
      );
    }
    switch (node.fn) {
      case "count":
        return node.distinct ? `COUNT(DISTINCT ${arg})${over()}` : `COUNT(${arg})${over()}`;
      case "sum":
        return `SUM(${arg})${over()}`;
      case "avg":
        // Numeric: exact, rounded at 30 places on every database (each has its own scale for AVG);
        // integers and reals: in double precision everywhere (MySQL's AVG of integers is a 4-place decimal).
        return column.kind === "numeric"
          ? `ROUND(CAST(SUM(${arg})${over()} AS DECIMAL(65, 30)) / COUNT(${arg})${over()}, 30)`
          : `AVG(${this.floatSql(arg)})${over()}`;
      case "min":
      case "max":
        return column.kind === "enum" ? this.enumExtremeSql(node.fn, column, arg, over) : `${node.fn.toUpperCase()}(${arg})${over()}`;
      default:
        return exhaustive(node.fn);
    }
  }

  /**
   * MIN/MAX of an enum in declaration order, as ORDER BY sorts it: the extreme of the members'
   * positions, mapped back to the member. Each database's own MIN compares the text instead (in the
   * column's collation, which on PostgreSQL is the database's), and MySQL's does so even for ENUM.
   */
  protected enumExtremeSql(fn: "min" | "max", column: ColumnMeta, arg: string, over: Over = NO_OVER): string {
    const values = column.enumValues ?? [];
    let rank = `CASE ${arg}`;
    let member = `CASE ${fn.toUpperCase()}(`;
    for (let i = 0; i < values.length; i++) rank += ` WHEN ${this.literal(values[i], undefined)} THEN ${i}`;
    member += `${rank} END)${over()}`;
    for (let i = 0; i < values.length; i++) member += ` WHEN ${i} THEN ${this.literal(values[i], undefined)}`;
    return `${member} END`;
  }

  /** A number as a double precision value. */
  protected floatSql(sql: string): string {
    return `CAST(${sql} AS DOUBLE PRECISION)`;
  }

  /** The context for a subquery: its columns are never qualified (the same context when they already are not). */
  protected unqualified(ctx: CompileContext): CompileContext {
    return ctx.qualify || ctx.outputs !== undefined ? contextWith(ctx, false, undefined) : ctx;
  }

  protected fieldColumn(field: string, ctx: CompileContext, what: string): ColumnMeta {
    const column = ctx.table?.byField.get(field);
    if (!column) throw new ValidationError(`${what}("${field}"): no such field on the statement's table`);
    return column;
  }

  // ---- values -----------------------------------------------------------------------------
  /** A JavaScript value into what the driver binds (the codec's encoding). */
  protected encodeParam(value: unknown, column: ColumnMeta | undefined): unknown {
    return this.codec.encode(value, column);
  }

  /** A value written into DDL (defaults, index predicates). */
  protected literal(value: unknown, column: ColumnMeta | undefined): string {
    return formatLiteral(this.encodeParam(value, column), false);
  }

  /** Comma-separated values (an IN list). */
  protected valueList(values: readonly ValueNode[], ctx: CompileContext): string {
    let sql = "";
    for (let i = 0; i < values.length; i++) sql += (i === 0 ? "" : ", ") + this.value(values[i] as ValueNode, ctx);
    return sql;
  }

  protected value(node: ValueNode, ctx: CompileContext): string {
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
      case "placeholder":
        return this.placeholderSlot(node, ctx);
      case "sourceColumn":
        return this.sourceColumn(node.column);
      case "aggregate":
        return this.aggregate(node, ctx);
      case "scalarSubquery":
        return `(${this.subquery(node.select, ctx)})`;
      case "exists":
        return `${node.negated ? "NOT EXISTS" : "EXISTS"} (${this.subquery(node.select, ctx)})`;
      case "outputColumn":
        return this.quoteIdentifier(node.key);
      case "window":
        return this.window(node, ctx);
      default:
        if (isTypedExpression(node)) return this.typedExpression(node, ctx);
        return exhaustive(node);
    }
  }

  /**
   * A prepared statement's placeholder: a parameter whose value is bound at execute() (see
   * PreparedStatement). Refused outside engine.prepare, in DDL, and where no column was given to
   * check its value against (inside sql.expr, a like pattern).
   */
  protected placeholderSlot(node: PlaceholderNode, ctx: CompileContext): string {
    const slots = ctx.slots;
    if (slots === undefined || ctx.inline) {
      throw new ValidationError(`placeholder "${node.name}": a placeholder runs only through engine.prepare(...).execute(values)`);
    }
    if (node.column === undefined) {
      throw new ValidationError(
        `placeholder "${node.name}" stands where no column gives its type (inside sql.expr or a pattern); use it as a field's value in where, set or values`,
      );
    }
    ctx.params.push(undefined);
    slots.push({ index: ctx.params.length - 1, node });
    return this.placeholder(ctx.params.length);
  }

  /** `sql.excluded(field)`: the value the insert proposed. */
  protected excludedSql(column: ColumnMeta): string {
    return `excluded.${this.quoteIdentifier(column.name)}`;
  }

  protected bind(value: unknown, column: ColumnMeta | undefined, ctx: CompileContext): string {
    this.checkText(value, column);
    if (ctx.inline) return this.literal(value, column);
    ctx.params.push(this.encodeParam(value, column));
    return this.placeholder(ctx.params.length);
  }

  /**
   * A prepared statement's value for a placeholder at `column`, checked for its text and encoded
   * exactly as bind() does with a literal value there (the builder's own check comes first).
   */
  encodePlaceholderValue(value: unknown, column: ColumnMeta): unknown {
    this.checkText(value, column);
    return this.encodeParam(value, column);
  }

  /** Refuses a value whose text no statement may carry (NUL where the dialect has none, lone surrogates). */
  protected checkText(value: unknown, column: ColumnMeta | undefined): void {
    const problem = valueTextProblem(value, this.capabilities.nulInText);
    if (problem) {
      const what = column ? `the value for ${column.table}.${column.field}` : "a bound value";
      throw new ValidationError(`${this.dialectName}: ${what} ${problem}; nothing was sent.`);
    }
  }
}

/** Writes ` OVER (window)` at its place in the text (binding the window's values there), or nothing. */
export type Over = () => string;
export const NO_OVER: Over = () => "";

/** The default branch of every switch over a node union: a compile error when a kind is left out. */
export function exhaustive(node: never): never {
  throw new ValidationError(`Unknown node ${JSON.stringify((node as { kind?: string })?.kind)}`);
}
