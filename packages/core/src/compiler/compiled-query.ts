import type { StatementNode } from "../ast/statement-node.js";
import type { ColumnMeta } from "../schema/column-meta.js";

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
}
