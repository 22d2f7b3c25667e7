import type { SchemaChange, SchemaSnapshot } from "tempest-db-js";

/**
 * Why one change may lose data or fail on existing rows. `label` is the name under which it is
 * allowed (`allowDestructive: ["drop column tickets.legacy"]`): the same on every dialect, whatever
 * statements the change compiles to (a SQLite rebuild carries the marks of the changes it folds).
 */
export interface DestructiveMark {
  readonly label: string;
  readonly reason: string;
}

/** One step of a plan: the change, a readable label, and what makes it destructive (empty when nothing). */
export interface PlannedChange {
  readonly change: SchemaChange;
  /** e.g. `add column tickets.due_at`, `rebuild table tickets`. */
  readonly label: string;
  readonly destructive: readonly DestructiveMark[];
}

/**
 * A likely rename the diff saw but did not assume: a table dropped and one added with the same
 * columns, or a column dropped and one added of the same type. Declared in `renames`, it becomes a
 * rename; the CLI may ask.
 */
export type RenameHint =
  | { readonly kind: "table"; readonly from: string; readonly to: string }
  | { readonly kind: "column"; readonly table: string; readonly from: string; readonly to: string };

/** What `diffSchemas` returns: the ordered changes that turn `from` into `to`. */
export interface MigrationPlan {
  readonly dialect: string;
  readonly from: SchemaSnapshot;
  readonly to: SchemaSnapshot;
  readonly changes: readonly PlannedChange[];
  readonly hints: readonly RenameHint[];
}

/** Every mark in the plan, in plan order. */
export function destructiveMarks(plan: Pick<MigrationPlan, "changes">): DestructiveMark[] {
  return plan.changes.flatMap((planned) => planned.destructive);
}
