import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Engine } from "tempest-db-js";
import { column, createTable, Model, sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliProcess } from "./support/run-cli-process.js";
import { dropTables, engineFor, sqlMigration, tableExists, targets, tempFolder, writeMigration } from "./support/targets.js";

class CliItem extends Model {
  static tablename = "mg_cli_items";
  id = column.integer().primaryKey();
}

/** A config in TypeScript (type annotations, a non-null assertion): nothing compiles it beforehand. */
function writeConfig(dir: string, historyTable: string): void {
  writeFileSync(
    join(dir, "tempest.config.ts"),
    `import { column, Model } from "tempest-db-js";
import type { MigrateConfig } from "@tempest-db-js/migrate";

class Item extends Model {
  static tablename = "mg_cli_items";
  id = column.integer().primaryKey();
}

const url: string = process.env.MG_URL!;
const config: MigrateConfig = { url, models: [Item], migrations: "./db/migrations", historyTable: ${JSON.stringify(historyTable)} };
export default config;
`,
  );
}

describe.each(targets)("concurrent CLI runs on $name", (target) => {
  let engine: Engine;
  const folders: { remove: () => void }[] = [];
  beforeAll(() => {
    engine = engineFor(target);
  });
  afterAll(async () => {
    await engine.close();
    for (const f of folders) f.remove();
  });

  it("two processes running up at once apply each migration exactly once", async () => {
    const historyTable = "mg_hist_race";
    await dropTables(engine, ["mg_race_runs", "mg_race_a", "mg_race_b", "mg_race_c", historyTable]);
    await engine.execute(sql.raw("CREATE TABLE mg_race_runs (name varchar(40) NOT NULL)")).rowsAffected();
    const tmp = tempFolder("race");
    folders.push(tmp);
    writeConfig(tmp.path, historyTable);
    const names = ["a", "b", "c"];
    names.forEach((n, i) => {
      writeMigration(
        join(tmp.path, "db/migrations"),
        `2026010100000${i}_race_${n}`,
        `{
          dialect: ${JSON.stringify(target.name)},
          up: [
            { kind: "sql", sql: "CREATE TABLE mg_race_${n} (id integer)" },
            {
              kind: "data",
              name: "record this run",
              // Slow enough that the second process arrives while the first is still applying.
              async run({ db }) {
                await new Promise((resolve) => setTimeout(resolve, 300));
                const { sql } = await import("tempest-db-js");
                await db.execute(sql.expr\`INSERT INTO mg_race_runs (name) VALUES (\${${JSON.stringify(n)}})\`).rowsAffected();
              },
            },
          ],
          down: [{ kind: "sql", sql: "DROP TABLE mg_race_${n}" }],
        }`,
      );
    });
    const env = { MG_URL: target.url };
    const runs = await Promise.all([runCliProcess(["up", "--json"], tmp.path, env), runCliProcess(["up", "--json"], tmp.path, env)]);
    for (const run of runs) expect(run.code, run.stderr + run.stdout).toBe(0);
    const results = runs.map((r) => JSON.parse(r.stdout) as { applied: string[]; skipped: string[] });
    const applied = results.flatMap((r) => r.applied).sort();
    expect(applied).toEqual(["20260101000000_race_a", "20260101000001_race_b", "20260101000002_race_c"]);
    const recorded = await engine.execute(sql.raw("SELECT name FROM mg_race_runs ORDER BY name")).all();
    expect(recorded).toEqual([{ name: "a" }, { name: "b" }, { name: "c" }]);
    const history = await engine.execute(sql.raw(`SELECT name, status FROM ${historyTable} ORDER BY name`)).all();
    expect(history).toEqual(applied.map((name) => ({ name, status: "applied" })));
    await dropTables(engine, ["mg_race_runs", "mg_race_a", "mg_race_b", "mg_race_c", historyTable]);
  });

  /**
   * Migrations whose first step runs outside the transaction (on SQLite, where each migration's
   * BEGIN IMMEDIATE transaction is the lock, such a step once ran in both runners, and each wrote its
   * own progress row over the other's): the row is claimed before the step runs.
   */
  it("two processes running up at once: migrations that start outside the transaction run once each", { timeout: 300_000 }, async () => {
    const historyTable = "mg_hist_lead";
    await dropTables(engine, ["mg_lead_runs", "mg_lead_a", "mg_lead_b", "mg_lead_c", historyTable]);
    await engine.execute(sql.raw("CREATE TABLE mg_lead_runs (name varchar(40) NOT NULL)")).rowsAffected();
    const tmp = tempFolder("lead");
    folders.push(tmp);
    writeConfig(tmp.path, historyTable);
    const record = (what: string, wait: number) => `async run({ db }) {
                await new Promise((resolve) => setTimeout(resolve, ${wait}));
                const { sql } = await import("tempest-db-js");
                await db.execute(sql.expr\`INSERT INTO mg_lead_runs (name) VALUES (\${${JSON.stringify(what)}})\`).rowsAffected();
              }`;
    const names = ["a", "b", "c"];
    names.forEach((n, i) => {
      writeMigration(
        join(tmp.path, "db/migrations"),
        `2026010100000${i}_lead_${n}`,
        `{
          dialect: ${JSON.stringify(target.name)},
          up: [
            { kind: "data", name: "lead", transactional: false, ${record(`lead ${n}`, 300)} },
            { kind: "sql", sql: "CREATE TABLE mg_lead_${n} (id integer)" },
            { kind: "data", name: "in the transaction", ${record(n, 100)} },
          ],
          down: [{ kind: "sql", sql: "DROP TABLE mg_lead_${n}" }],
        }`,
      );
    });
    const env = { MG_URL: target.url };
    const runs = await Promise.all([runCliProcess(["up", "--json"], tmp.path, env), runCliProcess(["up", "--json"], tmp.path, env)]);
    for (const run of runs) expect(run.code, run.stderr + run.stdout).toBe(0);
    const results = runs.map((r) => JSON.parse(r.stdout) as { applied: string[]; skipped: string[] });
    expect(results.flatMap((r) => r.applied).sort()).toEqual(["20260101000000_lead_a", "20260101000001_lead_b", "20260101000002_lead_c"]);
    const recorded = await engine.execute(sql.raw("SELECT name FROM mg_lead_runs ORDER BY name")).all();
    expect(recorded.map((r) => r.name)).toEqual(["a", "b", "c", "lead a", "lead b", "lead c"]);
    const history = await engine.execute(sql.raw(`SELECT name, status FROM ${historyTable} ORDER BY name`)).all();
    expect(history).toEqual(names.map((n, i) => ({ name: `2026010100000${i}_lead_${n}`, status: "applied" })));
    await dropTables(engine, ["mg_lead_runs", "mg_lead_a", "mg_lead_b", "mg_lead_c", historyTable]);
  });
});

const sqlite = targets.find((t) => t.name === "SQLite");

// The whole command set once, on the database without a server; the race runs on every database.
describe.each(sqlite ? [sqlite] : [])("the CLI end to end on $name", (target) => {
  let engine: Engine;
  const folders: { remove: () => void }[] = [];
  beforeAll(() => {
    engine = engineFor(target);
  });
  afterAll(async () => {
    await engine.close();
    for (const f of folders) f.remove();
  });

  it("status, check, up, down end to end with a TypeScript config; --json for scripts", async () => {
    const historyTable = "mg_hist_cli";
    await dropTables(engine, ["mg_cli_items", historyTable]);
    const tmp = tempFolder("cli");
    folders.push(tmp);
    writeConfig(tmp.path, historyTable);
    const migrations = join(tmp.path, "db/migrations");
    // The table as the config's model creates it, and an index the model does not declare (drift).
    const createItems = engine.compile(createTable(CliItem)).sql;
    const file = writeMigration(
      migrations,
      "20260101000000_create_items",
      sqlMigration(target.name, [createItems, "CREATE INDEX mg_cli_items_id ON mg_cli_items (id)"], ["DROP TABLE mg_cli_items"]),
    );
    const env = { MG_URL: target.url };
    const cli = (...args: string[]) => runCliProcess(args, tmp.path, env);

    const pending = await cli("check");
    expect(pending.code).toBe(1);
    expect(pending.stdout).toContain("pending: 20260101000000_create_items");

    const status = await cli("status", "--json");
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ pending: ["20260101000000_create_items"], problems: [] });

    const up = await cli("up");
    expect(up.code).toBe(0);
    expect(up.stderr).toContain(`tempest-migrate up: ${target.name}`);
    expect(up.stderr).toContain("applying 20260101000000_create_items (2 steps)");
    expect(up.stderr).toMatch(/\[2\/2\] CREATE INDEX mg_cli_items_id ON mg_cli_items \(id\) \(\d+ ms\)/);
    expect(up.stdout).toBe("Applied 1 migration.\n");
    expect(await tableExists(engine, "mg_cli_items")).toBe(true);

    const again = await cli("up", "--json");
    expect(JSON.parse(again.stdout)).toEqual({ ok: true, applied: [], skipped: [] });
    const drifted = await cli("check", "--json");
    expect(drifted.code).toBe(1);
    expect(JSON.parse(drifted.stdout)).toEqual({
      ok: false,
      pending: [],
      problems: [],
      drift: ["drop index mg_cli_items.mg_cli_items_id"],
    });
    await engine.execute(sql.raw("DROP INDEX mg_cli_items_id")).rowsAffected();
    const clean = await cli("check");
    expect(clean.stdout).toBe("OK: every migration is applied and the database matches the models.\n");
    expect(clean.code).toBe(0);

    const pulled = await cli("pull", "--out", "pulled-models.ts", "--json");
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(JSON.parse(pulled.stdout)).toMatchObject({ ok: true, roundTrips: true });
    expect(readFileSync(join(tmp.path, "pulled-models.ts"), "utf8")).toMatch(
      /class \w+ extends Model \{\n\s+static tablename = "mg_cli_items";/,
    );

    appendFileSync(file, "// edited after the deploy\n");
    const edited = await cli("check", "--json");
    expect(edited.code).toBe(1);
    expect(JSON.parse(edited.stdout).problems[0]).toMatch(/20260101000000_create_items was edited after it was applied/);
    const refused = await cli("up", "--json");
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ name: "MigrationChecksumError", code: "MIGRATION_CHECKSUM" });

    writeMigration(
      migrations,
      "20260101000000_create_items",
      sqlMigration(target.name, [createItems, "CREATE INDEX mg_cli_items_id ON mg_cli_items (id)"], ["DROP TABLE mg_cli_items"]),
    );
    const down = await cli("down", "1");
    expect(down.code).toBe(0);
    expect(down.stdout).toBe("Reverted 20260101000000_create_items.\n");
    expect(await tableExists(engine, "mg_cli_items")).toBe(false);

    const usage = await cli("sideways");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Unknown command "sideways"');
  });
});
