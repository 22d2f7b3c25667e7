import type { SchemaChange, SchemaSnapshot } from "tempest-db-js";
import { exhaustive } from "tempest-db-js";
import { applyChange } from "./apply-change.js";
import { changeLabel } from "./change-label.js";
import { DestructiveChangeError } from "./destructive-change-error.js";
import { destructiveMarksOf } from "./destructive-marks.js";
import { refusedMarks } from "./diff-schemas.js";
import type { MigrationPlan, PlannedChange } from "./migration-plan.js";

/** The change that undoes `change`, or null for one that leaves nothing to undo (VALIDATE CONSTRAINT). */
export function inverseChange(change: SchemaChange): SchemaChange | null {
  switch (change.kind) {
    case "createTable":
      return { kind: "dropTable", table: change.table };
    case "dropTable":
      // Its indexes were part of the dropped table; reversePlan recreates them after it.
      return { kind: "createTable", table: { ...change.table, indexes: [] } };
    case "renameTable":
      return { kind: "renameTable", from: change.to, to: change.from };
    case "addColumn":
      return { kind: "dropColumn", table: change.table, column: change.column, keyed: change.keyed };
    case "dropColumn":
      return { kind: "addColumn", table: change.table, column: change.column, keyed: change.keyed };
    case "renameColumn":
      return { kind: "renameColumn", table: change.table, from: change.to, to: change.from };
    case "alterColumn":
      return {
        kind: "alterColumn",
        table: change.table,
        from: change.to,
        to: change.from,
        keyed: change.keyedBefore ?? change.keyed,
        keyedBefore: change.keyed,
      };
    case "createIndex":
      return { kind: "dropIndex", table: change.table, index: change.index, concurrently: change.concurrently };
    case "dropIndex":
      return { kind: "createIndex", table: change.table, index: change.index, concurrently: change.concurrently };
    case "addForeignKey":
      return { kind: "dropForeignKey", table: change.table, foreignKey: change.foreignKey };
    case "dropForeignKey":
      return { kind: "addForeignKey", table: change.table, foreignKey: change.foreignKey, notValid: false };
    case "addCheck":
      return { kind: "dropCheck", table: change.table, name: change.name, notNullOf: change.notNullOf };
    case "dropCheck":
      return { kind: "addCheck", table: change.table, name: change.name, notNullOf: change.notNullOf, notValid: false };
    case "validateConstraint":
      return null;
    case "addUniqueConstraint":
      // Dropping the constraint drops the index it was built from.
      return { kind: "alterColumn", table: change.table, from: { ...change.column, unique: true }, to: change.column };
    case "rebuildTable": {
      const columnMap: Record<string, string | null> = {};
      const backwards = new Map(Object.entries(change.columnMap).flatMap(([next, old]) => (old === null ? [] : [[old, next] as const])));
      for (const column of change.before.columns) columnMap[column.name] = backwards.get(column.name) ?? null;
      return { kind: "rebuildTable", before: change.after, after: change.before, columnMap };
    }
    default:
      return exhaustive(change);
  }
}

export interface ReverseOptions {
  /** As in diffSchemas; absent, the down plan is returned with its marks and nothing is refused. */
  readonly allowDestructive?: readonly string[] | "all";
}

/**
 * The down plan: each change undone, last first, so it runs from `plan.to` back to `plan.from`.
 * Drops carry what they dropped, so every plan reverses in structure; data a drop removed does not
 * come back, and the down plan's own marks (a reversed create table is a drop table) say so.
 */
export function reversePlan(plan: MigrationPlan, options: ReverseOptions = {}): MigrationPlan {
  const inverses: SchemaChange[] = [];
  // The schema as the down plan goes, so a dropped foreign key or index carries its table as it is then (see DropForeignKeyChange.owner).
  let state: SchemaSnapshot | undefined = plan.to;
  const push = (inverse: SchemaChange) => {
    const owned = inverse.kind === "dropForeignKey" || inverse.kind === "dropIndex";
    const owner = owned ? state?.tables.find((t) => t.name === inverse.table) : undefined;
    const change: SchemaChange = owner && owned ? { ...inverse, owner } : inverse;
    inverses.push(change);
    try {
      state = state && applyChange(state, change);
    } catch {
      state = undefined; // a plan written by hand the snapshot cannot follow: the keys go without their owner
    }
  };
  for (const planned of [...plan.changes].reverse()) {
    const change = planned.change;
    const inverse = inverseChange(change);
    if (inverse !== null) push(inverse);
    if (change.kind === "dropTable") {
      for (const index of change.table.indexes) push({ kind: "createIndex", table: change.table.name, index, concurrently: false });
    }
  }
  // A drop the down plan recreates under the same name (an index whose columns changed) loses nothing.
  const recreated = new Set(
    inverses.flatMap((c) =>
      c.kind === "createIndex" ? [`index ${c.index.name}`] : c.kind === "addForeignKey" ? [`fk ${c.table}.${c.foreignKey.name}`] : [],
    ),
  );
  const changes: PlannedChange[] = inverses.map((change) => {
    const replaced =
      (change.kind === "dropIndex" && recreated.has(`index ${change.index.name}`)) ||
      (change.kind === "dropForeignKey" && recreated.has(`fk ${change.table}.${change.foreignKey.name}`));
    return { change, label: changeLabel(change), destructive: destructiveMarksOf(change, replaced) };
  });
  const reversed: MigrationPlan = { dialect: plan.dialect, from: plan.to, to: plan.from, changes, hints: [] };
  if (options.allowDestructive !== undefined) {
    const refused = refusedMarks(reversed, options.allowDestructive);
    if (refused.length > 0) throw new DestructiveChangeError(refused, reversed);
  }
  return reversed;
}
