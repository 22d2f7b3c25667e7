import type { ColumnMeta } from "../schema/column-meta.js";
import type { AggregateOfNode } from "./expression-node.js";
import type { AggregateNode, ValueNode } from "./value-node.js";

/** `ROW_NUMBER()`, `RANK()`, `DENSE_RANK()`: a row's place in its partition's order. */
export interface RankingFunctionNode {
  readonly kind: "ranking";
  readonly fn: "rowNumber" | "rank" | "denseRank";
}

/** `LAG(value, offset[, default])` / `LEAD(...)`: a value of the row `offset` rows before / after in the window's order. */
export interface OffsetFunctionNode {
  readonly kind: "offsetFunction";
  readonly fn: "lag" | "lead";
  /** A source's column, or a typed expression over the row. */
  readonly value: ValueNode;
  /** How the value reads: the source's column, or the expression's result column (see typedResult). */
  readonly column: ColumnMeta;
  readonly offset: number;
  /** The value where no such row exists; undefined: NULL. */
  readonly fallback: ValueNode | undefined;
}

/** What may stand before `OVER (...)`: a ranking or offset function, or an aggregate (of a column, or of an expression). */
export type WindowFunctionNode = RankingFunctionNode | OffsetFunctionNode | AggregateNode | AggregateOfNode;

/**
 * One key of a window's PARTITION BY or ORDER BY. `sort` describes how its values compare (the
 * column itself, an aggregate's or a typed expression's result column): the compiler pins enum order and NULL as the
 * largest value from it, as the select's own ORDER BY does.
 */
export interface WindowKeyNode {
  readonly kind: "windowKey";
  readonly value: ValueNode;
  readonly sort: ColumnMeta;
  readonly direction: "asc" | "desc";
  /** Explicit NULLS FIRST / LAST; undefined: NULL sorts as the largest value. */
  readonly nulls: "first" | "last" | undefined;
}

export type FrameUnit = "rows" | "range" | "groups";

export type FrameBoundKind = "unboundedPreceding" | "preceding" | "currentRow" | "following" | "unboundedFollowing";

export interface FrameBoundNode {
  readonly kind: "frameBound";
  readonly bound: FrameBoundKind;
  /** Rows (or values, or peer groups) before / after the current row; undefined unless `preceding` / `following`. */
  readonly offset: number | undefined;
}

/** `ROWS | RANGE | GROUPS BETWEEN start AND end`. */
export interface WindowFrameNode {
  readonly kind: "windowFrame";
  readonly unit: FrameUnit;
  readonly start: FrameBoundNode;
  readonly end: FrameBoundNode;
}

/** `PARTITION BY ... ORDER BY ... frame`, the inside of `OVER (...)`. */
export interface WindowSpecNode {
  readonly kind: "windowSpec";
  readonly partitionBy: readonly WindowKeyNode[];
  readonly orderBy: readonly WindowKeyNode[];
  readonly frame: WindowFrameNode | undefined;
}

/** `fn OVER (spec)`: a value node, allowed only in a select's projection. */
export interface WindowNode {
  readonly kind: "window";
  readonly fn: WindowFunctionNode;
  readonly spec: WindowSpecNode;
}

// ---- factories: each returns a frozen node -----------------------------------------------------

export function rankingFunctionNode(fn: RankingFunctionNode["fn"]): RankingFunctionNode {
  return Object.freeze({ kind: "ranking", fn });
}

export function offsetFunctionNode(
  fn: OffsetFunctionNode["fn"],
  value: ValueNode,
  column: ColumnMeta,
  offset: number,
  fallback: ValueNode | undefined,
): OffsetFunctionNode {
  return Object.freeze({ kind: "offsetFunction", fn, value, column, offset, fallback });
}

export function windowKeyNode(
  value: ValueNode,
  sort: ColumnMeta,
  direction: WindowKeyNode["direction"],
  nulls: WindowKeyNode["nulls"],
): WindowKeyNode {
  return Object.freeze({ kind: "windowKey", value, sort, direction, nulls });
}

export function frameBoundNode(bound: FrameBoundKind, offset: number | undefined): FrameBoundNode {
  return Object.freeze({ kind: "frameBound", bound, offset });
}

export function windowFrameNode(unit: FrameUnit, start: FrameBoundNode, end: FrameBoundNode): WindowFrameNode {
  return Object.freeze({ kind: "windowFrame", unit, start, end });
}

/** The key lists are frozen here. */
export function windowSpecNode(
  partitionBy: readonly WindowKeyNode[],
  orderBy: readonly WindowKeyNode[],
  frame: WindowFrameNode | undefined,
): WindowSpecNode {
  return Object.freeze({ kind: "windowSpec", partitionBy: Object.freeze([...partitionBy]), orderBy: Object.freeze([...orderBy]), frame });
}

export function windowNode(fn: WindowFunctionNode, spec: WindowSpecNode): WindowNode {
  return Object.freeze({ kind: "window", fn, spec });
}
