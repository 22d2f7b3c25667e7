import type { SchemaChange } from "tempest-db-js";
import { exhaustive } from "tempest-db-js";

/** A short readable name for a change: what the CLI prints and what `allowDestructive` matches. */
export function changeLabel(change: SchemaChange): string {
  switch (change.kind) {
    case "createTable":
      return `create table ${change.table.name}`;
    case "dropTable":
      return `drop table ${change.table.name}`;
    case "renameTable":
      return `rename table ${change.from} to ${change.to}`;
    case "addColumn":
      return `add column ${change.table}.${change.column.name}`;
    case "dropColumn":
      return `drop column ${change.table}.${change.column.name}`;
    case "renameColumn":
      return `rename column ${change.table}.${change.from} to ${change.to}`;
    case "alterColumn":
      return `alter column ${change.table}.${change.to.name}`;
    case "createIndex":
      return `create index ${change.table}.${change.index.name}`;
    case "dropIndex":
      return `drop index ${change.table}.${change.index.name}`;
    case "addForeignKey":
      return `add foreign key ${change.table}.${change.foreignKey.name}`;
    case "dropForeignKey":
      return `drop foreign key ${change.table}.${change.foreignKey.name}`;
    case "addCheck":
      return `add check ${change.table}.${change.name}`;
    case "dropCheck":
      return `drop check ${change.table}.${change.name}`;
    case "validateConstraint":
      return `validate constraint ${change.table}.${change.name}`;
    case "addUniqueConstraint":
      return `add unique ${change.table}.${change.column.name} from a concurrent index`;
    case "rebuildTable":
      return `rebuild table ${change.after.name}`;
    default:
      return exhaustive(change);
  }
}
