import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Engine } from "tempest-db-js";
import { introspect, redactUrl, TempestError } from "tempest-db-js";
import { checkSchema } from "../check-schema.js";
import type { ResolvedConfig } from "../config.js";
import { findConfig, loadConfig } from "../config.js";
import { MigrationFailedError } from "../errors.js";
import { generateMigration } from "../generate-migration.js";
import { pullModels } from "../pull/pull-models.js";
import type { MigrateEvent } from "../runner/migrate-event.js";
import type { RunnerOptions } from "../runner/migrator.js";
import { migrateDown, migrateUp, migrationStatus } from "../runner/migrator.js";
import type { CliIo } from "./cli-io.js";
import { humanEvent } from "./human-events.js";

export const USAGE = `Usage: tempest-migrate <command> [options]

Commands:
  generate [name]    write the migration that brings the schema to the models (up, down, snapshot)
  up                 apply every pending migration, in order, under the migration lock
  down [N]           revert the last N applied migrations (default 1)
  status             list the migrations and their state
  check              exit 1 when a migration is pending, edited or failed, or the database
                     drifted from the models (for CI)
  pull               write model classes for the tables the database has (to --out, or stdout)

Options:
  --config <file>    the config file (default: tempest.config.ts in the current folder)
  --from <source>    generate: diff against the last migration's "snapshot" (default once one
                     exists) or the live "database" (default for the first migration)
  --allow-destructive <label>
                     generate: allow a destructive change by its label ("drop column t.c"), or all
  --rename-table <old=new>, --rename-column <table.old=new>
                     generate: declare a rename (never guessed)
  --unsafe           generate: keep the plain form of changes that lock a table with rows
                     (default: the lock-safe form on PostgreSQL, e.g. CREATE INDEX CONCURRENTLY)
  --strict           generate: refuse to write a migration with lock-safety warnings
  --out <file>       pull: the TypeScript file to write
  --resume           up: go on with a migration that failed part way, from its first step not done
  --json             print one JSON document for scripts instead of progress and a summary
  -h, --help         show this help
`;

/** A command's outcome: the document `--json` prints, the summary people read, and the exit code. */
interface Outcome {
  readonly json: Record<string, unknown>;
  readonly summary: string;
  readonly code: number;
}

type Command = (context: { config: ResolvedConfig; engine: Engine; runner: RunnerOptions; args: Args; cwd: string }) => Promise<Outcome>;

interface Args {
  readonly positionals: readonly string[];
  readonly resume: boolean;
  readonly from: string | undefined;
  readonly out: string | undefined;
  readonly unsafe: boolean;
  readonly strict: boolean;
  readonly allow: readonly string[];
  readonly renameTable: readonly string[];
  readonly renameColumn: readonly string[];
}

/** `a=b` pairs of --rename-table / --rename-column. */
function pairs(list: readonly string[], flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list) {
    const at = item.indexOf("=");
    if (at <= 0 || at === item.length - 1) throw new UsageError(`${flag} takes old=new, got "${item}"`);
    out[item.slice(0, at)] = item.slice(at + 1);
  }
  return out;
}

const COMMANDS: Readonly<Record<string, Command>> = {
  async pull({ config, engine, args, cwd }) {
    const live = await introspect(engine);
    const history = config.historyTable ?? "tempest_migrations";
    const snapshot = { ...live, tables: live.tables.filter((t) => t.name !== history) };
    const result = pullModels(snapshot, { check: engine });
    const warnings = result.warnings.map((w) => `${w.table}: ${w.message}`);
    if (args.out === undefined) {
      return {
        json: { ok: true, source: result.source, warnings, roundTrips: result.roundTrips },
        summary: result.source.trimEnd(),
        code: 0,
      };
    }
    const path = resolve(cwd, args.out);
    writeFileSync(path, result.source);
    const summary = [
      `Wrote ${snapshot.tables.length} model${snapshot.tables.length === 1 ? "" : "s"} to ${path}.`,
      ...warnings.map((w) => `warning: ${w}`),
    ].join("\n");
    return {
      json: { ok: true, path, tables: snapshot.tables.map((t) => t.name), warnings, roundTrips: result.roundTrips },
      summary,
      code: 0,
    };
  },
  async generate({ config, engine, args }) {
    const from = args.from;
    if (from !== undefined && from !== "snapshot" && from !== "database")
      throw new UsageError(`--from is snapshot or database, got "${from}"`);
    const result = await generateMigration({
      engine,
      models: config.models,
      folder: config.migrationsFolder,
      ...(args.positionals.length > 0 ? { name: args.positionals.join(" ") } : {}),
      ...(from === undefined ? {} : { from }),
      renames: { tables: pairs(args.renameTable, "--rename-table"), columns: pairs(args.renameColumn, "--rename-column") },
      ...(args.allow.length > 0 ? { allowDestructive: args.allow.includes("all") ? "all" : args.allow } : {}),
      ...(config.historyTable === undefined ? {} : { historyTable: config.historyTable }),
      ...(args.unsafe ? { safe: false } : {}),
      ...(args.strict ? { warningsAsErrors: true } : {}),
    });
    const hints = result.hints.map((h) =>
      h.kind === "table"
        ? `table ${h.from} dropped and ${h.to} added with the same columns: a rename? pass --rename-table ${h.from}=${h.to}`
        : `column ${h.table}.${h.from} dropped and ${h.to} added with the same type: a rename? pass --rename-column ${h.table}.${h.from}=${h.to}`,
    );
    const summary = result.written
      ? [
          `Wrote ${result.path}:`,
          ...result.changes.map((c) => `  ${c}`),
          ...result.warnings.map((w) => `warning: ${w}`),
          ...hints.map((h) => `hint: ${h}`),
        ].join("\n")
      : ["Nothing to generate: the models match.", ...hints.map((h) => `hint: ${h}`)].join("\n");
    return { json: { ok: true, ...result }, summary, code: 0 };
  },
  async up({ runner, args }) {
    const result = await migrateUp({ ...runner, resume: args.resume });
    const summary =
      result.applied.length === 0 && result.skipped.length === 0
        ? "Nothing to apply: the database is up to date."
        : `Applied ${result.applied.length} migration${result.applied.length === 1 ? "" : "s"}${result.skipped.length > 0 ? ` (${result.skipped.length} applied by another runner meanwhile)` : ""}.`;
    return { json: { ok: true, ...result }, summary, code: 0 };
  },
  async down({ runner, args }) {
    const given = args.positionals[0];
    const count = given === undefined ? 1 : Number(given);
    if (!Number.isSafeInteger(count) || count < 1) throw new UsageError(`down takes a number of migrations, got "${given}"`);
    const result = await migrateDown({ ...runner, count });
    const summary = result.reverted.length === 0 ? "Nothing to revert." : `Reverted ${result.reverted.join(", ")}.`;
    return { json: { ok: true, ...result }, summary, code: 0 };
  },
  async status({ runner }) {
    const result = await migrationStatus(runner);
    const width = Math.max(4, ...result.migrations.map((m) => m.name.length));
    const lines = result.migrations.map((m) =>
      `${m.name.padEnd(width)}  ${m.state.padEnd(12)}  ${m.appliedAt ? m.appliedAt.toISOString() : ""}`.trimEnd(),
    );
    const summary = [
      ...(lines.length > 0 ? lines : ["(no migrations)"]),
      ...result.problems.map((p) => `problem: ${p}`),
      `${result.migrations.filter((m) => m.state === "applied").length} applied, ${result.pending.length} pending.`,
    ].join("\n");
    return { json: { ok: result.problems.length === 0, ...result }, summary, code: 0 };
  },
  async check({ runner, config }) {
    const result = await checkSchema({ ...runner, models: config.models });
    const findings = [...result.pending.map((name) => `pending: ${name}`), ...result.problems, ...result.drift.map((d) => `drift: ${d}`)];
    const summary = result.ok
      ? "OK: every migration is applied and the database matches the models."
      : `check failed:\n${findings.map((f) => `  ${f}`).join("\n")}`;
    return { json: { ...result }, summary, code: result.ok ? 0 : 1 };
  },
};

class UsageError extends Error {}

function errorJson(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields: Record<string, unknown> = { name: error.name, message: error.message };
  if (TempestError.isInstance(error)) fields.code = error.code;
  if (MigrationFailedError.isInstance(error)) {
    fields.migration = error.migration;
    fields.failed = error.failed;
    fields.ran = error.ran;
    fields.rolledBack = error.rolledBack;
  }
  return fields;
}

/** Runs the CLI with these arguments (without `node` and the script); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [name, ...rest] = positionals;
  if (values.help || name === undefined) {
    (values.help ? io.out : io.err)(USAGE);
    return values.help ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`Unknown command "${name}".\n\n${USAGE}`);
    return 2;
  }
  const json = values.json === true;
  const progress = (e: MigrateEvent) => {
    if (!json) io.err(`${humanEvent(e)}\n`);
  };
  let engine: Engine | undefined;
  try {
    const config = await loadConfig(findConfig(io.cwd, values.config));
    const { openEngine } = await import("./open-engine.js");
    engine = await openEngine(config);
    if (!json)
      io.err(`tempest-migrate ${name}: ${engine.dialectName} at ${redactUrl(config.url)}, migrations in ${config.migrationsFolder}\n`);
    const runner: RunnerOptions = {
      engine,
      folder: config.migrationsFolder,
      ...(config.historyTable === undefined ? {} : { historyTable: config.historyTable }),
      ...(config.lockTimeoutMs === undefined ? {} : { lockTimeoutMs: config.lockTimeoutMs }),
      ...(config.lockRetries === undefined ? {} : { lockRetries: config.lockRetries }),
      ...(config.lockWaitMs === undefined ? {} : { lockWaitMs: config.lockWaitMs }),
      onEvent: progress,
    };
    const outcome = await command({
      config,
      engine,
      runner,
      args: {
        positionals: rest,
        resume: values.resume === true,
        from: values.from,
        out: values.out,
        unsafe: values.unsafe === true,
        strict: values.strict === true,
        allow: values["allow-destructive"] ?? [],
        renameTable: values["rename-table"] ?? [],
        renameColumn: values["rename-column"] ?? [],
      },
      cwd: io.cwd,
    });
    io.out(json ? `${JSON.stringify(outcome.json)}\n` : `${outcome.summary}\n`);
    return outcome.code;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (json) io.out(`${JSON.stringify({ ok: false, error: errorJson(error) })}\n`);
    else io.err(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await engine?.close();
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      config: { type: "string" },
      json: { type: "boolean" },
      resume: { type: "boolean" },
      from: { type: "string" },
      out: { type: "string" },
      unsafe: { type: "boolean" },
      strict: { type: "boolean" },
      "allow-destructive": { type: "string", multiple: true },
      "rename-table": { type: "string", multiple: true },
      "rename-column": { type: "string", multiple: true },
      help: { type: "boolean", short: "h" },
    },
  });
}
