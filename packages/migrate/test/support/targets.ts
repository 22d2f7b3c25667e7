import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Engine } from "tempest-db-js";
import { createEngine } from "tempest-db-js";

/** A real database the suite runs against. */
export interface Target {
  readonly name: "PostgreSQL" | "MySQL" | "SQLite";
  readonly url: string;
}

/** Temporary folders live under the package, so files in them resolve tempest-db-js and this package like application code does. */
const tmpRoot = join(import.meta.dirname, "..", ".tmp");
mkdirSync(tmpRoot, { recursive: true });
const sqliteDir = mkdtempSync(join(tmpRoot, "sqlite-"));
process.on("exit", () => rmSync(sqliteDir, { recursive: true, force: true }));

const all: Target[] = [
  { name: "PostgreSQL", url: process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test" },
  { name: "MySQL", url: process.env.TEMPEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test" },
  { name: "SQLite", url: `sqlite://${join(sqliteDir, "migrate.db")}` },
];

/** The SQLite target, a file of this run: there is no server, so a SQLite-only test runs in every run (a narrowed one too). */
export const sqliteTarget = all.find((t) => t.name === "SQLite") as Target;

/** Every dialect by default; MIGRATE_TEST_DIALECTS=PostgreSQL narrows a run (the PostgreSQL 18 config does). */
export const targets: Target[] = process.env.MIGRATE_TEST_DIALECTS
  ? all.filter((t) => process.env.MIGRATE_TEST_DIALECTS?.split(",").includes(t.name))
  : all;

// The test runner's module loader does not take core's require() fallback: register the dialects.
await import("@tempest-db-js/dialect-postgres");
await import("@tempest-db-js/dialect-mysql");
await import("@tempest-db-js/dialect-sqlite");

export function engineFor(target: Target, poolSize = 6): Engine {
  return createEngine(target.url, { poolSize });
}

/** A fresh folder under test/.tmp, removed by the returned function. */
export function tempFolder(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpRoot, `${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Writes a migration file (TypeScript) into `folder`. */
export function writeMigration(folder: string, name: string, body: string): string {
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `${name}.ts`);
  writeFileSync(path, `import type { Migration } from "@tempest-db-js/migrate";\n\nexport default ${body.trim()} satisfies Migration;\n`);
  return path;
}

/** A migration of hand-written statements (the same SQL on every database). */
export function sqlMigration(dialect: string, up: readonly string[], down: readonly string[] | null): string {
  const steps = (list: readonly string[]) => `[${list.map((s) => `{ kind: "sql", sql: ${JSON.stringify(s)} }`).join(", ")}]`;
  return `{ dialect: ${JSON.stringify(dialect)}, up: ${steps(up)}, down: ${down === null ? "null" : steps(down)} }`;
}

export async function tableExists(engine: Engine, table: string): Promise<boolean> {
  const { sql } = await import("tempest-db-js");
  try {
    await engine.execute(sql.raw(`SELECT 1 FROM ${table} WHERE 1 = 0`)).all();
    return true;
  } catch {
    return false;
  }
}

export async function dropTables(engine: Engine, tables: readonly string[]): Promise<void> {
  const { sql } = await import("tempest-db-js");
  for (const t of tables) await engine.execute(sql.raw(`DROP TABLE IF EXISTS ${t}`)).rowsAffected();
}
