import type { QueryParts, SourceMeta } from "../ast/query-node.js";
import type { SelectNode } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { ModelClass } from "../schema/model.js";
import type { TableMeta } from "../schema/table-meta.js";

/**
 * The names a select's clauses may use: the root's fields unqualified, and `alias.field` for every
 * named source. Shaped like a table for resolveWhere, which thus takes `"c.name"` like any field.
 */
export interface QueryScope {
  readonly model: ModelClass;
  readonly name: string;
  readonly byField: ReadonlyMap<string, ColumnMeta>;
  readonly sources: readonly SourceMeta[];
}

/** Scopes per root source or join list (both frozen and kept by every later copy of the parts). */
const scopes = new WeakMap<object, QueryScope>();

export function scopeOf(node: SelectNode): QueryScope | TableMeta {
  const parts = node.parts;
  if (!parts || (!parts.root && parts.joins.length === 0)) return node.table;
  const key: object = parts.joins.length > 0 ? parts.joins : (parts.root as SourceMeta);
  let scope = scopes.get(key);
  if (!scope) {
    scope = makeScope(node.table, parts);
    scopes.set(key, scope);
  }
  return scope;
}

function makeScope(table: TableMeta, parts: QueryParts): QueryScope {
  const sources: SourceMeta[] = parts.root ? [parts.root] : [];
  for (const join of parts.joins) sources.push(join.source);
  const byField = new Map<string, ColumnMeta>();
  // Unqualified names are the root's, under its alias when it has one.
  for (const column of parts.root ? parts.root.columns : table.columns) byField.set(column.field, column);
  for (const source of sources) for (const column of source.columns) byField.set(`${source.alias}.${column.field}`, column);
  return Object.freeze({ model: table.model, name: table.name, byField, sources: Object.freeze(sources) });
}

/** The column a reference names (`field` of the root, or `alias.field`), refused by name when there is none. */
export function refColumn(scope: QueryScope | TableMeta, ref: unknown, where: string): ColumnMeta {
  if (typeof ref !== "string") throw new ValidationError(`${where}: a field reference is a string ("field" or "alias.field")`);
  const column = scope.byField.get(ref);
  if (column) return column;
  const dot = ref.indexOf(".");
  if (dot > 0 && "sources" in scope && !scope.sources.some((s) => s.alias === ref.slice(0, dot))) {
    throw new ValidationError(
      `${where}: no source is named "${ref.slice(0, dot)}" in this query (${scope.sources.map((s) => s.alias).join(", ")})`,
    );
  }
  throw new ValidationError(`${where}: ${scope.model.name || scope.name} has no field "${ref}"`);
}

/** True when the query names its sources: every column is then written qualified. */
export function isQualified(parts: QueryParts | undefined): boolean {
  return parts !== undefined && (parts.root !== undefined || parts.joins.length > 0);
}
