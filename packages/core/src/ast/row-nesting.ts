import type { ColumnMeta } from "../schema/column-meta.js";
import type { NestedGroup, QueryParts, RowNesting } from "./query-node.js";
import type { SelectNode } from "./statement-node.js";
import type { ValueNode } from "./value-node.js";
import { findInTree, isNestedQuery } from "./walk-tree.js";

const nestings = new WeakMap<readonly ColumnMeta[], RowNesting>();

/** How a joined select's rows nest (one object per source), or undefined for flat rows; made once per projection. */
export function nestingOf(node: SelectNode): RowNesting | undefined {
  const parts = node.parts;
  if (!parts || parts.selections || parts.joins.length === 0 || !parts.root) return undefined;
  let nesting = nestings.get(node.columns);
  if (nesting) return nesting;
  const groups: NestedGroup[] = [];
  const nullable = outerJoinedAliases(parts);
  let start = 0;
  for (const source of [parts.root, ...parts.joins.map((j) => j.source)]) {
    const end = start + source.columns.length;
    // A source is null when its primary key is (an outer join found no row); without one, when its first column is.
    const key = source.primaryKey[0] ?? source.columns[0];
    const nullAt = nullable.has(source.alias) && key ? start + source.columns.indexOf(key) : -1;
    groups.push(Object.freeze({ key: source.alias, start, end, nullAt }));
    start = end;
  }
  nesting = Object.freeze({ groups: Object.freeze(groups) });
  nestings.set(node.columns, nesting);
  return nesting;
}

/**
 * How a relation level's rows nest: the related row's columns, then the link after them, as
 * `{ row, link }`, so the row decodes exactly as a plain select's. Made once per projection, in the
 * same cache as the joined selects' nestings (the two never share a projection).
 */
export function linkedRowNesting(columns: readonly ColumnMeta[]): RowNesting {
  let nesting = nestings.get(columns);
  if (nesting === undefined) {
    const n = columns.length - 1;
    nesting = Object.freeze({
      groups: Object.freeze([
        Object.freeze({ key: "row", start: 0, end: n, nullAt: -1 }),
        Object.freeze({ key: "link", start: n, end: n + 1, nullAt: -1 }),
      ]),
    });
    nestings.set(columns, nesting);
  }
  return nesting;
}

/** The aliases of a query's sources that an outer join can fill with NULLs. */
export function outerJoinedAliases(parts: QueryParts): ReadonlySet<string> {
  const nullable = new Set<string>();
  const seen: string[] = parts.root ? [parts.root.alias] : [];
  for (const join of parts.joins) {
    if (join.join === "right" || join.join === "full") for (const alias of seen) nullable.add(alias);
    if (join.join === "left" || join.join === "full") nullable.add(join.source.alias);
    seen.push(join.source.alias);
  }
  return nullable;
}

/**
 * Whether a computed value reads a column of an outer-joined source (outside its subqueries): its
 * declared type may say NOT NULL, but the row an outer join did not find makes it NULL (`x + 1`).
 */
export function readsOuterJoined(node: ValueNode, outer: ReadonlySet<string>): boolean {
  if (outer.size === 0) return false;
  return (
    findInTree(
      node,
      (n) => (n.kind === "sourceColumn" && outer.has(n.column.table) ? true : undefined),
      (n) => !isNestedQuery(n),
    ) === true
  );
}
