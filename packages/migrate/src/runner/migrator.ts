import type { Engine } from "tempest-db-js";
import { MigrationChecksumError, MigrationStateError } from "../errors.js";
import type { HistoryRow } from "../history/history-table.js";
import { HistoryTable } from "../history/history-table.js";
import type { RunnerDialect } from "../migration-dialect.js";
import { runnerDialectOf } from "../migration-dialect.js";
import type { LoadedMigration, MigrationFile } from "../migration-folder.js";
import { listMigrations, loadMigration } from "../migration-folder.js";
import { applyMigration } from "./apply-migration.js";
import { waitForRunningRows } from "./claim-migration.js";
import type { MigrateListener } from "./migrate-event.js";
import type { RunContext } from "./run-context.js";

export interface RunnerOptions {
  readonly engine: Engine;
  /** The folder of migration files. */
  readonly folder: string;
  /** The history table's name (default `tempest_migrations`). */
  readonly historyTable?: string;
  /** How long each DDL statement may wait for its table's lock (PostgreSQL `lock_timeout`, MySQL `lock_wait_timeout`) unless the migration sets its own (default 5 000 ms). */
  readonly lockTimeoutMs?: number;
  /** Retries of a statement that gave up waiting for its lock (default 3). */
  readonly lockRetries?: number;
  /** Longest wait for another runner's migration lock (default 600 000 ms). */
  readonly lockWaitMs?: number;
  readonly onEvent?: MigrateListener;
}

export interface UpOptions extends RunnerOptions {
  /**
   * Go on with a migration the history records as failed part way (MySQL DDL, a concurrent step),
   * from the first step that did not take effect, once the cause is fixed. Without it such a
   * migration stops the run.
   */
  readonly resume?: boolean;
}

export interface DownOptions extends RunnerOptions {
  /** How many of the last applied migrations to revert (default 1). */
  readonly count?: number;
}

export interface UpResult {
  readonly applied: readonly string[];
  /** Applied by another runner at the same time (SQLite, where each migration is its own lock). */
  readonly skipped: readonly string[];
}

export type MigrationState = "applied" | "pending" | "running" | "failed" | "edited" | "missing-file";

export interface MigrationStatusEntry {
  readonly name: string;
  readonly state: MigrationState;
  readonly appliedAt: Date | null;
  /** For a failed or running migration: steps that took effect, of all its steps. */
  readonly stepsDone: number | null;
  readonly stepsTotal: number | null;
  readonly error: string | null;
}

export interface StatusResult {
  readonly migrations: readonly MigrationStatusEntry[];
  readonly pending: readonly string[];
  /** Everything that makes `up` refuse to run or needs a person: edited, missing, failed migrations. */
  readonly problems: readonly string[];
}

function context(options: RunnerOptions, dialect: RunnerDialect, history: HistoryTable): RunContext {
  return {
    engine: options.engine,
    dialect,
    history,
    emit: options.onEvent ?? (() => {}),
    lockTimeoutMs: options.lockTimeoutMs ?? 5000,
    lockRetries: options.lockRetries ?? 3,
    lockWaitMs: options.lockWaitMs ?? 600_000,
  };
}

function holdLock<T>(options: RunnerOptions, dialect: RunnerDialect, history: HistoryTable, fn: () => Promise<T>): Promise<T> {
  return dialect.lock.hold(
    options.engine,
    `tempest-migrate:${history.name}`,
    { waitMs: options.lockWaitMs ?? 600_000, onWait: () => options.onEvent?.({ event: "lock-wait" }) },
    fn,
  );
}

/** The history, the table created first if needed (in a transaction: on SQLite that is the write lock). */
async function readHistory(engine: Engine, history: HistoryTable): Promise<HistoryRow[]> {
  return engine.transaction(async (tx) => {
    await history.ensure(tx);
    return history.read(tx);
  });
}

/** Applied migrations whose file changed or went away: `up` and `check` refuse to go on past them. */
function verifyApplied(files: readonly MigrationFile[], rows: readonly HistoryRow[]): void {
  const byName = new Map(files.map((f) => [f.name, f]));
  for (const row of rows) {
    const file = byName.get(row.name);
    if (!file) {
      throw new MigrationStateError(
        `Migration ${row.name} is in the history table but its file is not in the migrations folder: restore it (or, if it was reverted by hand, delete its history row).`,
      );
    }
    // A migration that failed part way is fixed by editing the step that failed: only an applied one is frozen.
    if (row.status === "applied" && file.checksum !== row.checksum) throw new MigrationChecksumError(row.name, row.checksum, file.checksum);
  }
}

function unfinishedMessage(row: HistoryRow): string {
  const what = row.direction === "down" ? "reverting it" : "applying it";
  return `Migration ${row.name}: ${what} stopped after ${row.stepsDone} of ${row.stepsTotal} steps${row.error ? ` (${row.error})` : " (the process stopped)"}.`;
}

/** Applies every pending migration in name order, under the migration lock. */
export async function migrateUp(options: UpOptions): Promise<UpResult> {
  const dialect = runnerDialectOf(options.engine);
  const history = new HistoryTable(options.historyTable);
  const ctx = context(options, dialect, history);
  const files = listMigrations(options.folder);
  return holdLock(options, dialect, history, async () => {
    let rows = await readHistory(options.engine, history);
    // SQLite: a "running" row may be another runner's, applying it right now (see claimRow): wait until none is.
    while (dialect.lock.perMigration && !options.resume && (await waitForRunningRows(ctx, rows, ctx.lockWaitMs))) {
      rows = await readHistory(options.engine, history);
    }
    verifyApplied(files, rows);
    const done = new Map(rows.map((r) => [r.name, r]));
    const unfinished = rows.filter((r) => r.status !== "applied");
    for (const row of unfinished) {
      // "running" under the lock: the runner that wrote it is gone.
      if (!options.resume || row.direction === "down") {
        throw new MigrationStateError(
          `${unfinishedMessage(row)} Fix the cause, then run up with resume (--resume) to go on from step ${row.stepsDone + 1}${row.direction === "down" ? " — a failed revert cannot be resumed: finish it by hand and delete its history row" : ""}.`,
        );
      }
    }
    const lastApplied = rows.filter((r) => r.status === "applied").at(-1)?.name;
    const pending = files.filter((f) => done.get(f.name)?.status !== "applied");
    for (const file of pending) {
      if (!done.has(file.name) && lastApplied !== undefined && file.name < lastApplied) {
        throw new MigrationStateError(
          `Migration ${file.name} sorts before ${lastApplied}, which is already applied: it was probably merged from another branch. Rename it so it sorts last (its number is a timestamp).`,
        );
      }
    }
    // Every pending file loads and targets this database before anything runs.
    const loaded: LoadedMigration[] = [];
    for (const file of pending) {
      const l = await loadMigration(file);
      if (l.migration.dialect !== options.engine.dialectName) {
        throw new MigrationStateError(`Migration ${file.name} was written for ${l.migration.dialect}, not ${options.engine.dialectName}.`);
      }
      loaded.push(l);
    }
    const applied: string[] = [];
    const skipped: string[] = [];
    for (const l of loaded) {
      const resumeAt = done.get(l.name)?.stepsDone ?? 0;
      const outcome = await applyMigration(ctx, l, "up", resumeAt);
      (outcome === "done" ? applied : skipped).push(l.name);
    }
    return { applied, skipped };
  });
}

/** Reverts the last `count` applied migrations, newest first, with their `down` steps. */
export async function migrateDown(options: DownOptions): Promise<{ readonly reverted: readonly string[] }> {
  const count = options.count ?? 1;
  if (!Number.isSafeInteger(count) || count < 1) throw new MigrationStateError("count must be a whole number from 1");
  const dialect = runnerDialectOf(options.engine);
  const history = new HistoryTable(options.historyTable);
  const ctx = context(options, dialect, history);
  const files = listMigrations(options.folder);
  return holdLock(options, dialect, history, async () => {
    const rows = await readHistory(options.engine, history);
    verifyApplied(files, rows);
    const unfinished = rows.find((r) => r.status !== "applied");
    if (unfinished) throw new MigrationStateError(`${unfinishedMessage(unfinished)} Finish or resume it before reverting anything.`);
    const targets = rows.slice(-count).reverse();
    const loaded: LoadedMigration[] = [];
    for (const row of targets) {
      const l = await loadMigration(files.find((f) => f.name === row.name) as MigrationFile);
      if (l.migration.down === null) throw new MigrationStateError(`Migration ${row.name} cannot be reverted: its file says down: null.`);
      loaded.push(l);
    }
    const reverted: string[] = [];
    for (const l of loaded) {
      await applyMigration(ctx, l, "down");
      reverted.push(l.name);
    }
    return { reverted };
  });
}

/** Each migration file and history row, with what state it is in. Changes nothing (creates no table). */
export async function migrationStatus(options: RunnerOptions): Promise<StatusResult> {
  const history = new HistoryTable(options.historyTable);
  const files = listMigrations(options.folder);
  const rows = (await history.exists(options.engine)) ? await history.read(options.engine) : [];
  const byName = new Map(rows.map((r) => [r.name, r]));
  const migrations: MigrationStatusEntry[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const row = byName.get(file.name);
    let state: MigrationState = row ? row.status : "pending";
    if (row && row.status === "applied" && row.checksum !== file.checksum) {
      state = "edited";
      problems.push(new MigrationChecksumError(file.name, row.checksum, file.checksum).message);
    } else if (row && row.status !== "applied") problems.push(unfinishedMessage(row));
    migrations.push({
      name: file.name,
      state,
      appliedAt: row?.appliedAt ?? null,
      stepsDone: row && row.status !== "applied" ? row.stepsDone : null,
      stepsTotal: row && row.status !== "applied" ? row.stepsTotal : null,
      error: row?.error ?? null,
    });
  }
  const names = new Set(files.map((f) => f.name));
  for (const row of rows) {
    if (names.has(row.name)) continue;
    problems.push(`Migration ${row.name} is in the history table but its file is not in the migrations folder.`);
    migrations.push({
      name: row.name,
      state: "missing-file",
      appliedAt: row.appliedAt,
      stepsDone: null,
      stepsTotal: null,
      error: row.error,
    });
  }
  migrations.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { migrations, pending: migrations.filter((m) => m.state === "pending").map((m) => m.name), problems };
}
