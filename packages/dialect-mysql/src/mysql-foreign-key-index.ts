import type { DropForeignKeyChange, DropIndexChange, ForeignKeySnapshot, TableSnapshot } from "tempest-db-js/dialect";

/** An index to drop with a foreign key; `ifExists` where the server has `DROP INDEX IF EXISTS` (MariaDB). */
export interface KeyIndexDrop {
  readonly name: string;
  readonly ifExists: boolean;
}

/**
 * The index InnoDB made by itself for a foreign key, to drop with the key: the server keeps it after
 * `DROP FOREIGN KEY`, no model declares it, and the introspector hides it only while the key exists,
 * so a dropped key would otherwise leave an index that slows every write and reads back as drift.
 *
 * InnoDB makes that index only when no index starts with the key's columns, names it after the
 * constraint (`CONSTRAINT name FOREIGN KEY`, as migrations write it) or after the first column (an
 * unnamed key, as createAll writes it), and drops it when an index that can serve the key is created
 * later (measured on MariaDB 10.11).
 *
 * - Where the table was read from the server (`owner.foreignKeyIndexes`), the index that exists is
 *   known: it is dropped by name, unless another key of the table still needs it. This is the only
 *   way on MySQL 8, which has no `DROP INDEX IF EXISTS`: a plain DROP INDEX of a missing index fails.
 * - MariaDB also drops both candidate names `IF EXISTS` (a migration may run on a database other than
 *   the one it was generated from): nothing when a declared index, the primary key or a UNIQUE column
 *   serves the key (InnoDB then made none, or dropped its own), nothing when another key of the table
 *   starts with the same column (the index may be that key's, and the server refuses to drop an index
 *   a key needs), never a declared index.
 * - MySQL 8 with the table unknown (a plan made from snapshots alone) drops the key alone.
 */
export function foreignKeyIndexDrops(change: DropForeignKeyChange, dropIndexIfExists: boolean): KeyIndexDrop[] {
  const { owner, foreignKey } = change;
  if (owner === undefined) return [];
  const others = owner.foreignKeys.filter((fk) => fk.name !== foreignKey.name);
  const known = (owner.foreignKeyIndexes ?? [])
    .filter((index) => sameList(index.columns, foreignKey.columns))
    .filter((index) => !others.some((fk) => startsWith(index.columns, fk.columns) && !servedOtherwise(owner, fk, index.name)))
    .map((index) => index.name);
  const names = dropIndexIfExists ? [...known, ...candidates(owner, foreignKey)] : known;
  return [...new Set(names)].map((name) => ({ name, ifExists: dropIndexIfExists }));
}

/**
 * The keys of the table that the index being dropped alone serves: the server refuses to drop it
 * (error 1553), so each gets an index of its own, named after the constraint and on exactly its
 * columns, in the same ALTER (which the introspector then reads as the key's own index, as it reads
 * the one InnoDB makes). What serves a key: an index, primary key or UNIQUE column whose columns start
 * with the key's, or the key's own index where the table was read from the server.
 */
export function foreignKeyIndexAdds(change: DropIndexChange): ForeignKeySnapshot[] {
  const { owner, index } = change;
  if (owner === undefined) return [];
  return owner.foreignKeys.filter((fk) => startsWith(index.columns, fk.columns) && !servedOtherwise(owner, fk, index.name));
}

/** Both names InnoDB may have given the key's own index, unless something declared serves the key. */
function candidates(owner: TableSnapshot, foreignKey: ForeignKeySnapshot & { readonly name: string }): string[] {
  const first = foreignKey.columns[0] as string;
  const others = owner.foreignKeys.filter((fk) => fk.name !== foreignKey.name);
  if (others.some((fk) => fk.columns[0] === first)) return [];
  if (servedByDeclared(owner, foreignKey, undefined)) return [];
  const declared = new Set(owner.indexes.map((index) => index.name));
  return [foreignKey.name, first].filter((name) => !declared.has(name));
}

/** Something other than the index `except` serves the key: a declared index, the primary key, a UNIQUE column, or its own index. */
function servedOtherwise(owner: TableSnapshot, fk: ForeignKeySnapshot, except: string): boolean {
  return (
    servedByDeclared(owner, fk, except) ||
    (owner.foreignKeyIndexes ?? []).some((index) => index.name !== except && startsWith(index.columns, fk.columns))
  );
}

function servedByDeclared(owner: TableSnapshot, fk: ForeignKeySnapshot, except: string | undefined): boolean {
  const columns = fk.columns;
  return (
    owner.indexes.some((index) => index.name !== except && startsWith(index.columns, columns)) ||
    startsWith(owner.primaryKey, columns) ||
    (columns.length === 1 && owner.columns.some((c) => c.unique && c.name === columns[0]))
  );
}

function startsWith(list: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length > 0 && prefix.length <= list.length && prefix.every((c, i) => list[i] === c);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
