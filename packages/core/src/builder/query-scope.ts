import type { JoinKind, QueryParts, SourceMeta } from "../ast/query-node.js";
import type { SelectNode } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { ModelClass } from "../schema/model.js";
import type { TableMeta } from "../schema/table-meta.js";
import { internColumns } from "./result-columns.js";

/**
 * The names a select's clauses may use: the root's fields unqualified, and `alias.field` for every
 * named source. Shaped like a table for resolveWhere, which thus takes `"c.name"` like any field.
 * Depends only on the sources and the kinds of their joins, never on a join's condition: one frozen
 * scope per such sequence, shared by every query over it (see joinScope).
 */
export interface QueryScope {
  readonly model: ModelClass;
  readonly name: string;
  readonly byField: ReadonlyMap<string, ColumnMeta>;
  readonly sources: readonly SourceMeta[];
  /** Every column of every source, root first: the projection of a select without `.columns()`. */
  readonly columns: readonly ColumnMeta[];
}

/** Scopes of a root source alone. */
const rootScopes = new WeakMap<SourceMeta, QueryScope>();
/**
 * A scope's scopes one join further, per joined source and join kind. Weak on the source too: a
 * derived source (a CTE's) may be made per query.
 */
const joinScopes = new WeakMap<QueryScope, WeakMap<SourceMeta, Partial<Record<JoinKind, QueryScope>>>>();

/** The scope of a select: its table when it names no source, else the shared scope of its sources. */
export function scopeOf(node: SelectNode): QueryScope | TableMeta {
  const parts = node.parts;
  if (!parts || (!parts.root && parts.joins.length === 0)) return node.table;
  // Joins need a named root (addJoin refuses them otherwise): a scope without one is made afresh.
  if (!parts.root) return makeScope(node.table, parts.root, parts.joins);
  let scope = rootScope(node.table, parts.root);
  for (const join of parts.joins) scope = joinScope(scope, join.join, join.source);
  return scope;
}

/** The scope of `table` under the root alias `root`, no join yet. */
export function rootScope(table: TableMeta, root: SourceMeta): QueryScope {
  let scope = rootScopes.get(root);
  if (!scope) {
    scope = makeScope(table, root, []);
    rootScopes.set(root, scope);
  }
  return scope;
}

/** `scope` with `source` joined by a `join` join. */
export function joinScope(scope: QueryScope, join: JoinKind, source: SourceMeta): QueryScope {
  let bySource = joinScopes.get(scope);
  let byKind = bySource?.get(source);
  const cached = byKind?.[join];
  if (cached) return cached;
  const origin = origins.get(scope) as ScopeOrigin;
  const next = makeScope(origin.table, origin.root, [...origin.joins, { join, source }]);
  if (!bySource) joinScopes.set(scope, (bySource = new WeakMap()));
  if (!byKind) bySource.set(source, (byKind = {}));
  byKind[join] = next;
  return next;
}

interface ScopeJoin {
  readonly join: JoinKind;
  readonly source: SourceMeta;
}

/** What a scope was made of, for the scopes one join further. */
interface ScopeOrigin {
  readonly table: TableMeta;
  readonly root: SourceMeta | undefined;
  readonly joins: readonly ScopeJoin[];
}
const origins = new WeakMap<QueryScope, ScopeOrigin>();

function makeScope(table: TableMeta, root: SourceMeta | undefined, joins: readonly ScopeJoin[]): QueryScope {
  const sources: SourceMeta[] = root ? [root] : [];
  for (const join of joins) sources.push(join.source);
  const byField = new Map<string, ColumnMeta>();
  // Unqualified names are the root's, under its alias when it has one.
  for (const column of root ? root.columns : table.columns) byField.set(column.field, column);
  for (const source of sources) for (const column of source.columns) byField.set(`${source.alias}.${column.field}`, column);
  const scope: QueryScope = Object.freeze({
    model: table.model,
    name: table.name,
    byField,
    sources: Object.freeze(sources),
    columns: projection(table, root, joins),
  });
  origins.set(scope, { table, root, joins });
  return scope;
}

/** Every column of every source, root first; the list keys the row decoder, which also knows which sources may be null. */
function projection(table: TableMeta, root: SourceMeta | undefined, joins: readonly ScopeJoin[]): readonly ColumnMeta[] {
  if (joins.length === 0) return root ? root.columns : table.columns;
  const columns: ColumnMeta[] = root ? [...root.columns] : [];
  for (const join of joins) columns.push(...join.source.columns);
  return internColumns(columns, `nested:${[...nullableOf(root, joins)].join(",")}`);
}

/** The aliases an outer join can make null. */
export function nullableOf(root: SourceMeta | undefined, joins: readonly ScopeJoin[]): Set<string> {
  const nullable = new Set<string>();
  const seen: string[] = root ? [root.alias] : [];
  for (const join of joins) {
    if (join.join === "right" || join.join === "full") for (const alias of seen) nullable.add(alias);
    if (join.join === "left" || join.join === "full") nullable.add(join.source.alias);
    seen.push(join.source.alias);
  }
  return nullable;
}

/** The column a reference names (`field` of the root, or `alias.field`), refused by name when there is none. */
export function refColumn(scope: QueryScope | TableMeta, ref: unknown, at: string | (() => string)): ColumnMeta {
  const column = typeof ref === "string" ? scope.byField.get(ref) : undefined;
  if (column) return column;
  // Worded only for the error (a function when the caller's description is built from its arguments).
  const where = typeof at === "string" ? at : at();
  if (typeof ref !== "string") throw new ValidationError(`${where}: a field reference is a string ("field" or "alias.field")`);
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
