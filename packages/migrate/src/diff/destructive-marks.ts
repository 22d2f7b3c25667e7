import type { AlterColumnChange, SchemaChange } from "tempest-db-js";
import { exhaustive } from "tempest-db-js";
import { changeLabel } from "./change-label.js";
import type { DestructiveMark } from "./migration-plan.js";
import { sameJson } from "./snapshot-compare.js";
import { narrowingReason } from "./type-widening.js";

/**
 * What makes one logical change destructive: it loses data (a drop), may refuse or alter existing
 * values (a narrowing type, SET NOT NULL, a new UNIQUE), or removes a guarantee or a path the
 * application may rely on (a dropped index or foreign key). `replaced` is true for a drop that the
 * same plan recreates under the same name (an index whose columns change): that loses nothing.
 */
export function destructiveMarksOf(change: SchemaChange, replaced = false): DestructiveMark[] {
  const mark = (reason: string): DestructiveMark[] => [{ label: changeLabel(change), reason }];
  switch (change.kind) {
    case "dropTable":
      return mark("drops the table and every row in it");
    case "dropColumn":
      return mark("drops the column and its data");
    case "dropIndex":
      return replaced
        ? []
        : mark(change.index.unique ? "drops a unique index: duplicates become possible" : "drops an index queries may rely on");
    case "dropForeignKey":
      return replaced ? [] : mark("drops a foreign key: rows may then point at nothing");
    case "alterColumn":
      return alterMarks(change);
    case "createTable":
    case "renameTable":
    case "addColumn":
    case "renameColumn":
    case "createIndex":
    case "addForeignKey":
    case "addCheck":
    case "dropCheck":
    case "validateConstraint":
    case "addUniqueConstraint":
    case "rebuildTable":
      return [];
    default:
      return exhaustive(change);
  }
}

function alterMarks(change: AlterColumnChange): DestructiveMark[] {
  const { from, to } = change;
  const reasons: string[] = [];
  const narrowing = narrowingReason(from, to);
  if (narrowing) reasons.push(narrowing);
  if (to.notNull && !from.notNull) reasons.push("sets NOT NULL: rows holding NULL make it fail");
  if (to.unique && !from.unique) reasons.push("adds a UNIQUE constraint: duplicate values make it fail");
  if (from.unique && !to.unique) reasons.push("drops a UNIQUE constraint: duplicates become possible");
  if (!sameJson(from.generated, to.generated)) reasons.push("changes how a generated column is computed");
  const label = changeLabel(change);
  return reasons.map((reason) => ({ label, reason }));
}
