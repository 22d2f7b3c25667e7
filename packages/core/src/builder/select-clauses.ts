import type { SelectionNode } from "../ast/query-node.js";
import { freezeParts } from "../ast/query-node.js";
import type { OrderByItem, SelectNode } from "../ast/statement-node.js";
import { orderByItem, selectNode } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import { describe } from "../expression/assert-bindable.js";
import type { ColumnMeta } from "../schema/column-meta.js";

/*
 * The select builder's clause values: node copies with one field changed, and the sort keys shared
 * by every query asking for them.
 */

/** The selection projected as `key`, if any (a loop: no closure per call). */
export function selectionOf(selections: readonly SelectionNode[] | undefined, key: string): SelectionNode | undefined {
  if (selections === undefined) return undefined;
  for (let i = 0; i < selections.length; i++) {
    const s = selections[i] as SelectionNode;
    if (s.key === key) return s;
  }
  return undefined;
}

/** Freezes a select node, and its parts when they are fresh (see freshQueryParts). */
export function freezeSelect(node: SelectNode): SelectNode {
  if (node.parts !== undefined) freezeParts(node.parts);
  return Object.freeze(node);
}

/** The fields of a select node its builder methods change, one per call. */
type SelectChange = Exclude<keyof SelectNode, "kind" | "table" | "parts">;

/**
 * A copy of a select node with one field changed, written out field by field: V8 takes several times
 * longer to freeze a spread copy than a literal, and a key with its value (rather than an object of
 * changes, one shape per method) keeps every read here monomorphic. The copy is fresh (see FRESH): the
 * new builder freezes it when it hands it out.
 */
export function withSelect<K extends SelectChange>(node: SelectNode, key: K, value: SelectNode[K]): SelectNode {
  return selectNode(
    node.table,
    key === "columns" ? (value as SelectNode["columns"]) : node.columns,
    key === "where" ? (value as SelectNode["where"]) : node.where,
    key === "orderBy" ? (value as SelectNode["orderBy"]) : node.orderBy,
    key === "limit" ? (value as SelectNode["limit"]) : node.limit,
    key === "offset" ? (value as SelectNode["offset"]) : node.offset,
    key === "lock" ? (value as SelectNode["lock"]) : node.lock,
    node.parts,
  );
}

interface SharedOrder {
  readonly item: OrderByItem;
  /** ORDER BY this key alone. */
  readonly alone: readonly OrderByItem[];
}
const orderItems = new WeakMap<ColumnMeta, { asc?: SharedOrder; desc?: SharedOrder }>();

/** The sort key for a column and direction, and the one-key ORDER BY made of it. */
export function orderItem(column: ColumnMeta, direction: "asc" | "desc"): SharedOrder {
  let byDirection = orderItems.get(column);
  if (!byDirection) orderItems.set(column, (byDirection = {}));
  let shared = byDirection[direction];
  if (!shared) {
    const item = orderByItem(column, undefined, direction, undefined);
    shared = { item, alone: Object.freeze([item]) };
    byDirection[direction] = shared;
  }
  return shared;
}

export function nonNegativeInteger(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new ValidationError(`${what} expects a non-negative integer, got ${describe(value)}`);
  return value;
}
