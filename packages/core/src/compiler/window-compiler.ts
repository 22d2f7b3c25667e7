import type { QueryParts } from "../ast/query-node.js";
import { outerJoinedAliases } from "../ast/row-nesting.js";
import type { SelectNode } from "../ast/statement-node.js";
import type { FrameBoundNode, OffsetFunctionNode, WindowKeyNode, WindowNode, WindowSpecNode } from "../ast/window-node.js";
import { ValidationError } from "../errors.js";
import type { CompileContext } from "./compiled-query.js";
import { exhaustive } from "./compiler-base.js";
import { CteCompiler } from "./cte-compiler.js";

const RANKING_SQL = { rowNumber: "ROW_NUMBER()", rank: "RANK()", denseRank: "DENSE_RANK()" } as const;

/**
 * The window layer: `fn(...) OVER (PARTITION BY ... ORDER BY ... frame)`. A window's ORDER BY sorts
 * by the select's own rules (enum in declaration order, NULL as the largest value), so ranks, lags
 * and running sums agree on every database.
 */
export abstract class WindowCompiler extends CteCompiler {
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
    const spec = this.windowSpec(node.spec, ctx);
    this.#windows ??= new Set();
    this.#windows.add(spec);
    const over = ` OVER (${spec})`;
    const fn = node.fn;
    switch (fn.kind) {
      case "ranking":
        return `${RANKING_SQL[fn.fn]}${over}`;
      case "offsetFunction":
        return this.offsetFunction(fn, over, ctx);
      case "aggregate":
        if (fn.distinct)
          this.unsupported("COUNT(DISTINCT ...) over a window", "Count distinct values per partition in a grouped select and join it.");
        return this.aggregate(fn, ctx, over);
      default:
        return exhaustive(fn);
    }
  }

  /**
   * LAG / LEAD. Without a default argument in the dialect (MariaDB) the default is written as a CASE:
   * the same function of a constant is NULL exactly where no row is that far away, so a NULL the
   * column holds stays NULL (COALESCE would replace it), and the window stays the same one.
   */
  protected offsetFunction(fn: OffsetFunctionNode, over: string, ctx: CompileContext): string {
    const name = fn.fn === "lag" ? "LAG" : "LEAD";
    const arg = this.column(fn.column, ctx);
    if (fn.fallback === undefined) return `${name}(${arg}, ${fn.offset})${over}`;
    if (this.capabilities.windowOffsetDefault) return `${name}(${arg}, ${fn.offset}, ${this.value(fn.fallback, ctx)})${over}`;
    return `CASE WHEN ${name}(1, ${fn.offset})${over} IS NULL THEN ${this.value(fn.fallback, ctx)} ELSE ${name}(${arg}, ${fn.offset})${over} END`;
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
    const value = this.value(key.value, ctx);
    const sorted = key.sort.kind === "enum" ? this.enumKey(key.sort, value) : value;
    if (key.nulls !== undefined) return this.orderKey(sorted, key.direction, key.nulls);
    return this.#nullable(key) ? this.nullsLargestSql(sorted, key.direction) : `${sorted} ${key.direction === "asc" ? "ASC" : "DESC"}`;
  }

  #nullable(key: WindowKeyNode): boolean {
    if (!key.sort.notNull && !key.sort.primaryKey) return true;
    const parts = this.#parts;
    return key.value.kind === "sourceColumn" && parts !== undefined && outerJoinedAliases(parts).has(key.sort.table);
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
