import type { AggregateOfNode } from "../ast/expression-node.js";
import { isTypedExpression } from "../ast/is-typed-expression.js";
import type { QueryParts } from "../ast/query-node.js";
import { outerJoinedAliases, readsOuterJoined } from "../ast/row-nesting.js";
import type { SelectNode } from "../ast/statement-node.js";
import type { FrameBoundNode, OffsetFunctionNode, WindowKeyNode, WindowNode, WindowSpecNode } from "../ast/window-node.js";
import { ValidationError } from "../errors.js";
import type { CompileContext } from "./compiled-query.js";
import type { Over } from "./compiler-base.js";
import { exhaustive } from "./compiler-base.js";
import { CteCompiler } from "./cte-compiler.js";
import { KEY_TOKEN } from "./select-compiler.js";

const RANKING_SQL = { rowNumber: "ROW_NUMBER()", rank: "RANK()", denseRank: "DENSE_RANK()" } as const;

/**
 * The window layer: `fn(...) OVER (PARTITION BY ... ORDER BY ... frame)`. A window's ORDER BY sorts
 * by the select's own rules (enum in declaration order, NULL as the largest value), so ranks, lags
 * and running sums agree on every database.
 */
export abstract class WindowCompiler extends CteCompiler {
  /** An aggregate over an expression (ExpressionCompiler), with ` OVER (...)` after each of its aggregate calls. */
  protected abstract aggregateOf(node: AggregateOfNode, ctx: CompileContext, over?: Over): string;

  /** The parts of the select being written (its windows' keys may come from outer-joined sources). */
  #parts: QueryParts | undefined;
  /** The distinct windows of the select being written, by their text. */
  #windows: Set<string> | undefined;

  protected override composedSelect(node: SelectNode, parts: QueryParts, ctx: CompileContext): string {
    const previous = this.#parts;
    const previousWindows = this.#windows;
    this.#parts = parts;
    this.#windows = undefined;
    try {
      const sql = super.composedSelect(node, parts, ctx);
      const windows = this.#windows as Set<string> | undefined;
      if (windows !== undefined && windows.size > this.capabilities.windowsPerSelect) {
        this.unsupported(
          `${windows.size} different windows in one select (at most ${this.capabilities.windowsPerSelect})`,
          "Give the window functions one window (the same partitionBy and orderBy), or run one select per window and combine the rows by key in the application.",
        );
      }
      return sql;
    } finally {
      this.#parts = previous;
      this.#windows = previousWindows;
    }
  }

  protected window(node: WindowNode, ctx: CompileContext): string {
    if (!this.capabilities.windowFunctions) {
      this.unsupported(
        "window functions (OVER)",
        "Upgrade the server (MySQL 8, MariaDB 10.2, SQLite 3.25), or compute ranks and running totals in the application.",
      );
    }
    // Written afresh where each OVER stands: its keys may bind values (an expression's), which must
    // come in the order of the text, after the function's own arguments.
    const over = () => {
      const spec = this.windowSpec(node.spec, ctx);
      this.#windows ??= new Set();
      this.#windows.add(spec);
      return ` OVER (${spec})`;
    };
    const fn = node.fn;
    switch (fn.kind) {
      case "ranking":
        return `${RANKING_SQL[fn.fn]}${over()}`;
      case "offsetFunction":
        return this.offsetFunction(fn, over, ctx);
      case "aggregate":
        if (fn.distinct)
          this.unsupported("COUNT(DISTINCT ...) over a window", "Count distinct values per partition in a grouped select and join it.");
        return this.aggregate(fn, ctx, over);
      case "aggregateOf":
        if (fn.distinct)
          this.unsupported("DISTINCT aggregates over a window", "Aggregate distinct values per partition in a grouped select and join it.");
        return this.aggregateOf(fn, ctx, over);
      default:
        return exhaustive(fn);
    }
  }

  /**
   * LAG / LEAD. Without a default argument in the dialect (MariaDB) the default is written as a CASE:
   * the same function of a constant is NULL exactly where no row is that far away, so a NULL the
   * column holds stays NULL (COALESCE would replace it), and the window stays the same one.
   */
  protected offsetFunction(fn: OffsetFunctionNode, over: Over, ctx: CompileContext): string {
    const name = fn.fn === "lag" ? "LAG" : "LEAD";
    // A field as the existing statements write it; an expression as any value (NULL where its operands make it so).
    const value = fn.value;
    const arg = () => (value.kind === "sourceColumn" ? this.column(value.column, ctx) : this.value(value, ctx));
    if (fn.fallback === undefined) return `${name}(${arg()}, ${fn.offset})${over()}`;
    if (this.capabilities.windowOffsetDefault) return `${name}(${arg()}, ${fn.offset}, ${this.value(fn.fallback, ctx)})${over()}`;
    return `CASE WHEN ${name}(1, ${fn.offset})${over()} IS NULL THEN ${this.value(fn.fallback, ctx)} ELSE ${name}(${arg()}, ${fn.offset})${over()} END`;
  }

  protected windowSpec(spec: WindowSpecNode, ctx: CompileContext): string {
    const parts: string[] = [];
    if (spec.partitionBy.length > 0) parts.push(`PARTITION BY ${spec.partitionBy.map((k) => this.value(k.value, ctx)).join(", ")}`);
    if (spec.orderBy.length > 0) parts.push(`ORDER BY ${spec.orderBy.map((k) => this.windowOrderKey(k, ctx)).join(", ")}`);
    const frame = spec.frame;
    if (frame) {
      const caps = this.capabilities;
      if (frame.unit === "groups" && !caps.windowGroups) {
        this.unsupported("GROUPS window frames", "Use a rows frame, or a range frame over a key without ties.");
      }
      if (frame.unit === "range" && (frame.start.offset !== undefined || frame.end.offset !== undefined)) {
        if (!caps.windowRangeOffset) this.unsupported("RANGE window frames with an offset", "Use a rows frame, or upgrade the server.");
        const key = spec.orderBy[0] as WindowKeyNode;
        if (this.#nullable(key)) {
          throw new ValidationError(
            `a range frame with an offset orders by ${key.sort.table}.${key.sort.field}, which an outer join can make NULL; use a rows frame`,
          );
        }
      }
      parts.push(`${frame.unit.toUpperCase()} BETWEEN ${frameBoundSql(frame.start)} AND ${frameBoundSql(frame.end)}`);
    }
    return parts.join(" ");
  }

  /** One ORDER BY key of a window, sorted as the select's ORDER BY sorts (see SelectCompiler.orderItems). */
  protected windowOrderKey(key: WindowKeyNode, ctx: CompileContext): string {
    // A key that binds values (an expression's) is written where KEY_TOKEN stands, afresh each time:
    // the NULL-placement rules may write it twice (`k IS NULL, k`), and each copy binds its own values.
    const typed = isTypedExpression(key.value);
    const value = typed ? KEY_TOKEN : this.value(key.value, ctx);
    const sorted = key.sort.kind === "enum" ? this.enumKey(key.sort, value) : value;
    let sql: string;
    if (key.nulls !== undefined) sql = this.orderKey(sorted, key.direction, key.nulls);
    else sql = this.#nullable(key) ? this.nullsLargestSql(sorted, key.direction) : `${sorted} ${key.direction === "asc" ? "ASC" : "DESC"}`;
    if (!typed) return sql;
    const pieces = sql.split(KEY_TOKEN);
    let written = pieces[0] as string;
    for (let p = 1; p < pieces.length; p++) written += this.value(key.value, ctx) + pieces[p];
    return written;
  }

  #nullable(key: WindowKeyNode): boolean {
    if (!key.sort.notNull && !key.sort.primaryKey) return true;
    const parts = this.#parts;
    if (parts === undefined) return false;
    const outer = outerJoinedAliases(parts);
    return key.value.kind === "sourceColumn" ? outer.has(key.sort.table) : readsOuterJoined(key.value, outer);
  }
}

function frameBoundSql(bound: FrameBoundNode): string {
  switch (bound.bound) {
    case "unboundedPreceding":
      return "UNBOUNDED PRECEDING";
    case "preceding":
      return `${bound.offset} PRECEDING`;
    case "currentRow":
      return "CURRENT ROW";
    case "following":
      return `${bound.offset} FOLLOWING`;
    case "unboundedFollowing":
      return "UNBOUNDED FOLLOWING";
    default:
      return exhaustive(bound.bound);
  }
}
