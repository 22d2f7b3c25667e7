import type { AlterCapabilities } from "./alter-capabilities.js";

/**
 * Renames the user declares; the diff never guesses one. Tables: old name → new name. Columns:
 * `"table.old"` → new name, where `table` is the table's name before or after its own rename.
 */
export interface Renames {
  readonly tables?: Readonly<Record<string, string>>;
  readonly columns?: Readonly<Record<string, string>>;
}

export interface DiffOptions {
  readonly renames?: Renames;
  /**
   * Destructive changes allowed by label (`"drop column tickets.legacy"`, `"drop table audit"`,
   * `"alter column tickets.title"`), or "all". Any other destructive change makes diffSchemas throw
   * a DestructiveChangeError.
   */
  readonly allowDestructive?: readonly string[] | "all";
  /** What the target database can ALTER; the default is PostgreSQL's and MySQL's set. */
  readonly capabilities?: Partial<AlterCapabilities>;
}
