import type { SchemaChange } from "tempest-db-js";
import { exhaustive } from "tempest-db-js";

/**
 * The order a plan runs its changes in, by kind. Each phase only needs what earlier phases did:
 * foreign keys and indexes go before the tables and columns they use, tables are renamed before
 * their columns change, and new foreign keys come last, when every table and column they point at
 * exists. Within a phase the diff orders by dependency where one exists (renames chains, tables
 * that reference each other).
 */
export function planPhase(change: SchemaChange): number {
  switch (change.kind) {
    case "dropForeignKey":
      return 0;
    case "dropIndex":
      return 1;
    case "dropCheck":
      return 2;
    case "dropTable":
      return 3;
    case "renameTable":
      return 4;
    case "dropColumn":
      return 5;
    case "renameColumn":
      return 6;
    case "alterColumn":
      return 7;
    case "addColumn":
      return 8;
    case "createTable":
      return 9;
    case "rebuildTable":
      return 10;
    case "createIndex":
    case "addUniqueConstraint":
      return 11;
    case "addForeignKey":
      return 12;
    case "addCheck":
      return 13;
    case "validateConstraint":
      return 14;
    default:
      return exhaustive(change);
  }
}
