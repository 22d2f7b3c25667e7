import { postgresDialect } from "@tempest-db-js/dialect-postgres";
import type { Dialect, MigrationSupport } from "tempest-db-js";
import { createEngine, MIGRATION_SUPPORT_VERSION, sql, UnsupportedFeatureError } from "tempest-db-js";
import { afterAll, describe, expect, it } from "vitest";
import { migrateUp } from "../src/index.js";
import { dropTables, sqlMigration, targets, tempFolder, writeMigration } from "./support/targets.js";

const postgres = targets.find((t) => t.name === "PostgreSQL");

/**
 * The runner's lock, lock timeouts and invalid-index recovery come from the dialect's
 * `migrationSupport`, not from a table of names in this package: a fourth dialect (here PostgreSQL's
 * driver and compiler under another name) brings its own, and one without it is refused by name.
 */
describe.runIf(postgres !== undefined)("a fourth dialect's migration support", () => {
  const url = postgres?.url as string;
  const folders: { remove: () => void }[] = [];
  afterAll(() => {
    for (const f of folders) f.remove();
  });
  const folder = (prefix: string) => {
    const f = tempFolder(prefix);
    folders.push(f);
    return f.path;
  };

  it("without migrationSupport: UnsupportedFeatureError naming the dialect, nothing run", async () => {
    const { migrationSupport: _, ...rest } = postgresDialect;
    const dialect: Dialect = { ...rest, name: "Fourth" };
    const engine = createEngine(url, { dialect });
    try {
      await dropTables(engine, ["mdc_refused", "mdc_hist_refused"]);
      const dir = folder("fourth-refused");
      writeMigration(dir, "20260101000000_refused", sqlMigration("Fourth", ["CREATE TABLE mdc_refused (id integer)"], null));
      const error = await migrateUp({ engine, folder: dir, historyTable: "mdc_hist_refused" }).catch((e: unknown) => e);
      expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
      expect((error as UnsupportedFeatureError).dialect).toBe("Fourth");
      expect((error as Error).message).toMatch(/migrations/);
      const left = await engine.execute(sql.raw("SELECT to_regclass('mdc_hist_refused') AS t")).scalar();
      expect(left).toBeNull();
    } finally {
      await engine.close();
    }
  });

  it("with its own: its lock and lock timeout are the ones used, and two runners at once apply each migration once", async () => {
    const calls: string[] = [];
    const support: MigrationSupport = {
      version: MIGRATION_SUPPORT_VERSION,
      lock: {
        kind: "session",
        tryLock: (key) => {
          calls.push(`lock ${key}`);
          return sql.expr`SELECT pg_try_advisory_lock(4, hashtext(${key})) AS got`;
        },
        unlock: (key) => {
          calls.push(`unlock ${key}`);
          return sql.expr`SELECT pg_advisory_unlock(4, hashtext(${key})) AS released`;
        },
      },
      transactionLockTimeout: (ms) => {
        calls.push(`timeout ${ms}`);
        return [`SET LOCAL lock_timeout = ${ms}`];
      },
    };
    const dialect: Dialect = { ...postgresDialect, name: "Fourth", migrationSupport: support };
    const engines = [createEngine(url, { dialect }), createEngine(url, { dialect })];
    try {
      await dropTables(engines[0]!, ["mdc_items", "mdc_hist"]);
      const dir = folder("fourth");
      writeMigration(dir, "20260101000000_items", sqlMigration("Fourth", ["CREATE TABLE mdc_items (id integer PRIMARY KEY)"], null));
      writeMigration(dir, "20260102000000_note", sqlMigration("Fourth", ["ALTER TABLE mdc_items ADD COLUMN note text"], null));
      const results = await Promise.all(
        engines.map((engine) => migrateUp({ engine, folder: dir, historyTable: "mdc_hist", lockTimeoutMs: 1234 })),
      );
      expect(results.flatMap((r) => r.applied).sort()).toEqual(["20260101000000_items", "20260102000000_note"]);
      expect(results.flatMap((r) => r.skipped)).toEqual([]);
      expect(calls.filter((c) => c.startsWith("lock ")).length).toBeGreaterThanOrEqual(2);
      expect(calls).toContain("unlock tempest-migrate:mdc_hist");
      expect(calls.filter((c) => c === "timeout 1234")).toHaveLength(2);
      const rows = await engines[0]!.execute(sql.raw("SELECT count(*)::int AS n FROM mdc_hist")).scalar();
      expect(rows).toBe(2);
      await dropTables(engines[0]!, ["mdc_items", "mdc_hist"]);
    } finally {
      for (const engine of engines) await engine.close();
    }
  });
});
