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
}

/** One placeholder of a prepared statement: the parameter (0-based) its value is bound as. */
export interface PlaceholderSlot {
  readonly index: number;
  readonly node: PlaceholderNode;
}

export function newContext(inline: boolean, table: TableMeta | undefined, slots?: PlaceholderSlot[]): CompileContext {
  return { params: [], inline, qualify: false, table, slots };
}

export function tableOf(node: StatementNode): TableMeta | undefined {
  return node.kind === "rawStatement" ? undefined : node.table;
}

/** The shape of the rows a statement returns: its projection or RETURNING list (none for raw SQL). */
export function resultColumns(node: StatementNode): readonly ColumnMeta[] | undefined {
  switch (node.kind) {
    case "select":
      return node.columns;
    case "insert":
    case "update":
    case "delete":
      return node.returning;
    default:
      return undefined;
  }
}
