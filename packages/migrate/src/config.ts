import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { EngineOptions, ModelClass } from "tempest-db-js";
import { MigrationStateError } from "./errors.js";
import { loadModule } from "./load-module.js";

/** `tempest.config.ts`: what the CLI reads (and what the functions take). */
export interface MigrateConfig {
  /** The database URL; the scheme picks the dialect. */
  readonly url: string;
  /** The models the schema should match, referenced tables before the tables that reference them. */
  readonly models: readonly ModelClass<any>[];
  /** The migrations folder, relative to the config file (default `./migrations`). */
  readonly migrations?: string;
  /** The history table's name (default `tempest_migrations`). */
  readonly historyTable?: string;
  /** How long each DDL statement may wait for its table's lock (PostgreSQL `lock_timeout`, MySQL `lock_wait_timeout`), unless a migration sets its own (default 5 000 ms). */
  readonly lockTimeoutMs?: number;
  /** Retries of a statement that gave up waiting for its lock (default 3). */
  readonly lockRetries?: number;
  /** Longest wait for another runner's migration lock (default 600 000 ms). */
  readonly lockWaitMs?: number;
  /** Passed to createEngine (pool size, timeouts). */
  readonly engine?: Omit<EngineOptions, "dialect">;
}

/** The config with its paths made absolute. */
export interface ResolvedConfig extends MigrateConfig {
  /** The config file's path. */
  readonly path: string;
  /** The migrations folder's absolute path. */
  readonly migrationsFolder: string;
}

/** Identity, for type checking `tempest.config.ts`: `export default defineConfig({ ... })`. */
export function defineConfig(config: MigrateConfig): MigrateConfig {
  return config;
}

export const CONFIG_FILES = ["tempest.config.ts", "tempest.config.mts", "tempest.config.mjs", "tempest.config.js"] as const;

/** Finds the config file: the one given, else the first of CONFIG_FILES in `cwd`. */
export function findConfig(cwd: string, given?: string): string {
  if (given !== undefined) {
    const path = isAbsolute(given) ? given : resolve(cwd, given);
    if (!existsSync(path)) throw new MigrationStateError(`No config file at ${path}.`);
    return path;
  }
  for (const name of CONFIG_FILES) {
    const path = join(cwd, name);
    if (existsSync(path)) return path;
  }
  throw new MigrationStateError(`No ${CONFIG_FILES[0]} in ${cwd}: create one (see docs/evolving-a-schema.md) or pass --config.`);
}

/** Loads a TypeScript (or JavaScript) config file, without a compile step, and checks it. */
export async function loadConfig(path: string): Promise<ResolvedConfig> {
  let value: unknown;
  try {
    value = await loadModule(path);
  } catch (error) {
    throw new MigrationStateError(`The config ${path} could not be loaded: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const config = (typeof value === "function" ? await (value as () => unknown)() : value) as Partial<MigrateConfig> | null;
  const fail = (what: string): never => {
    throw new MigrationStateError(`The config ${path}: ${what}`);
  };
  if (typeof config !== "object" || config === null) return fail("has no default export (export default defineConfig({ url, models }))");
  if (typeof config.url !== "string" || config.url === "") fail('"url" must be the database URL');
  if (!Array.isArray(config.models) || config.models.some((m) => typeof m !== "function")) fail('"models" must be a list of model classes');
  if (config.migrations !== undefined && typeof config.migrations !== "string") fail('"migrations" must be a folder path');
  const migrationsFolder = resolve(dirname(path), config.migrations ?? "migrations");
  return { ...(config as MigrateConfig), path, migrationsFolder };
}
