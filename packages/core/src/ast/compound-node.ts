import type { ColumnMeta } from "../schema/column-meta.js";
import type { OrderByItem, SelectNode } from "./statement-node.js";

export type SetOperator = "union" | "intersect" | "except";

/** A part of a set operation: a select, or another set operation (grouped as it was built). */
export type SetOperand = SelectNode | CompoundNode;

/**
 * `left UNION [ALL] right` (or INTERSECT / EXCEPT), built left to right: `a.union(b).except(c)` is
 * `(a UNION b) EXCEPT c` on every database, whatever its operator precedence. `columns` are the
 * outputs (the first part's names and kinds, nullable where any part is); ORDER BY / LIMIT / OFFSET
 * apply to the whole result and name those outputs.
 */
export interface CompoundNode {
  readonly kind: "compound";
  readonly op: SetOperator;
  readonly all: boolean;
  readonly left: SetOperand;
  readonly right: SetOperand;
  readonly columns: readonly ColumnMeta[];
  readonly orderBy: readonly OrderByItem[];
  readonly limit: number | undefined;
  readonly offset: number | undefined;
}

export function compoundNode(
  op: SetOperator,
  all: boolean,
  left: SetOperand,
  right: SetOperand,
  columns: readonly ColumnMeta[],
  orderBy: readonly OrderByItem[],
  limit: number | undefined,
  offset: number | undefined,
): CompoundNode {
  return Object.freeze({
    kind: "compound",
    op,
    all,
    left: Object.freeze(left),
    right: Object.freeze(right),
    columns: Object.freeze(columns),
    orderBy: Object.freeze(orderBy),
    limit,
    offset,
  });
}

/** The selects of a set operation, left to right. */
export function partsOf(node: SetOperand): SelectNode[] {
  return node.kind === "select" ? [node] : [...partsOf(node.left), ...partsOf(node.right)];
}
