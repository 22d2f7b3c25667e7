import type { ColumnMeta } from "../schema/column-meta.js";
import type { RelationMeta } from "../schema/relation-meta.js";
import type { RowNesting } from "./query-node.js";
import type { SelectNode } from "./statement-node.js";

/**
 * What `.with()` / `.withCount()` ask a select to load beside its rows: per relation the select of
 * the related rows (its where, order and limit / offset per owner row) and what to load under them.
 */
export interface RelationPlan {
  readonly kind: "relationPlan";
  readonly loads: readonly RelationLoad[];
  readonly counts: readonly RelationCount[];
}

export interface RelationLoad {
  readonly kind: "relationLoad";
  readonly relation: RelationMeta;
  /** The related rows' select (a plain select of the related model, frozen). */
  readonly select: SelectNode;
  readonly plan: RelationPlan | undefined;
}

export interface RelationCount {
  readonly kind: "relationCount";
  readonly relation: RelationMeta;
  /** The related rows counted: a plain select of the related model, whose where alone is used. */
  readonly select: SelectNode;
}

/**
 * One level of a relation load: the related rows (or their count) for a list of owner keys, bound as
 * ONE parameter whatever their number (see the compiler's relationKeysSql), so the statement's text
 * and parameter count do not grow with the owner rows.
 */
export interface RelationSelectNode {
  readonly kind: "relationSelect";
  readonly relation: RelationMeta;
  readonly select: SelectNode;
  /** Distinct owner key values, as JavaScript values (encoded by the compiler). */
  readonly keys: readonly unknown[];
  readonly count: boolean;
  /** Whether the link value is a column of its own after the related row's columns (see linkOutput). */
  readonly linkColumn: boolean;
  /** The result columns: the related row's columns (plus the link), or the link and the count. */
  readonly columns: readonly ColumnMeta[];
  readonly nesting: RowNesting | undefined;
}

export function relationPlan(loads: readonly RelationLoad[], counts: readonly RelationCount[]): RelationPlan {
  return Object.freeze({ kind: "relationPlan", loads: Object.freeze(loads), counts: Object.freeze(counts) });
}

export function relationLoad(relation: RelationMeta, select: SelectNode, plan: RelationPlan | undefined): RelationLoad {
  return Object.freeze({ kind: "relationLoad", relation, select, plan });
}

export function relationCount(relation: RelationMeta, select: SelectNode): RelationCount {
  return Object.freeze({ kind: "relationCount", relation, select });
}

export function relationSelectNode(
  relation: RelationMeta,
  select: SelectNode,
  keys: readonly unknown[],
  count: boolean,
  linkColumn: boolean,
  columns: readonly ColumnMeta[],
  nesting: RowNesting | undefined,
): RelationSelectNode {
  return Object.freeze({ kind: "relationSelect", relation, select, keys, count, linkColumn, columns, nesting });
}
