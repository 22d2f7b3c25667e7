import type { SchemaChange, SchemaSnapshot, TableSnapshot } from "tempest-db-js";
import { SCHEMA_SNAPSHOT_VERSION, ValidationError } from "tempest-db-js";
import type { AlterCapabilities } from "./alter-capabilities.js";
import { fullAlterCapabilities } from "./alter-capabilities.js";
import { applyChange, checkReferences } from "./apply-change.js";
import { changeLabel } from "./change-label.js";
import { DestructiveChangeError } from "./destructive-change-error.js";
import { destructiveMarksOf } from "./destructive-marks.js";
import type { DiffOptions } from "./diff-options.js";
import type { LogicalChange } from "./diff-table.js";
import { diffTable, orderRenames } from "./diff-table.js";
import type { DestructiveMark, MigrationPlan, PlannedChange, RenameHint } from "./migration-plan.js";
import { planPhase } from "./plan-phase.js";
import { resolveRenames } from "./resolve-renames.js";
import { compareText, normalizeSnapshot, sameJson } from "./snapshot-compare.js";
import { orderCreates, orderDrops } from "./table-order.js";

/**
 * The ordered changes that turn the schema `from` (the live database, or the last migration's
 * snapshot) into `to` (the models). Renames are made only where declared; a drop and an add that
 * look like one come back as `hints`. Destructive changes not allowed by name throw a
 * DestructiveChangeError carrying the plan. Changes the database cannot ALTER (SQLite) become one
 * `rebuildTable` per table.
 */
export function diffSchemas(from: SchemaSnapshot, to: SchemaSnapshot, options: DiffOptions = {}): MigrationPlan {
  checkSnapshot(from, "from");
  checkSnapshot(to, "to");
  if (from.dialect !== to.dialect) {
    throw new ValidationError(`Cannot diff a ${from.dialect} schema against a ${to.dialect} one: snapshots are normalised per dialect`);
  }
  checkReferences(to);
  const capabilities: AlterCapabilities = { ...fullAlterCapabilities, ...options.capabilities };
  const renames = resolveRenames(from, to, options.renames);
  const ctx = { renames, capabilities, dialect: to.dialect };
  const fromTables = new Map(from.tables.map((t) => [t.name, t]));
  const oldTableName = new Map([...renames.tables].map(([old, next]) => [next, old]));

  const pairs: [TableSnapshot, TableSnapshot][] = [];
  const added: TableSnapshot[] = [];
  const matched = new Set<string>();
  for (const table of [...to.tables].sort((a, b) => compareText(a.name, b.name))) {
    const old = oldTableName.get(table.name) ?? (renames.tables.has(table.name) ? undefined : table.name);
    const source = old === undefined ? undefined : fromTables.get(old);
    if (source) {
      pairs.push([source, table]);
      matched.add(source.name);
    } else added.push(table);
  }
  const dropped = from.tables.filter((t) => !matched.has(t.name));

  const logical: LogicalChange[] = [];
  const planned: PlannedChange[] = [];
  const push = (change: SchemaChange, replaced = false) => logical.push({ change, replaced });
  const drops = orderDrops(dropped, capabilities.alterForeignKeys);
  for (const { table, foreignKey } of drops.foreignKeys) push({ kind: "dropForeignKey", table, foreignKey }, true);
  for (const table of drops.tables) push({ kind: "dropTable", table });
  for (const [old, next] of orderRenames(renames.tables, "tables")) push({ kind: "renameTable", from: old, to: next });

  const rebuilds: { after: TableSnapshot; folded: LogicalChange[] }[] = [];
  const hints: RenameHint[] = [];
  for (const [before, after] of pairs) {
    const diff = diffTable(before, after, ctx);
    hints.push(...diff.hints);
    if (!diff.needsRebuild) {
      logical.push(...diff.changes);
      continue;
    }
    // Renamed natively where the database can: its RENAME COLUMN also fixes the references to the
    // column from other tables, which a rebuild of this table alone would not.
    const native = diff.changes.filter((c) => c.change.kind === "renameColumn" && capabilities.renameColumn);
    logical.push(...native);
    rebuilds.push({ after, folded: diff.changes.filter((c) => !native.includes(c)) });
  }

  const creates = orderCreates(added, capabilities.alterForeignKeys);
  for (const table of creates.tables) {
    push({ kind: "createTable", table: { ...table, indexes: [] } });
    for (const index of table.indexes) push({ kind: "createIndex", table: table.name, index, concurrently: false });
  }
  for (const { table, foreignKey } of creates.foreignKeys) push({ kind: "addForeignKey", table, foreignKey, notValid: false });

  const byPhase = (a: PlannedChange, b: PlannedChange) => planPhase(a.change) - planPhase(b.change);
  for (const item of logical) planned.push(mark(item.change, destructiveMarksOf(item.change, item.replaced)));
  planned.sort(byPhase);

  if (rebuilds.length > 0) {
    const rebuildPhase = planPhase({ kind: "rebuildTable" } as SchemaChange);
    let state = normalizeSnapshot(from);
    for (const item of planned) if (planPhase(item.change) < rebuildPhase) state = applyChange(state, item.change);
    for (const { after, folded } of rebuilds) {
      const before = state.tables.find((t) => t.name === after.name) as TableSnapshot;
      const renamesHere = renames.columns.get(after.name) ?? new Map<string, string>();
      const renamedNatively = capabilities.renameColumn;
      const oldOf = new Map([...renamesHere].map(([old, next]) => [next, old]));
      const columnMap: Record<string, string | null> = {};
      for (const column of after.columns) {
        const source = renamedNatively ? column.name : (oldOf.get(column.name) ?? (renamesHere.has(column.name) ? undefined : column.name));
        columnMap[column.name] = source !== undefined && before.columns.some((c) => c.name === source) ? source : null;
      }
      const marks = folded.flatMap((item) => destructiveMarksOf(item.change, item.replaced));
      planned.push(mark({ kind: "rebuildTable", before, after, columnMap }, marks));
    }
    planned.sort(byPhase);
  }

  for (const gone of dropped) {
    for (const fresh of added) if (sameColumnsByName(gone, fresh)) hints.push({ kind: "table", from: gone.name, to: fresh.name });
  }
  const plan: MigrationPlan = { dialect: to.dialect, from, to, changes: planned, hints };
  const refused = refusedMarks(plan, options.allowDestructive);
  if (refused.length > 0) throw new DestructiveChangeError(refused, plan);
  return plan;
}

/** The destructive marks of the plan that `allow` does not name. */
export function refusedMarks(plan: Pick<MigrationPlan, "changes">, allow: readonly string[] | "all" | undefined): DestructiveMark[] {
  if (allow === "all") return [];
  const allowed = new Set(allow ?? []);
  return plan.changes.flatMap((c) => c.destructive).filter((m) => !allowed.has(m.label));
}

function mark(change: SchemaChange, destructive: readonly DestructiveMark[]): PlannedChange {
  return { change, label: changeLabel(change), destructive };
}

function sameColumnsByName(a: TableSnapshot, b: TableSnapshot): boolean {
  const shape = (t: TableSnapshot) => t.columns.map((c) => [c.name, c.kind]).sort();
  return sameJson(shape(a), shape(b));
}

function checkSnapshot(snapshot: SchemaSnapshot, what: string): void {
  if (snapshot?.version !== SCHEMA_SNAPSHOT_VERSION || !Array.isArray(snapshot.tables)) {
    throw new ValidationError(`${what} is not a schema snapshot of version ${SCHEMA_SNAPSHOT_VERSION}`);
  }
  const names = new Set<string>();
  for (const table of snapshot.tables) {
    if (names.has(table.name)) throw new ValidationError(`${what} holds the table ${JSON.stringify(table.name)} twice`);
    names.add(table.name);
  }
}
