import type { Executor } from "tempest-db-js";
import { sql } from "tempest-db-js";
import { MigrationFailedError, MigrationStateError } from "../errors.js";
import type { HistoryRow } from "../history/history-table.js";
import type { LoadedMigration } from "../migration-folder.js";
import { claimRow, recordOwnProgress, waitForOtherRunner } from "./claim-migration.js";
import { withLockRetries } from "./lock-retry.js";
import type { MigrationSegment, MigrationUnit } from "./migration-units.js";
import { describeUnit, migrationSegments, migrationUnits } from "./migration-units.js";
import type { RunContext } from "./run-context.js";

export type Direction = "up" | "down";

/**
 * Applies one migration's `up` (from unit `resumeAt`, for a run that failed part way) or its
 * `down`. Transactional units run together in one transaction with the history row, so the row
 * says exactly what took effect; a unit that cannot run in a transaction runs alone and the row is
 * written right after it. Returns "skipped" when, on a dialect whose lock is each migration's own
 * transaction, another runner applied it first.
 */
export async function applyMigration(
  ctx: RunContext,
  loaded: LoadedMigration,
  direction: Direction,
  resumeAt = 0,
): Promise<"done" | "skipped"> {
  const { migration, name } = loaded;
  const units = migrationUnits((direction === "up" ? migration.up : migration.down) ?? [], ctx.dialect);
  const segments = migrationSegments(units, resumeAt);
  const lockTimeoutMs = migration.lockTimeoutMs ?? ctx.lockTimeoutMs;
  const retries = migration.lockRetries ?? ctx.lockRetries;
  const startedAt = new Date();
  const began = performance.now();
  const row = (stepsDone: number, status: HistoryRow["status"], error: string | null): HistoryRow => ({
    name,
    checksum: loaded.checksum,
    status,
    direction,
    stepsDone,
    stepsTotal: units.length,
    appliedAt: startedAt,
    error,
  });
  /** The history after `done` units: the migration applied (up), gone (down), or still on its way. */
  const progress = async (db: Executor, done: number): Promise<void> => {
    if (done < units.length) await ctx.history.record(db, row(done, "running", null));
    else if (direction === "up") await ctx.history.record(db, row(done, "applied", null));
    else await ctx.history.remove(db, name);
  };
  /**
   * A history row another runner wrote: not the "running" row this run wrote itself after the
   * non-transactional steps that lead the migration (SQLite's PRAGMA foreign_keys = OFF before a
   * rebuild), which carries this run's start time.
   */
  const byAnother = (found: HistoryRow | undefined): boolean =>
    found !== undefined && (found.status === "applied" || found.appliedAt.getTime() !== startedAt.getTime());
  // Units that took effect: in an earlier run (resumed) and in this one, outside a rolled-back transaction.
  const ran = units.slice(0, resumeAt).map(describeUnit);
  let current: MigrationUnit | undefined;
  const runUnit = async (db: Executor, unit: MigrationUnit, index: number): Promise<void> => {
    current = unit;
    const t0 = performance.now();
    if (unit.kind === "statement" && unit.failsOnRows) {
      const rows = await db.execute(sql.raw(unit.sql)).all();
      if (rows.length > 0)
        throw new MigrationStateError(`${rows.length} row(s) failed the check: ${JSON.stringify(rows.slice(0, 5), jsonSafe)}`);
    } else if (unit.kind === "statement" && unit.replays) {
      for (const row of await db.execute(sql.raw(unit.sql)).all()) {
        if (typeof row.sql !== "string")
          throw new MigrationStateError(`${unit.sql} must return the statements to run in a text column sql`);
        await db.execute(sql.raw(row.sql)).rowsAffected();
      }
    } else if (unit.kind === "statement") await db.execute(sql.raw(unit.sql)).rowsAffected();
    else await unit.step.run({ db, engine: ctx.engine, log: (message) => ctx.emit({ event: "log", name, message }) });
    ctx.emit({
      event: "step-done",
      name,
      step: index + 1,
      steps: units.length,
      what: describeUnit(unit),
      ms: Math.round(performance.now() - t0),
    });
  };

  ctx.emit({ event: "migration-start", name, direction, steps: units.length, resumeAt });
  // A migration without steps still leaves its row.
  if (segments.length === 0) {
    const skipped = await ctx.engine.transaction(async (tx) => {
      if (ctx.dialect.lock.perMigration && direction === "up" && (await ctx.history.find(tx, name))) return true;
      await progress(tx, units.length);
      return false;
    });
    if (skipped) return skip(ctx, name);
  }
  // Where SQLite's runner re-reads the history: the first transaction (leading steps such as PRAGMA foreign_keys = OFF are per connection).
  const firstTransactional = segments.find((s) => s.transactional);
  // SQLite: a migration that starts outside the transaction is claimed first, under BEGIN IMMEDIATE (see claimRow).
  const claims = ctx.dialect.lock.perMigration && direction === "up";
  if (claims && resumeAt === 0 && segments[0] !== undefined && !segments[0].transactional) {
    if (!(await claimRow(ctx, row(0, "running", null), byAnother))) {
      await waitForOtherRunner(ctx, name, ctx.lockWaitMs);
      return skip(ctx, name);
    }
  }
  for (const segment of segments) {
    const end = segment.start + segment.units.length;
    try {
      if (segment.transactional) {
        const outcome = await withLockRetries(ctx, name, describeSegment(segment), retries, () =>
          ctx.engine.transaction(async (tx) => {
            // SQLite: BEGIN IMMEDIATE made this runner the only writer; did another one get here first?
            if (
              segment === firstTransactional &&
              resumeAt === 0 &&
              direction === "up" &&
              ctx.dialect.lock.perMigration &&
              byAnother(await ctx.history.find(tx, name))
            ) {
              return "skipped" as const;
            }
            for (const statement of ctx.dialect.support.transactionLockTimeout?.(lockTimeoutMs) ?? [])
              await tx.execute(sql.raw(statement)).rowsAffected();
            for (const [j, unit] of segment.units.entries()) await runUnit(tx, unit, segment.start + j);
            await progress(tx, end);
            return "done" as const;
          }),
        );
        if (outcome === "skipped") {
          // A setting a leading step turned off (SQLite's PRAGMA foreign_keys before a rebuild) is turned back on.
          await restoreSettings(ctx, units, end);
          return skip(ctx, name);
        }
      } else {
        const unit = segment.units[0] as MigrationUnit;
        await withLockRetries(ctx, name, describeUnit(unit), retries, () =>
          runAlone(ctx, name, unit, segment.start, lockTimeoutMs, runUnit),
        );
        ran.push(describeUnit(unit));
        if (claims) await recordOwnProgress(ctx, name, byAnother, (db) => progress(db, end));
        else await progress(ctx.engine, end);
        continue;
      }
    } catch (error) {
      const failed = current ? describeUnit(current) : describeSegment(segment);
      const reason = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
      // Something stayed done: say so in the history, so the next run neither repeats it nor takes the migration as applied.
      await restoreSettings(ctx, units, end);
      if (ran.length > 0) await ctx.history.record(ctx.engine, row(segment.start, "failed", reason));
      throw new MigrationFailedError({ migration: name, failed, ran, rolledBack: segment.transactional && ran.length === 0, cause: error });
    }
    ran.push(...segment.units.map(describeUnit));
  }
  ctx.emit({ event: "migration-done", name, direction, ms: Math.round(performance.now() - began) });
  return "done";
}

/**
 * After a failure: the statements further on that restore a setting an earlier one turned off
 * (SQLite's PRAGMA foreign_keys = ON after a rebuild) run anyway, so the connection is not left
 * without its foreign key checks.
 */
async function restoreSettings(ctx: RunContext, units: readonly MigrationUnit[], from: number): Promise<void> {
  for (const unit of units.slice(from)) {
    if (unit.kind === "statement" && unit.restores) {
      await ctx.engine
        .execute(sql.raw(unit.sql))
        .rowsAffected()
        .catch(() => {});
    }
  }
}

function jsonSafe(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

function skip(ctx: RunContext, name: string): "skipped" {
  ctx.emit({ event: "skipped", name, reason: "applied by another runner while this one waited" });
  return "skipped";
}

function describeSegment(segment: MigrationSegment): string {
  return segment.units.length === 1
    ? describeUnit(segment.units[0] as MigrationUnit)
    : `${segment.units.length} statements in a transaction`;
}

/**
 * A unit outside any transaction. A statement runs on a reserved connection with the dialect's
 * session lock timeout (PostgreSQL lock_timeout, MySQL lock_wait_timeout), put back before the
 * connection returns to the pool: a DDL statement waiting for its table's lock queues every later
 * query of the table behind it (MySQL's metadata lock, PostgreSQL's lock queue), so it gives up
 * and retries instead. Not a concurrent index build (see MigrationUnit.concurrent), nor a data step.
 * A concurrent index build that failed (or was cancelled) leaves an INVALID index behind, which a
 * retry would trip over and which slows every write meanwhile: it is dropped, concurrently, before
 * each attempt and after a failure.
 */
async function runAlone(
  ctx: RunContext,
  name: string,
  unit: MigrationUnit,
  index: number,
  lockTimeoutMs: number,
  runUnit: (db: Executor, unit: MigrationUnit, index: number) => Promise<void>,
): Promise<void> {
  const leftover = unit.kind === "statement" ? unit.concurrentIndex : undefined;
  const dropInvalid = async (): Promise<void> => {
    const { invalidIndex, dropInvalidIndex } = ctx.dialect.support;
    if (leftover === undefined || !invalidIndex || !dropInvalidIndex) return;
    if ((await ctx.engine.execute(invalidIndex(leftover)).all()).length === 0) return;
    ctx.emit({ event: "invalid-index", name, index: leftover });
    await ctx.engine.execute(sql.raw(dropInvalidIndex(leftover))).rowsAffected();
  };
  const bounded = unit.kind === "statement" && !unit.concurrent ? ctx.dialect.support.sessionLockTimeout?.(lockTimeoutMs) : undefined;
  await dropInvalid();
  try {
    if (bounded === undefined) await runUnit(ctx.engine, unit, index);
    else {
      await ctx.engine.reserve(async (session) => {
        for (const statement of bounded.set) await session.execute(sql.raw(statement)).rowsAffected();
        try {
          await runUnit(session, unit, index);
        } finally {
          for (const statement of bounded.reset) await session.execute(sql.raw(statement)).rowsAffected();
        }
      });
    }
  } catch (error) {
    await dropInvalid();
    throw error;
  }
}
