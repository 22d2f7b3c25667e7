import type { DropForeignKeyChange } from "tempest-db-js/dialect";

/**
 * The index InnoDB made by itself for a foreign key, to drop with the key: the server keeps it after
 * `DROP FOREIGN KEY`, no model declares it, and the introspector hides it only while the key exists,
 * so a dropped key would otherwise leave an index that slows every write and reads back as drift.
 *
 * InnoDB makes that index only when no index starts with the key's columns, names it after the
 * constraint (`CONSTRAINT name FOREIGN KEY`, as migrations write it) or after the first column (an
 * unnamed key, as createAll writes it), and drops it when an index that can serve the key is created
 * later (measured on MariaDB 10.11). Hence: nothing when the table as it is (`owner`) has an index,
 * primary key or UNIQUE column that serves the key; nothing when another key of the table starts with
 * the same column (the index may be that key's, and the server refuses to drop an index a key needs);
 * otherwise both candidate names that are not a declared index, each `IF EXISTS` — which only
 * MariaDB has. MySQL 8 cannot say IF EXISTS and the name depends on how the key was made, so there
 * the key is dropped alone, as before.
 */
export function foreignKeyIndexDrops(change: DropForeignKeyChange, dropIndexIfExists: boolean): string[] {
  const { owner, foreignKey } = change;
  if (owner === undefined || !dropIndexIfExists) return [];
  const columns = foreignKey.columns;
  const first = columns[0];
  const others = owner.foreignKeys.filter((fk) => fk.name !== foreignKey.name);
  if (others.some((fk) => fk.columns[0] === first)) return [];
  const served =
    owner.indexes.some((index) => startsWith(index.columns, columns)) ||
    startsWith(owner.primaryKey, columns) ||
    (columns.length === 1 && owner.columns.some((c) => c.unique && c.name === first));
  if (served) return [];
  const declared = new Set(owner.indexes.map((index) => index.name));
  return [...new Set([foreignKey.name, first as string])].filter((name) => !declared.has(name));
}

function startsWith(list: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length > 0 && prefix.length <= list.length && prefix.every((c, i) => list[i] === c);
}
