import type { CteNode } from "../ast/cte-node.js";
import type { NestedGroup, QueryParts, RowNesting, SelectionNode } from "../ast/query-node.js";
import type { SelectNode, StatementNode } from "../ast/statement-node.js";
import type { PlaceholderNode } from "../ast/value-node.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { TableMeta } from "../schema/table-meta.js";

/** A statement ready for a driver. `columns` is the shape of returned rows (absent for raw SQL). */
export interface CompiledQuery {
  readonly sql: string;
  readonly params: readonly unknown[];
  readonly kind: StatementNode["kind"];
  readonly columns: readonly ColumnMeta[] | undefined;
  /** A joined select's rows: one object per source (see RowNesting); undefined: flat rows. */
  readonly nesting?: RowNesting | undefined;
}

/** Mutable state of one compilation. */
export interface CompileContext {
  readonly params: unknown[];
  /** DDL: values become literals, because DDL takes no parameters. */
  readonly inline: boolean;
  /** Qualify column names with their table (inside an upsert's DO UPDATE). */
  readonly qualify: boolean;
  /** The statement's table, for `sql.ref()` / `sql.excluded()`. */
  readonly table: { readonly name: string; readonly byField: ReadonlyMap<string, ColumnMeta> } | undefined;
  /**
   * Where the placeholders of a prepared statement went among the parameters; undefined outside
   * `compilePrepared`, where a placeholder is refused.
   */
  readonly slots?: PlaceholderSlot[] | undefined;
  /** Inside HAVING: the projection, whose result columns are each written as their selection's expression. */
  readonly outputs: readonly SelectionNode[] | undefined;
  /** The CTEs an enclosing WITH already declares: a nested select reads them without declaring them again. */
  readonly ctes?: ReadonlySet<CteNode> | undefined;
  /** Inside a subquery (where a data-modifying CTE may not be declared). */
  readonly nested?: boolean | undefined;
}

/** One placeholder of a prepared statement: the parameter (0-based) its value is bound as. */
export interface PlaceholderSlot {
  readonly index: number;
  readonly node: PlaceholderNode;
}

export function newContext(inline: boolean, table: TableMeta | undefined, slots?: PlaceholderSlot[]): CompileContext {
  return { params: [], inline, qualify: false, table, outputs: undefined, slots, ctes: undefined, nested: undefined };
}

/**
 * The same compilation with other qualification and outputs (its parameters are the same array).
 * Written out as a literal of one shape: V8 copies a spread object several times slower.
 */
export function contextWith(ctx: CompileContext, qualify: boolean, outputs: readonly SelectionNode[] | undefined): CompileContext {
  return {
    params: ctx.params,
    inline: ctx.inline,
    qualify,
    table: ctx.table,
    outputs,
    slots: ctx.slots,
    ctes: ctx.ctes,
    nested: ctx.nested,
  };
}

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

export function tableOf(node: StatementNode): TableMeta | undefined {
  return node.kind === "rawStatement" || node.kind === "compound" ? undefined : node.table;
}

/** The shape of the rows a statement returns: its projection or RETURNING list (none for raw SQL). */
export function resultColumns(node: StatementNode): readonly ColumnMeta[] | undefined {
  switch (node.kind) {
    case "select":
    case "compound":
      return node.columns;
    case "insert":
    case "update":
    case "delete":
      return node.returning;
    case "rawStatement":
      return node.columns;
    default:
      return undefined;
  }
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
