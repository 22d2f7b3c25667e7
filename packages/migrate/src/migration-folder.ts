import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { migrationChecksum } from "./checksum.js";
import { MigrationStateError } from "./errors.js";
import { loadModule } from "./load-module.js";
import type { Migration, MigrationStep } from "./migration.js";

/** A migration file read from the folder. */
export interface MigrationFile {
  /** The file name without its extension: the migration's name in the history. */
  readonly name: string;
  readonly path: string;
  readonly checksum: string;
}

/** A migration file and its default export. */
export interface LoadedMigration extends MigrationFile {
  readonly migration: Migration;
}

/** `<digits>_<words>.ts`: the digits (a UTC timestamp when generated) give the order. */
const MIGRATION_FILE = /^(\d+[_-][\w-]*)\.(ts|mts|js|mjs)$/;

/** The migration files of a folder in name order (no file is imported). A missing folder has none. */
export function listMigrations(folder: string): MigrationFile[] {
  if (!existsSync(folder)) return [];
  const files: MigrationFile[] = [];
  const names = new Set<string>();
  for (const entry of readdirSync(folder).sort()) {
    const match = MIGRATION_FILE.exec(entry);
    if (!match || entry.endsWith(".d.ts")) continue;
    const name = match[1] as string;
    if (names.has(name)) throw new MigrationStateError(`Two migration files are named ${name} in ${folder}: keep one.`);
    names.add(name);
    const path = join(folder, entry);
    files.push({ name, path, checksum: migrationChecksum(readFileSync(path, "utf8")) });
  }
  return files;
}

/** Imports a migration file and checks its shape, so a typo fails here and not halfway through a deploy. */
export async function loadMigration(file: MigrationFile): Promise<LoadedMigration> {
  let exported: unknown;
  try {
    exported = await loadModule(file.path);
  } catch (error) {
    throw new MigrationStateError(`Migration ${file.name} could not be loaded: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return { ...file, migration: checkMigration(file.name, exported) };
}

function checkMigration(name: string, value: unknown): Migration {
  const fail = (what: string): never => {
    throw new MigrationStateError(`Migration ${name}: ${what}`);
  };
  if (typeof value !== "object" || value === null) return fail("the file has no default export (export default { dialect, up, down })");
  const m = value as Record<string, unknown>;
  if (typeof m.dialect !== "string") fail('"dialect" must name the dialect the statements are for');
  if (!Array.isArray(m.up)) fail('"up" must be a list of steps');
  if (m.down !== null && !Array.isArray(m.down)) fail('"down" must be a list of steps, or null when the migration cannot be reverted');
  for (const key of ["lockTimeoutMs", "lockRetries"] as const) {
    const v = m[key];
    if (v !== undefined && (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0)) fail(`"${key}" must be a whole number from 0`);
  }
  for (const [list, steps] of [
    ["up", m.up],
    ["down", m.down ?? []],
  ] as const) {
    for (const [i, step] of (steps as unknown[]).entries()) checkStep(step, `${list}[${i}]`, fail);
  }
  return value as Migration;
}

function checkStep(step: unknown, where: string, fail: (what: string) => never): asserts step is MigrationStep {
  if (typeof step !== "object" || step === null) fail(`${where} is not a step`);
  const s = step as Record<string, unknown>;
  if (s.transactional !== undefined && typeof s.transactional !== "boolean") fail(`${where}.transactional must be true or false`);
  switch (s.kind) {
    case "change": {
      const statements = s.statements;
      if (typeof s.change !== "object" || s.change === null) fail(`${where}.change must be a schema change`);
      if (!Array.isArray(statements)) fail(`${where}.statements must list the statements the change compiled to`);
      for (const st of statements as unknown[]) {
        const t = st as { sql?: unknown; transactional?: unknown } | null;
        if (typeof t?.sql !== "string" || typeof t.transactional !== "boolean") fail(`${where}.statements: each is { sql, transactional }`);
        for (const flag of ["failsOnRows", "restores", "replays", "copiesTable"] as const) {
          const v = (t as Record<string, unknown>)[flag];
          if (v !== undefined && typeof v !== "boolean") fail(`${where}.statements: ${flag} is true or false`);
        }
      }
      return;
    }
    case "sql":
      if (typeof s.sql !== "string" || s.sql.trim() === "") fail(`${where}.sql must be a statement`);
      return;
    case "data":
      if (typeof s.name !== "string") fail(`${where}.name must say what the step does`);
      if (typeof s.run !== "function") fail(`${where}.run must be a function`);
      return;
    default:
      fail(`${where}.kind must be "change", "sql" or "data"`);
  }
}
