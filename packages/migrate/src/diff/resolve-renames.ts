import type { SchemaSnapshot, TableSnapshot } from "tempest-db-js";
import { ValidationError } from "tempest-db-js";
import type { Renames } from "./diff-options.js";

/** The declared renames, checked against both snapshots and indexed for the diff. */
export interface ResolvedRenames {
  /** old table name → new. */
  readonly tables: ReadonlyMap<string, string>;
  /** new table name → (old column name → new). */
  readonly columns: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

export function resolveRenames(from: SchemaSnapshot, to: SchemaSnapshot, renames: Renames | undefined): ResolvedRenames {
  const fromTables = new Map(from.tables.map((t) => [t.name, t]));
  const toTables = new Map(to.tables.map((t) => [t.name, t]));
  const tables = new Map<string, string>();
  const targets = new Set<string>();
  for (const [old, next] of Object.entries(renames?.tables ?? {})) {
    const where = `renames.tables[${JSON.stringify(old)}]`;
    if (typeof next !== "string") throw new ValidationError(`${where} must be a table name`);
    if (!fromTables.has(old)) throw new ValidationError(`${where}: the current schema has no table ${JSON.stringify(old)}`);
    if (!toTables.has(next)) throw new ValidationError(`${where}: the target schema has no table ${JSON.stringify(next)}`);
    if (old === next) throw new ValidationError(`${where} renames the table to its own name`);
    if (targets.has(next)) throw new ValidationError(`${where}: two tables are renamed to ${JSON.stringify(next)}`);
    tables.set(old, next);
    targets.add(next);
  }
  const newName = (old: string) => tables.get(old) ?? old;
  const columns = new Map<string, Map<string, string>>();
  for (const [key, next] of Object.entries(renames?.columns ?? {})) {
    const where = `renames.columns[${JSON.stringify(key)}]`;
    if (typeof next !== "string") throw new ValidationError(`${where} must be a column name`);
    const { table, column } = splitKey(key, fromTables, toTables, tables, where);
    const target = toTables.get(newName(table.name));
    if (!target) throw new ValidationError(`${where}: the table ${JSON.stringify(table.name)} is dropped by the target schema`);
    if (!table.columns.some((c) => c.name === column)) {
      throw new ValidationError(`${where}: ${table.name} has no column ${JSON.stringify(column)}`);
    }
    if (!target.columns.some((c) => c.name === next)) {
      throw new ValidationError(`${where}: the target ${target.name} has no column ${JSON.stringify(next)}`);
    }
    if (column === next) throw new ValidationError(`${where} renames the column to its own name`);
    const perTable = columns.get(target.name) ?? new Map<string, string>();
    if ([...perTable.values()].includes(next)) throw new ValidationError(`${where}: two columns are renamed to ${JSON.stringify(next)}`);
    perTable.set(column, next);
    columns.set(target.name, perTable);
  }
  return { tables, columns };
}

/** `table.column`, where table and column names may themselves hold dots: the split that names a table wins. */
function splitKey(
  key: string,
  fromTables: ReadonlyMap<string, TableSnapshot>,
  toTables: ReadonlyMap<string, TableSnapshot>,
  tableRenames: ReadonlyMap<string, string>,
  where: string,
): { table: TableSnapshot; column: string } {
  const oldOf = new Map([...tableRenames].map(([old, next]) => [next, old]));
  const found = new Map<TableSnapshot, string>();
  for (let i = key.indexOf("."); i > 0; i = key.indexOf(".", i + 1)) {
    const name = key.slice(0, i);
    const column = key.slice(i + 1);
    // The name before the rename, or after it (the table the model now declares).
    const asOld = fromTables.get(name);
    const renamedFrom = oldOf.get(name);
    const asNew = !toTables.has(name)
      ? undefined
      : renamedFrom !== undefined
        ? fromTables.get(renamedFrom)
        : tableRenames.has(name)
          ? undefined
          : asOld;
    for (const table of [asOld, asNew]) if (table && column.length > 0) found.set(table, column);
  }
  if (found.size === 0) throw new ValidationError(`${where}: write "table.column", naming a table of the current schema`);
  if (found.size > 1) throw new ValidationError(`${where} names more than one table; rename the table and its columns in two migrations`);
  const [table, column] = [...found][0] as [TableSnapshot, string];
  return { table, column };
}
