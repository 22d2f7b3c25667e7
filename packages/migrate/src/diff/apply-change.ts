import type { ForeignKeySnapshot, SchemaChange, SchemaSnapshot, TableSnapshot } from "tempest-db-js";
import { exhaustive, ValidationError } from "tempest-db-js";
import type { PlannedChange } from "./migration-plan.js";
import { normalizeSnapshot, normalizeTable } from "./snapshot-compare.js";

/**
 * The schema a change leads to, computed on the snapshot alone: what a migration file records as
 * the state after it, and how the tests check a plan (applying it to `from` gives `to`). Strict the
 * way a database is: a change that names a missing table, column or index, or drops a column that
 * an index or foreign key still uses, is refused, so a plan in the wrong order fails here too.
 */
export function applyChange(snapshot: SchemaSnapshot, change: SchemaChange): SchemaSnapshot {
  const tables = new Map(snapshot.tables.map((t) => [t.name, t]));
  const get = (name: string): TableSnapshot => {
    const table = tables.get(name);
    if (!table) throw new ValidationError(`${change.kind}: no table ${JSON.stringify(name)}`);
    return table;
  };
  const set = (table: TableSnapshot) => tables.set(table.name, normalizeTable(table));
  const hasColumn = (table: TableSnapshot, column: string) => table.columns.some((c) => c.name === column);
  switch (change.kind) {
    case "createTable":
      // Its foreign keys may point at a table created later in the plan (tables that reference each
      // other, on a database that cannot add a foreign key afterwards): checkReferences at the end.
      if (tables.has(change.table.name)) throw new ValidationError(`createTable: ${change.table.name} exists`);
      set(change.table);
      break;
    case "dropTable":
      // A table another one still references may go (SQLite drops tables that reference each other
      // one by one); the reference must be gone by the end: applyPlan checks.
      get(change.table.name);
      tables.delete(change.table.name);
      break;
    case "renameTable": {
      const table = get(change.from);
      if (tables.has(change.to)) throw new ValidationError(`renameTable: ${change.to} exists`);
      tables.delete(change.from);
      set({ ...table, name: change.to });
      for (const other of [...tables.values()]) {
        const retarget = (fk: ForeignKeySnapshot) => (fk.referencedTable === change.from ? { ...fk, referencedTable: change.to } : fk);
        set({ ...other, foreignKeys: other.foreignKeys.map(retarget) });
      }
      break;
    }
    case "addColumn": {
      const table = get(change.table);
      if (hasColumn(table, change.column.name)) throw new ValidationError(`addColumn: ${change.table}.${change.column.name} exists`);
      set({ ...table, columns: [...table.columns, change.column] });
      break;
    }
    case "dropColumn": {
      const table = get(change.table);
      const name = change.column.name;
      if (!hasColumn(table, name)) throw new ValidationError(`dropColumn: no column ${change.table}.${name}`);
      const users = [
        ...table.indexes.filter((i) => i.columns.includes(name)).map((i) => `index ${i.name}`),
        ...table.foreignKeys.filter((fk) => fk.columns.includes(name)).map((fk) => `foreign key ${fk.name ?? fk.columns.join(",")}`),
        ...(table.primaryKey.includes(name) ? ["the primary key"] : []),
        ...[...tables.values()].flatMap((t) =>
          t.foreignKeys
            .filter((fk) => fk.referencedTable === table.name && fk.referencedColumns.includes(name))
            .map(() => `a foreign key of ${t.name}`),
        ),
      ];
      if (users.length > 0) throw new ValidationError(`dropColumn: ${change.table}.${name} is still used by ${users.join(", ")}`);
      set({ ...table, columns: table.columns.filter((c) => c.name !== name) });
      break;
    }
    case "renameColumn": {
      const table = get(change.table);
      if (!hasColumn(table, change.from)) throw new ValidationError(`renameColumn: no column ${change.table}.${change.from}`);
      if (hasColumn(table, change.to)) throw new ValidationError(`renameColumn: ${change.table}.${change.to} exists`);
      const r = (c: string) => (c === change.from ? change.to : c);
      set({
        ...table,
        columns: table.columns.map((c) => (c.name === change.from ? { ...c, name: change.to } : c)),
        primaryKey: table.primaryKey.map(r),
        indexes: table.indexes.map((i) => ({ ...i, columns: i.columns.map(r) })),
        foreignKeys: table.foreignKeys.map((fk) => ({ ...fk, columns: fk.columns.map(r) })),
      });
      for (const other of [...tables.values()]) {
        const retarget = (fk: ForeignKeySnapshot) =>
          fk.referencedTable === table.name ? { ...fk, referencedColumns: fk.referencedColumns.map(r) } : fk;
        set({ ...other, foreignKeys: other.foreignKeys.map(retarget) });
      }
      break;
    }
    case "alterColumn": {
      const table = get(change.table);
      if (!hasColumn(table, change.to.name)) throw new ValidationError(`alterColumn: no column ${change.table}.${change.to.name}`);
      set({ ...table, columns: table.columns.map((c) => (c.name === change.to.name ? change.to : c)) });
      break;
    }
    case "createIndex": {
      const table = get(change.table);
      const missing = change.index.columns.filter((c) => !hasColumn(table, c));
      if (missing.length > 0) throw new ValidationError(`createIndex ${change.index.name}: no column ${missing.join(", ")}`);
      const taken = [...tables.values()].some((t) => t.indexes.some((i) => i.name === change.index.name));
      if (taken) throw new ValidationError(`createIndex: an index ${change.index.name} exists`);
      set({ ...table, indexes: [...table.indexes, change.index] });
      break;
    }
    case "dropIndex": {
      const table = get(change.table);
      if (!table.indexes.some((i) => i.name === change.index.name)) throw new ValidationError(`dropIndex: no index ${change.index.name}`);
      set({ ...table, indexes: table.indexes.filter((i) => i.name !== change.index.name) });
      break;
    }
    case "addForeignKey": {
      const table = get(change.table);
      checkReference(tables, change.foreignKey, table);
      set({ ...table, foreignKeys: [...table.foreignKeys, change.foreignKey] });
      break;
    }
    case "dropForeignKey": {
      const table = get(change.table);
      const name = change.foreignKey.name;
      if (!table.foreignKeys.some((fk) => fk.name === name)) throw new ValidationError(`dropForeignKey: no foreign key ${name}`);
      set({ ...table, foreignKeys: table.foreignKeys.filter((fk) => fk.name !== name) });
      break;
    }
    case "addCheck":
    case "dropCheck":
    case "validateConstraint":
      // Checks the tool adds on its own (the safe SET NOT NULL) are not part of a snapshot.
      get(change.table);
      break;
    case "addUniqueConstraint": {
      const table = get(change.table);
      const name = change.column.name;
      if (!hasColumn(table, name)) throw new ValidationError(`addUniqueConstraint: no column ${change.table}.${name}`);
      set({ ...table, columns: table.columns.map((c) => (c.name === name ? { ...c, unique: true } : c)) });
      break;
    }
    case "rebuildTable":
      get(change.before.name);
      tables.delete(change.before.name);
      set(change.after);
      break;
    default:
      return exhaustive(change);
  }
  return normalizeSnapshot({ ...snapshot, tables: [...tables.values()] });
}

/** The schema a plan's changes lead to, from `snapshot`. */
export function applyPlan(snapshot: SchemaSnapshot, changes: readonly (PlannedChange | SchemaChange)[]): SchemaSnapshot {
  let current = normalizeSnapshot(snapshot);
  for (const item of changes) current = applyChange(current, "change" in item ? item.change : item);
  checkReferences(current);
  return current;
}

function checkReference(tables: ReadonlyMap<string, TableSnapshot>, fk: ForeignKeySnapshot, owner: TableSnapshot): void {
  const target = fk.referencedTable === owner.name ? owner : tables.get(fk.referencedTable);
  if (!target) throw new ValidationError(`${owner.name}: a foreign key references the missing table ${fk.referencedTable}`);
  const missing = fk.referencedColumns.filter((c) => !target.columns.some((col) => col.name === c));
  if (missing.length > 0)
    throw new ValidationError(`${owner.name}: a foreign key references the missing column ${fk.referencedTable}.${missing.join(", ")}`);
}

/** Every foreign key of the snapshot points at a table and columns it holds. */
export function checkReferences(snapshot: SchemaSnapshot): void {
  const tables = new Map(snapshot.tables.map((t) => [t.name, t]));
  for (const table of snapshot.tables) for (const fk of table.foreignKeys) checkReference(tables, fk, table);
}
