import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Dialect, Engine } from "tempest-db-js";
import { createEngine } from "tempest-db-js";

/** A real database the suite runs against. */
export interface Target {
  readonly name: "PostgreSQL" | "MySQL" | "SQLite";
  readonly url: string;
  /** The dialect package, imported so that it registers itself (the test runner's module loader does not take core's require() fallback). */
  readonly dialectPackage: string;
}

const sqliteDir = mkdtempSync(join(tmpdir(), "tempest-queue-"));

const all: Target[] = [
  {
    name: "PostgreSQL",
    url: process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test",
    dialectPackage: "@tempest-db-js/dialect-postgres",
  },
  {
    name: "MySQL",
    url: process.env.TEMPEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test",
    dialectPackage: "@tempest-db-js/dialect-mysql",
  },
  { name: "SQLite", url: `sqlite://${join(sqliteDir, "queue.db")}`, dialectPackage: "@tempest-db-js/dialect-sqlite" },
];

/** Every dialect by default; QUEUE_TEST_DIALECTS=PostgreSQL,SQLite narrows a local run. */
export const targets: Target[] = process.env.QUEUE_TEST_DIALECTS
  ? all.filter((t) => process.env.QUEUE_TEST_DIALECTS?.split(",").includes(t.name))
  : all;

const dialects = new Map<string, Dialect>();
for (const target of targets) {
  const loaded = (await import(target.dialectPackage)) as { default: Dialect };
  dialects.set(target.name, loaded.default);
}

/** The dialect object behind a target (its package's default export). */
export function dialectOf(target: Target): Dialect {
  const dialect = dialects.get(target.name);
  if (!dialect) throw new Error(`${target.name} is not among the targets of this run`);
  return dialect;
}

export function engineFor(target: Target, poolSize = 10): Engine {
  return createEngine(target.url, { poolSize });
}

/** Thousands of messages in CI, a few more locally; never tens of thousands. */
export const MESSAGES = process.env.TEMPEST_QUICK === "1" || process.env.CI ? 2000 : 4000;
