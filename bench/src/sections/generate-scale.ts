import "@tempest-db-js/dialect-postgres";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateMigration } from "@tempest-db-js/migrate";
import pg from "pg";
import type { Engine, ModelClass } from "tempest-db-js";
import { createEngine, introspect } from "tempest-db-js";
import type { ChildRun } from "../lib/child-timing.js";
import { sampleChild, timeChild } from "../lib/child-timing.js";
import { DrizzleProject, pushedStatements } from "../lib/drizzle-kit-runs.js";
import { PG_URL } from "../lib/env.js";
import type { Row, SectionResult } from "../lib/report.js";
import { changedTables, SCALE_PREFIX, scaleModels } from "../lib/scale-schema.js";
import { median, sample } from "../lib/stats.js";

const benchRoot = fileURLToPath(new URL("../..", import.meta.url));
const schemaModule = fileURLToPath(new URL("../lib/scale-schema.ts", import.meta.url));
const tempestBin = join(benchRoot, "node_modules/@tempest-db-js/migrate/bin/tempest-migrate.mjs");

async function dropScaleTables(admin: pg.Pool): Promise<void> {
  const { rows } = await admin.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE $1",
    [`${SCALE_PREFIX.replace("_", "\\_")}%`],
  );
  if (rows.length > 0) await admin.query(`DROP TABLE ${rows.map((r) => `"${r.name}"`).join(", ")} CASCADE`);
}

/** What every run must have produced: one added column per touched table, nothing else. */
function expectAdds(tool: string, got: readonly string[], n: number): void {
  const want = changedTables(n).length;
  const adds = got.filter((s) => /add column|ADD COLUMN/.test(s) && /note/.test(s));
  if (got.length !== want || adds.length !== want) {
    throw new Error(`${tool}: expected ${want} added columns, got ${got.length} changes:\n${got.slice(0, 10).join("\n")}`);
  }
}

/** A tempest project in `dir`: the CLI's config, loading the same generated models. */
function writeTempestConfig(dir: string, n: number): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "tempest.config.ts"),
    `import { scaleModels } from ${JSON.stringify(schemaModule)};
export default { url: process.env.GS_URL as string, models: [...scaleModels(${n}, true)], migrations: "./migrations" };
`,
  );
}

function cliChanges(run: ChildRun): string[] {
  return (JSON.parse(run.stdout) as { changes: string[] }).changes;
}

async function tempestTimings(engine: Engine, work: string, n: number, quick: boolean): Promise<Row[]> {
  const base = scaleModels(n, false);
  const changed = scaleModels(n, true);
  const names = base.map((m: ModelClass) => m.tablename);
  const inProcess = quick ? 2 : 7;
  const children = quick ? 1 : 5;
  const folder = join(work, "tempest-live");
  const clear = () => rmSync(folder, { recursive: true, force: true });

  const introspected = await sample(inProcess, () => introspect(engine, { tables: names }));
  let changes: readonly string[] = [];
  const live = await sample(
    inProcess,
    async () => {
      changes = (await generateMigration({ engine, models: changed, folder, from: "database", name: "add note" })).changes;
    },
    { setup: clear },
  );
  expectAdds("generateMigration --from database", changes, n);

  // Offline: a first migration of every table (its snapshot is what the next generate reads).
  const baseFolder = join(work, "tempest-base");
  await generateMigration({ engine, models: base, folder: baseFolder, from: "snapshot", name: "init" });
  const offline = await sample(
    inProcess,
    async () => {
      changes = (await generateMigration({ engine, models: changed, folder, from: "snapshot", name: "add note" })).changes;
    },
    { setup: () => cpSync(baseFolder, folder, { recursive: true }), teardown: clear },
  );
  expectAdds("generateMigration --from snapshot", changes, n);

  const project = join(work, "tempest-cli");
  writeTempestConfig(project, n);
  const migrations = join(project, "migrations");
  const cli = (from: string) => () =>
    timeChild(process.execPath, [tempestBin, "generate", "--from", from, "--json", "add note"], project, { GS_URL: PG_URL });
  const cliLive = await sampleChild(children, cli("database"), {
    warmup: quick ? 0 : 1,
    setup: () => rmSync(migrations, { recursive: true, force: true }),
  });
  expectAdds("tempest-migrate generate --from database", cliChanges(cliLive.last), n);
  // Left out of --quick, which CI runs: one more process start of several seconds on a busy machine.
  const cliOffline = quick
    ? null
    : await sampleChild(children, cli("snapshot"), {
        warmup: 1,
        setup: () => {
          rmSync(migrations, { recursive: true, force: true });
          cpSync(baseFolder, migrations, { recursive: true });
        },
      });
  if (cliOffline) expectAdds("tempest-migrate generate --from snapshot", cliChanges(cliOffline.last), n);
  const start = await sampleChild(children, () => timeChild(process.execPath, ["-e", ""], work), { warmup: quick ? 0 : 1 });

  const runs = (k: number) => ({ runs: `${k}` as string });
  return [
    { name: "tempest generateMigration, from database (in process)", value: median(live), unit: "ms", extra: runs(inProcess) },
    { name: "tempest-migrate generate --from database (process)", value: median(cliLive.ms), unit: "ms", extra: runs(children) },
    { name: "tempest introspect() alone (in process)", value: median(introspected), unit: "ms", extra: runs(inProcess) },
    { name: "tempest generateMigration, from snapshot (in process)", value: median(offline), unit: "ms", extra: runs(inProcess) },
    ...(cliOffline
      ? [
          {
            name: "tempest-migrate generate --from snapshot (process)",
            value: median(cliOffline.ms),
            unit: "ms" as const,
            extra: runs(children),
          },
        ]
      : []),
    { name: "node -e '' (a process's start and exit)", value: median(start.ms), unit: "ms", extra: runs(children) },
  ];
}

async function drizzleTimings(admin: pg.Pool, work: string, n: number, quick: boolean): Promise<Row[]> {
  const children = quick ? 1 : 5;
  const warmup = quick ? 0 : 1;
  const project = new DrizzleProject(join(work, "drizzle"), benchRoot, n);
  project.generateBase(PG_URL);

  const generated = await sampleChild(children, () => project.generate(PG_URL), { warmup, setup: () => project.resetGenerated() });
  expectAdds("drizzle-kit generate", project.generatedStatements(), n);

  const pulled = await sampleChild(children, () => project.pull(PG_URL), { warmup, setup: () => project.resetPulled() });
  if (project.pulledTables() !== n) throw new Error(`drizzle-kit pull: ${project.pulledTables()} tables in its snapshot, expected ${n}`);

  // push applies the change: drop the added columns after each run so that every run does the same work.
  const undo = async () => {
    for (const i of changedTables(n))
      await admin.query(`ALTER TABLE "${SCALE_PREFIX}${String(i).padStart(3, "0")}" DROP COLUMN IF EXISTS note`);
  };
  const pushed = await sampleChild(children, () => project.push(PG_URL), { warmup, teardown: undo });
  // Also the check that schema.ts describes the live tables: push plans nothing but the added columns.
  expectAdds("drizzle-kit push", pushedStatements(pushed.last.stdout), n);

  const runs = { runs: `${children}` };
  return [
    { name: "drizzle-kit push --verbose (process: introspect, diff, apply)", value: median(pushed.ms), unit: "ms", extra: runs },
    { name: "drizzle-kit pull (process: introspect, write schema.ts)", value: median(pulled.ms), unit: "ms", extra: runs },
    { name: "drizzle-kit generate (process: schema.ts vs snapshot)", value: median(generated.ms), unit: "ms", extra: runs },
  ];
}

/**
 * `generate` against a live schema of `n` tables (issue 24), beside drizzle-kit's commands on the
 * same schema. The change: one nullable text column added to three tables. tempest's rows run the
 * function the CLI's `generate` calls, in process, and the CLI itself; drizzle-kit runs only as a
 * CLI. The operations differ (see the notes), so each row says what it times.
 */
export async function generateScale(quick: boolean): Promise<SectionResult> {
  const n = quick ? 20 : 200;
  const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
  const engine = createEngine(PG_URL);
  // Inside the bench package: drizzle's schema files import drizzle-orm, the config imports tempest.
  const work = mkdtempSync(join(benchRoot, ".generate-scale-"));
  try {
    await dropScaleTables(admin);
    const started = performance.now();
    await engine.createAll(scaleModels(n, false));
    const createMs = performance.now() - started;
    const tempest = await tempestTimings(engine, work, n, quick);
    const drizzle = await drizzleTimings(admin, work, n, quick);
    const byName = (name: string) => [...tempest, ...drizzle].find((r) => r.name.startsWith(name));
    const group = (title: string, names: string[], notes: string[]) => {
      const rows = names.map(byName).filter((r) => r !== undefined);
      return { title, rows, baselines: [(rows[0] as Row).name], checks: [], notes };
    };
    return {
      id: "generate-scale",
      title: `PostgreSQL: generate against a live ${n}-table schema, tempest-migrate and drizzle-kit (3 columns added)`,
      groups: [
        group(
          "live database → the migration",
          ["tempest generateMigration, from database", "tempest-migrate generate --from database", "drizzle-kit push"],
          [
            "tempest: introspect the schema's tables, diff against the models, compile up and down, write the .ts file and its snapshot",
            "drizzle-kit has no generate from a live database; push introspects, diffs against schema.ts and applies (no file)",
            "push --strict asks before applying and refuses without a TTY, so push runs without it; the columns are dropped after each run, untimed",
          ],
        ),
        group(
          "introspection of the live schema",
          ["tempest introspect() alone", "drizzle-kit pull"],
          ["pull also writes schema.ts, relations.ts, a SQL file and a snapshot of every table"],
        ),
        group(
          "offline: the models against the last migration's snapshot",
          ["tempest generateMigration, from snapshot", "tempest-migrate generate --from snapshot", "drizzle-kit generate", "node -e"],
          [
            "each run starts from the first migration's folder (every table), copied in untimed",
            "process rows: spawn to exit, through Node's start and module loading; the CLI configs are TypeScript (jiti for tempest, drizzle-kit's own loader)",
            `createAll of the ${n} tables (10 columns, 2-3 indexes, a foreign key each but the first, every third a partial unique index): ${Math.round(createMs)} ms`,
            `drizzle's schema.ts describes the tables createAll made (push plans only the ${changedTables(n).length} added columns); pg-core cannot state text's COLLATE "C"`,
          ],
        ),
      ],
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
    await dropScaleTables(admin).catch(() => {});
    await admin.end();
    await engine.close();
  }
}
