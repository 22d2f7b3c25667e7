import type { CteNode } from "../ast/cte-node.js";
import type { RowNesting, SelectionNode } from "../ast/query-node.js";
import type { StatementNode } from "../ast/statement-node.js";
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

export function tableOf(node: StatementNode): TableMeta | undefined {
  return node.kind === "rawStatement" || node.kind === "compound"
    ? undefined
    : node.kind === "relationSelect"
      ? node.select.table
      : node.table;
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
    case "relationSelect":
      return node.columns;
    default:
      return undefined;
  }
}
