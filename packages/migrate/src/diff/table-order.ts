import type { ForeignKeySnapshot, TableSnapshot } from "tempest-db-js";
import { compareText } from "./snapshot-compare.js";

type NamedForeignKey = ForeignKeySnapshot & { readonly name: string };

/** A foreign key taken out of the table order: dropped before its tables, or added after them. */
export interface DetachedForeignKey {
  readonly table: string;
  readonly foreignKey: NamedForeignKey;
}

/**
 * New tables in an order where each one comes after the tables it references. Tables that
 * reference each other have no such order: their foreign keys between them are added after all of
 * them (`foreignKeys`), or, on a database that cannot add one later (SQLite, which does not check a
 * reference when the table is created), stay in the CREATE TABLE.
 */
export function orderCreates(
  tables: readonly TableSnapshot[],
  canDetach: boolean,
): { tables: TableSnapshot[]; foreignKeys: DetachedForeignKey[] } {
  const { order, cyclic } = dependencyOrder(tables, (t) => t.foreignKeys.map((fk) => fk.referencedTable));
  if (!canDetach || cyclic.size === 0) return { tables: order, foreignKeys: [] };
  const foreignKeys: DetachedForeignKey[] = [];
  const stripped = order.map((table) => {
    if (!cyclic.has(table.name)) return table;
    const detach = (fk: ForeignKeySnapshot) => fk.referencedTable !== table.name && cyclic.has(fk.referencedTable);
    for (const fk of table.foreignKeys.filter(detach)) foreignKeys.push({ table: table.name, foreignKey: nameOf(fk, table.name) });
    return { ...table, foreignKeys: table.foreignKeys.filter((fk) => !detach(fk)) };
  });
  return { tables: stripped, foreignKeys };
}

/**
 * Dropped tables in an order where a table goes before the tables it references. For tables that
 * reference each other, their foreign keys are dropped first where the database can.
 */
export function orderDrops(
  tables: readonly TableSnapshot[],
  canDetach: boolean,
): { tables: TableSnapshot[]; foreignKeys: DetachedForeignKey[] } {
  const { order, cyclic } = dependencyOrder(tables, (t) => t.foreignKeys.map((fk) => fk.referencedTable));
  const reversed = order.reverse();
  if (!canDetach || cyclic.size === 0) return { tables: reversed, foreignKeys: [] };
  const foreignKeys: DetachedForeignKey[] = [];
  // Each table as it is when dropped: without the foreign keys dropped before it.
  const stripped = reversed.map((table) => {
    if (!cyclic.has(table.name)) return table;
    const detach = (fk: ForeignKeySnapshot) => fk.referencedTable !== table.name && cyclic.has(fk.referencedTable);
    for (const fk of table.foreignKeys.filter(detach)) foreignKeys.push({ table: table.name, foreignKey: nameOf(fk, table.name) });
    return { ...table, foreignKeys: table.foreignKeys.filter((fk) => !detach(fk)) };
  });
  return { tables: stripped, foreignKeys };
}

/**
 * Kahn's order over "depends on" edges among `tables` (edges to tables outside the set and to the
 * table itself ignored), ties by name. Tables left on a cycle follow in name order, reported in `cyclic`.
 */
function dependencyOrder(
  tables: readonly TableSnapshot[],
  dependsOn: (table: TableSnapshot) => readonly string[],
): { order: TableSnapshot[]; cyclic: Set<string> } {
  const names = new Set(tables.map((t) => t.name));
  const pending = new Map(
    [...tables]
      .sort((a, b) => compareText(a.name, b.name))
      .map((t) => [t.name, { table: t, deps: new Set(dependsOn(t).filter((d) => d !== t.name && names.has(d))) }]),
  );
  const order: TableSnapshot[] = [];
  for (;;) {
    const ready = [...pending.values()].find((entry) => [...entry.deps].every((d) => !pending.has(d)));
    if (!ready) break;
    order.push(ready.table);
    pending.delete(ready.table.name);
  }
  const cyclic = new Set(pending.keys());
  for (const entry of pending.values()) order.push(entry.table);
  return { order, cyclic };
}

function nameOf(fk: ForeignKeySnapshot, table: string): NamedForeignKey {
  return fk.name !== null ? (fk as NamedForeignKey) : { ...fk, name: `${table}_${fk.columns.join("_")}_fkey` };
}
