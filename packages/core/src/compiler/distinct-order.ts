import type { QueryParts } from "../ast/query-node.js";
import type { SelectNode } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import type { ColumnMeta } from "../schema/column-meta.js";

/**
 * DISTINCT over whole rows that hold every source's primary key changes nothing (each row is a
 * distinct combination of source rows, an outer join's NULL side included), and is left out: the
 * ORDER BY keys then need not be in the select list.
 */
export function distinctIsNoOp(node: SelectNode, parts: QueryParts): boolean {
  if (parts.selections !== undefined) return false;
  const roots = parts.root ? [parts.root.primaryKey] : [node.table.primaryKey];
  return [...roots, ...parts.joins.map((j) => j.source.primaryKey)].every((key) => key.length > 0);
}

/** The projection key a DISTINCT select's sort reference is shown under; a reference it does not show is refused. */
export function projectedKey(parts: QueryParts, column: ColumnMeta): string {
  const shown = parts.selections?.find((s) => s.value.kind === "sourceColumn" && s.value.column === column);
  if (shown) return shown.key;
  throw new ValidationError(
    `orderBy("${column.table}.${column.field}") on a distinct() select: order by a key of the projection; a column it does not show has no single value per distinct row`,
  );
}
