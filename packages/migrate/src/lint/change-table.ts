import type { SchemaChange } from "tempest-db-js";
import { exhaustive } from "tempest-db-js";

/** The table a change acts on (its name when the change runs). */
export function changeTable(change: SchemaChange): string {
  switch (change.kind) {
    case "createTable":
    case "dropTable":
      return change.table.name;
    case "renameTable":
      return change.from;
    case "rebuildTable":
      return change.before.name;
    case "addColumn":
    case "dropColumn":
    case "renameColumn":
    case "alterColumn":
    case "createIndex":
    case "dropIndex":
    case "addForeignKey":
    case "dropForeignKey":
    case "addCheck":
    case "dropCheck":
    case "validateConstraint":
    case "addUniqueConstraint":
      return change.table;
    default:
      return exhaustive(change);
  }
}
