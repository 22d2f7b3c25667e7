import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DialectCapabilities, Engine, ModelClass, SchemaChange, SchemaSnapshot } from "tempest-db-js";
import { introspect, modelsSnapshot, SCHEMA_SNAPSHOT_VERSION, schemaSteps, sql } from "tempest-db-js";
import type { AlterCapabilities } from "./diff/alter-capabilities.js";
import type { Renames } from "./diff/diff-options.js";
import { diffSchemas } from "./diff/diff-schemas.js";
import { withLiveKeyIndexes } from "./diff/live-key-indexes.js";
import type { PlannedChange, RenameHint } from "./diff/migration-plan.js";
import { reversePlan } from "./diff/reverse-plan.js";
import { MigrationStateError } from "./errors.js";
import { lintLocks } from "./lint/lint-locks.js";
import { safePlan } from "./lint/safe-plan.js";
import { readTableFacts } from "./lint/table-facts.js";
import type { StoredStatement } from "./migration.js";
import { listMigrations } from "./migration-folder.js";
import type { RenderedChange } from "./render-migration.js";
import { renderMigration } from "./render-migration.js";
import { latestSnapshot, writeSnapshot } from "./snapshot-file.js";

export interface GenerateOptions {
  readonly engine: Engine;
  readonly models: readonly ModelClass<any>[];
  readonly folder: string;
  /** Words for the file name after its timestamp (default "migration"). */
  readonly name?: string;
  /** Renames, declared: the diff never guesses one. */
  readonly renames?: Renames;
  /** Destructive changes allowed by label (`"drop column tickets.legacy"`), or "all". */
  readonly allowDestructive?: readonly string[] | "all";
  /**
   * What the models are compared with: the last migration's snapshot (the default once there is
   * one: no database state needed), or the live database (the default for the first migration,
   * so a project adopting migrations on an existing schema starts from what it has).
   */
  readonly from?: "snapshot" | "database";
  readonly historyTable?: string;
  /**
   * PostgreSQL: write the lock-safe form of each change that would hold a heavy lock on a table with
   * rows (indexes CONCURRENTLY, constraints NOT VALID then validated, SET NOT NULL proven by a check)
   * — the default; false keeps the plain form (the warnings still say what it locks).
   */
  readonly safe?: boolean;
  /** Refuse (LockSafetyError) instead of writing a migration with lock warnings. */
  readonly warningsAsErrors?: boolean;
  /** The timestamp in the file name (default now). */
  readonly now?: Date;
}

export interface GenerateResult {
  /** False when the models already match: no file is written. */
  readonly written: boolean;
  readonly name: string | null;
  readonly path: string | null;
  readonly changes: readonly string[];
  /** Drops and adds that look like renames: declare them in `renames` if they are. */
  readonly hints: readonly RenameHint[];
  readonly warnings: readonly string[];
}

/** What the diff may plan on this database, from the dialect's capability flags. */
export function alterCapabilities(caps: DialectCapabilities): AlterCapabilities {
  return {
    alterColumn: caps.alterColumn,
    alterForeignKeys: caps.alterConstraints,
    dropColumn: caps.dropColumn,
    dropConstrainedColumn: caps.alterColumn,
    addConstrainedColumn: caps.alterColumn,
    renameColumn: caps.renameColumn,
    rebuildTable: caps.tableRebuild,
  };
}

function stamp(date: Date): string {
  return date.toISOString().replace(/\D/g, "").slice(0, 14);
}

function slug(words: string): string {
  const s = words
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return s === "" ? "migration" : s.slice(0, 60);
}

async function compiled(engine: Engine, planned: readonly PlannedChange[]): Promise<RenderedChange[]> {
  const out: RenderedChange[] = [];
  for (const p of planned) {
    const steps = await schemaSteps(engine, p.change as SchemaChange);
    const statements: StoredStatement[] = steps.map((s) => ({
      sql: s.sql,
      transactional: s.transactional,
      ...(s.failsOnRows ? { failsOnRows: true } : {}),
      ...(s.restores ? { restores: true } : {}),
      ...(s.replays ? { replays: true } : {}),
      ...(s.copiesTable ? { copiesTable: true } : {}),
    }));
    out.push({ label: p.label, change: p.change, statements, destructive: p.destructive.map((d) => `${d.label}: ${d.reason}`) });
  }
  return out;
}

/**
 * Diffs the models against the last migration's snapshot (or the live database) and writes the
 * migration that gets there: `<timestamp>_<name>.ts` with up and down, and its snapshot beside it.
 */
export async function generateMigration(options: GenerateOptions): Promise<GenerateResult> {
  const { engine, folder } = options;
  // The compiler and the models' snapshot follow the server's version: let the engine meet it first.
  await engine.execute(sql.raw("SELECT 1")).all();
  const to = modelsSnapshot(engine, options.models);
  const last = latestSnapshot(folder);
  const source = options.from ?? (last ? "snapshot" : "database");
  let from: SchemaSnapshot;
  if (source === "snapshot") {
    from = last?.snapshot ?? { version: SCHEMA_SNAPSHOT_VERSION, dialect: to.dialect, tables: [] };
    if (from.dialect !== engine.dialectName) {
      throw new MigrationStateError(`The migrations in ${folder} are for ${from.dialect}; this engine is ${engine.dialectName}.`);
    }
  } else {
    // Only the tables the project manages: another application's tables are not to be dropped.
    const managed = new Set([...to.tables.map((t) => t.name), ...(last?.snapshot.tables.map((t) => t.name) ?? [])]);
    managed.delete(options.historyTable ?? "tempest_migrations");
    from = await introspect(engine, { tables: [...managed], foreignKeyIndexes: true });
  }
  const diffed = diffSchemas(from, to, {
    capabilities: alterCapabilities(engine.capabilities),
    ...(options.renames ? { renames: options.renames } : {}),
    ...(options.allowDestructive ? { allowDestructive: options.allowDestructive } : {}),
  });
  if (diffed.changes.length === 0) return { written: false, name: null, path: null, changes: [], hints: diffed.hints, warnings: [] };
  // Which live tables hold rows decides what locks matter; a table the database lacks counts as holding some.
  const existing = await introspect(engine, { tables: from.tables.map((t) => t.name), foreignKeyIndexes: true });
  const lint = { capabilities: engine.capabilities, facts: await readTableFacts(engine, existing.tables) };
  const known = withLiveKeyIndexes(diffed, existing);
  const plan = options.safe === false ? known : safePlan(known, lint);
  const changes = plan.changes.map((c) => c.label);
  const up = await compiled(engine, plan.changes);
  const copies = new Map(plan.changes.map((p, i) => [p.change, up[i]?.statements.some((s) => s.copiesTable) === true]));
  const warnings = lintLocks(plan, {
    ...lint,
    copiesTable: (change) => copies.get(change) === true,
    ...(options.warningsAsErrors ? { warningsAsErrors: true } : {}),
  }).map((w) => w.message);
  const down = await compiled(engine, reversePlan(plan).changes);

  const taken = new Set(listMigrations(folder).map((f) => f.name));
  const base = stamp(options.now ?? new Date());
  let name = `${base}_${slug(options.name ?? "migration")}`;
  for (let n = 1; taken.has(name) || existsSync(join(folder, `${name}.ts`)); n++)
    name = `${base}_${slug(options.name ?? "migration")}_${n}`;
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `${name}.ts`);
  writeFileSync(path, renderMigration({ name, dialect: engine.dialectName, up, down, warnings }));
  writeSnapshot(folder, name, to);
  return { written: true, name, path, changes, hints: plan.hints, warnings };
}
