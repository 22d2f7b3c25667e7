import type { ColumnSnapshot, ForeignKeySnapshot, SchemaChange, TableSnapshot } from "tempest-db-js";
import { isKeyed, UnsupportedFeatureError, ValidationError } from "tempest-db-js";
import type { AlterCapabilities } from "./alter-capabilities.js";
import type { RenameHint } from "./migration-plan.js";
import type { ResolvedRenames } from "./resolve-renames.js";
import { sameColumnShape, sameForeignKeyShape, sameIndexShape, sameJson } from "./snapshot-compare.js";

/** A change before marking: `replaced` is a drop the same plan recreates under the same name. */
export interface LogicalChange {
  readonly change: SchemaChange;
  readonly replaced: boolean;
}

export interface TableDiff {
  readonly changes: readonly LogicalChange[];
  /** The changes this database cannot make with ALTER: the table is rebuilt instead (SQLite). */
  readonly needsRebuild: boolean;
  readonly hints: readonly RenameHint[];
}

export interface TableDiffContext {
  readonly renames: ResolvedRenames;
  readonly capabilities: AlterCapabilities;
  readonly dialect: string;
}

/** The changes that turn `before` (a table of the current schema) into `after` (the same table in the target). */
export function diffTable(before: TableSnapshot, after: TableSnapshot, ctx: TableDiffContext): TableDiff {
  const caps = ctx.capabilities;
  const table = after.name;
  const columnRenames = ctx.renames.columns.get(table) ?? new Map<string, string>();
  const renamed = (column: string) => columnRenames.get(column) ?? column;
  const oldOf = new Map([...columnRenames].map(([old, next]) => [next, old]));
  const beforeColumns = new Map(before.columns.map((c) => [c.name, c]));
  const afterNames = new Set(after.columns.map((c) => c.name));
  const changes: LogicalChange[] = [];
  const add = (change: SchemaChange, replaced = false) => changes.push({ change, replaced });
  let needsRebuild = false;

  // Foreign keys and indexes first: what they use may be renamed or dropped below.
  const fkDiff = diffForeignKeys(before, after, renamed, ctx);
  // Each key with the table as it is when it goes (the keys dropped before it gone): MySQL drops the index it made for the key too.
  let owner = before;
  for (const fk of fkDiff.dropped) {
    add({ kind: "dropForeignKey", table: before.name, foreignKey: fk.foreignKey, owner }, fk.replaced);
    owner = { ...owner, foreignKeys: owner.foreignKeys.filter((k) => k.name !== fk.foreignKey.name) };
  }
  const afterIndexes = new Map(after.indexes.map((i) => [i.name, i]));
  const keptIndexes = new Set<string>();
  for (const index of before.indexes) {
    const target = afterIndexes.get(index.name);
    const mapped = { ...index, columns: index.columns.map(renamed) };
    if (target && sameIndexShape(mapped, target)) {
      keptIndexes.add(index.name);
      continue;
    }
    // With the table as it is then (its dropped keys and indexes gone): MySQL refuses to drop the only index a kept key uses.
    add({ kind: "dropIndex", table: before.name, index, concurrently: false, owner }, target !== undefined);
    owner = { ...owner, indexes: owner.indexes.filter((i) => i.name !== index.name) };
  }

  const dropped: ColumnSnapshot[] = [];
  for (const column of before.columns) {
    // A name the target keeps, unless it now belongs to another column renamed onto it.
    if (columnRenames.has(column.name) || (afterNames.has(column.name) && !oldOf.has(column.name))) continue;
    dropped.push(column);
    // Keyed by the table as it was: MySQL keeps a foreign key's index after the key itself is dropped.
    add({ kind: "dropColumn", table, column, keyed: isKeyed(before, column.name) });
    // An enum is a CHECK on the column where the database has no enum type (SQLite refuses to drop a column a CHECK names).
    const constrained =
      column.unique ||
      column.kind === "enum" ||
      before.primaryKey.includes(column.name) ||
      before.foreignKeys.some((fk) => fk.columns.includes(column.name));
    if (!caps.dropColumn || (constrained && !caps.dropConstrainedColumn)) needsRebuild = true;
  }
  for (const [old, next] of orderRenames(columnRenames, `${table}'s columns`)) {
    add({ kind: "renameColumn", table, from: old, to: next });
    if (!caps.renameColumn) needsRebuild = true;
  }
  const added: ColumnSnapshot[] = [];
  for (const column of after.columns) {
    const source = beforeColumns.get(oldOf.get(column.name) ?? column.name);
    if (source === undefined || (!oldOf.has(column.name) && columnRenames.has(column.name))) {
      added.push(column);
      continue;
    }
    if (sameColumnShape(source, column)) continue;
    const keyed = isKeyed(after, column.name);
    const keyedBefore = isKeyed(before, source.name);
    add({ kind: "alterColumn", table, from: { ...source, name: column.name }, to: column, keyed, keyedBefore });
    if (!caps.alterColumn) needsRebuild = true;
  }
  for (const column of added) {
    add({ kind: "addColumn", table, column, keyed: isKeyed(after, column.name) });
    const constrained =
      column.unique || (column.notNull && column.default?.kind !== "value") || column.default?.kind === "sql" || column.generated !== null;
    if (constrained && !caps.addConstrainedColumn) needsRebuild = true;
  }

  if (!sameJson(before.primaryKey.map(renamed), after.primaryKey)) {
    if (!caps.rebuildTable) {
      throw new UnsupportedFeatureError(
        ctx.dialect,
        `changing the primary key of ${table}`,
        "Create a new table with the new key, copy the rows over in a data step, and drop the old table.",
      );
    }
    needsRebuild = true;
  }

  for (const index of after.indexes) {
    if (!keptIndexes.has(index.name)) add({ kind: "createIndex", table, index, concurrently: false });
  }
  for (const foreignKey of fkDiff.added) add({ kind: "addForeignKey", table, foreignKey, notValid: false });
  if (fkDiff.dropped.length + fkDiff.added.length > 0 && !caps.alterForeignKeys) needsRebuild = true;
  if (needsRebuild && !caps.rebuildTable) {
    throw new UnsupportedFeatureError(ctx.dialect, `this change to ${table}`, "Write the migration by hand.");
  }

  const hints: RenameHint[] = [];
  for (const gone of dropped) {
    for (const fresh of added) if (gone.kind === fresh.kind) hints.push({ kind: "column", table, from: gone.name, to: fresh.name });
  }
  return { changes, needsRebuild, hints };
}

type NamedForeignKey = ForeignKeySnapshot & { readonly name: string };

/**
 * Foreign keys matched by name where both have one, otherwise by meaning (SQLite's have no stable
 * name). A foreign key whose meaning changes is dropped and added again.
 */
function diffForeignKeys(
  before: TableSnapshot,
  after: TableSnapshot,
  renamed: (column: string) => string,
  ctx: TableDiffContext,
): { dropped: { foreignKey: NamedForeignKey; replaced: boolean }[]; added: NamedForeignKey[] } {
  const mapped = before.foreignKeys.map((fk) => {
    const referencedTable = ctx.renames.tables.get(fk.referencedTable) ?? fk.referencedTable;
    const referencedRenames = ctx.renames.columns.get(referencedTable);
    return {
      original: fk,
      now: {
        ...fk,
        columns: fk.columns.map(renamed),
        referencedTable,
        referencedColumns: fk.referencedColumns.map((c) => referencedRenames?.get(c) ?? c),
      },
    };
  });
  const unmatchedAfter = new Set(after.foreignKeys);
  const kept = new Set<ForeignKeySnapshot>();
  const replacedNames = new Set<string>();
  for (const { original, now } of mapped) {
    const byName = now.name === null ? undefined : after.foreignKeys.find((fk) => fk.name === now.name);
    if (byName) {
      unmatchedAfter.delete(byName);
      if (sameForeignKeyShape(now, byName)) kept.add(original);
      else replacedNames.add(byName.name as string);
    }
  }
  for (const { original, now } of mapped) {
    if (kept.has(original) || (now.name !== null && replacedNames.has(now.name))) continue;
    const match = [...unmatchedAfter].find((fk) => (fk.name === null || now.name === null) && sameForeignKeyShape(now, fk));
    if (match) {
      unmatchedAfter.delete(match);
      kept.add(original);
    }
  }
  const dropped = before.foreignKeys
    .filter((fk) => !kept.has(fk))
    .map((fk) => ({ foreignKey: named(fk, before.name, ctx), replaced: fk.name !== null && replacedNames.has(fk.name) }));
  const added = after.foreignKeys.filter(
    (fk) => !kept.has(fk) && (unmatchedAfter.has(fk) || (fk.name !== null && replacedNames.has(fk.name))),
  );
  return { dropped, added: added.map((fk) => named(fk, after.name, ctx)) };
}

/**
 * A foreign key the plan adds or drops needs a name. An unnamed one (SQLite's) only ever changes
 * by a rebuild, where the name is not used; the conventional PostgreSQL name stands in.
 */
function named(fk: ForeignKeySnapshot, table: string, ctx: TableDiffContext): NamedForeignKey {
  if (fk.name !== null) return fk as NamedForeignKey;
  if (ctx.capabilities.alterForeignKeys && !ctx.capabilities.rebuildTable) {
    throw new ValidationError(`${table}: a foreign key on (${fk.columns.join(", ")}) has no name; the snapshot must name it`);
  }
  return { ...fk, name: `${table}_${fk.columns.join("_")}_fkey` };
}

/**
 * Renames in an order that never takes a name still in use: `b → c` before `a → b`. A cycle
 * (`a → b`, `b → a`) has no such order.
 */
export function orderRenames(renames: ReadonlyMap<string, string>, what: string): [string, string][] {
  const pending = new Map(renames);
  const ordered: [string, string][] = [];
  while (pending.size > 0) {
    const ready = [...pending].filter(([, next]) => !pending.has(next));
    if (ready.length === 0) {
      throw new ValidationError(
        `The renames of ${what} form a cycle (${[...pending.keys()].join(", ")}); rename through a temporary name in two migrations`,
      );
    }
    for (const [old, next] of ready) {
      ordered.push([old, next]);
      pending.delete(old);
    }
  }
  return ordered;
}
