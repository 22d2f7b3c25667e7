import type { ColumnMeta } from "../schema/column-meta.js";
import type { TableMeta } from "../schema/table-meta.js";
import type { ConditionNode } from "./condition-node.js";
import type { SelectNode } from "./statement-node.js";
import type { ValueNode } from "./value-node.js";

/**
 * One source of a query under its alias: the model's table, and its columns as the query sees them,
 * each a copy whose `table` is the alias (so the compiler qualifies it as `"alias"."column"`). Made
 * once per table and alias (see schema/source-meta), frozen, shared by every query.
 */
export interface SourceMeta {
  readonly table: TableMeta;
  readonly alias: string;
  readonly columns: readonly ColumnMeta[];
  readonly byField: ReadonlyMap<string, ColumnMeta>;
  readonly primaryKey: readonly ColumnMeta[];
}

export type JoinKind = "inner" | "left" | "right" | "full";

export interface JoinNode {
  readonly kind: "join";
  readonly join: JoinKind;
  readonly source: SourceMeta;
  readonly on: ConditionNode;
}

/** One entry of a computed projection: `value AS "key"`; `result` says how its values decode. */
export interface SelectionNode {
  readonly kind: "selection";
  readonly key: string;
  readonly value: ValueNode;
  readonly result: ColumnMeta;
}

/**
 * What a select has beyond one table and a column list: aliases and joins, a computed projection,
 * DISTINCT, GROUP BY and HAVING. Absent on a plain select, which keeps that path as it was.
 */
export interface QueryParts {
  readonly kind: "queryParts";
  /** The root table under its alias; undefined when the root has none. */
  readonly root: SourceMeta | undefined;
  readonly joins: readonly JoinNode[];
  /** The computed projection; undefined: every column of every source. */
  readonly selections: readonly SelectionNode[] | undefined;
  readonly distinct: boolean;
  readonly groupBy: readonly ValueNode[];
  readonly having: ConditionNode | undefined;
}

/** How rows of a joined select nest: one object per source, keyed by alias (see engine/row-decoder). */
export interface RowNesting {
  readonly groups: readonly NestedGroup[];
}

export interface NestedGroup {
  readonly key: string;
  /** The group's columns are `[start, end)` of the row. */
  readonly start: number;
  readonly end: number;
  /** The index of the column whose NULL makes the group null (its primary key); -1: never null. */
  readonly nullAt: number;
}

// ---- factories ------------------------------------------------------------------------------

export function joinNode(join: JoinKind, source: SourceMeta, on: ConditionNode): JoinNode {
  return Object.freeze({ kind: "join", join, source, on });
}

export function selectionNode(key: string, value: ValueNode, result: ColumnMeta): SelectionNode {
  return Object.freeze({ kind: "selection", key, value, result });
}

export function queryParts(
  root: SourceMeta | undefined,
  joins: readonly JoinNode[],
  selections: readonly SelectionNode[] | undefined,
  distinct: boolean,
  groupBy: readonly ValueNode[],
  having: ConditionNode | undefined,
): QueryParts {
  return Object.freeze({
    kind: "queryParts",
    root,
    joins: Object.freeze(joins),
    selections: selections && Object.freeze(selections),
    distinct,
    groupBy: Object.freeze(groupBy),
    having,
  });
}

/**
 * Parts made for one fresh select node alone (see builder/frozen-node's FRESH), not frozen yet: the
 * builder freezes them with the node, by freezeParts, when it hands the node out. A chain of builder
 * calls thus freezes its parts once instead of once per call.
 */
export function freshQueryParts(
  root: SourceMeta | undefined,
  joins: readonly JoinNode[],
  selections: readonly SelectionNode[] | undefined,
  distinct: boolean,
  groupBy: readonly ValueNode[],
  having: ConditionNode | undefined,
): QueryParts {
  return { kind: "queryParts", root, joins, selections, distinct, groupBy, having };
}

/** Freezes parts from freshQueryParts, with their arrays (each item is frozen where it is made). */
export function freezeParts(parts: QueryParts): QueryParts {
  if (Object.isFrozen(parts)) return parts;
  Object.freeze(parts.joins);
  if (parts.selections) Object.freeze(parts.selections);
  Object.freeze(parts.groupBy);
  return Object.freeze(parts);
}

export const NO_PARTS: QueryParts = queryParts(undefined, [], undefined, false, [], undefined);

/** The select's aliases in scope, root first. */
export function sourcesOf(node: SelectNode): SourceMeta[] {
  const parts = node.parts;
  if (!parts) return [];
  const sources = parts.root ? [parts.root] : [];
  for (const join of parts.joins) sources.push(join.source);
  return sources;
}
