import type { Executor } from "tempest-db-js";
import { MigrationLockTimeoutError, MigrationStateError } from "../errors.js";
import type { HistoryRow } from "../history/history-table.js";
import type { RunContext } from "./run-context.js";

const POLL_MS = 250;

/**
 * Where each migration's own transaction is the lock (SQLite: see MigrationLock.perMigration), the
 * history row is written under it only if no other runner's row is there: the read and the write in
 * one BEGIN IMMEDIATE transaction, which only one writer at a time holds. So a migration whose first
 * step runs outside a transaction (SQLite's PRAGMA foreign_keys = OFF before a rebuild, a batched
 * backfill) is claimed before that step runs, and two runners can neither both run it nor overwrite
 * each other's progress. False: another runner's row was there, and nothing was written.
 */
export async function claimRow(ctx: RunContext, row: HistoryRow, byAnother: (found: HistoryRow | undefined) => boolean): Promise<boolean> {
  return ctx.engine.transaction(async (tx) => {
    if (byAnother(await ctx.history.find(tx, row.name))) return false;
    await ctx.history.record(tx, row);
    return true;
  });
}

/** The progress after a step outside the transaction, written only while the row is still this runner's (see claimRow). */
export async function recordOwnProgress(
  ctx: RunContext,
  name: string,
  byAnother: (found: HistoryRow | undefined) => boolean,
  write: (db: Executor) => Promise<void>,
): Promise<void> {
  await ctx.engine.transaction(async (tx) => {
    if (byAnother(await ctx.history.find(tx, name))) {
      throw new MigrationStateError(`Migration ${name}: another runner wrote its history row while this one was applying it.`);
    }
    await write(tx);
  });
}

/**
 * Waits for the runner that claimed `name` to finish it: returns once the history says applied;
 * throws when that runner stopped (the row failed or went away) or took longer than `waitMs`.
 */
export async function waitForOtherRunner(ctx: RunContext, name: string, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  ctx.emit({ event: "lock-wait" });
  for (;;) {
    const found = await ctx.history.find(ctx.engine, name);
    if (found?.status === "applied") return;
    if (found === undefined || found.status === "failed") {
      throw new MigrationStateError(
        `Migration ${name}: another runner was applying it and stopped${found?.error ? ` (${found.error})` : ""}. Run status to see where.`,
      );
    }
    if (Date.now() >= deadline) {
      throw new MigrationLockTimeoutError(
        `Another process has been applying migration ${name} for more than ${waitMs} ms. It may still be running; run again when it has finished.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * A "running" row found before anything runs, where the lock is per migration: a runner applying it
 * right now, or one that stopped. One that started less than `waitMs` ago is waited for (until its
 * row is no longer running); an older one is taken as stopped. Returns whether any row was waited for.
 */
export async function waitForRunningRows(ctx: RunContext, rows: readonly HistoryRow[], waitMs: number): Promise<boolean> {
  const live = rows.filter((r) => r.status === "running" && Date.now() - r.appliedAt.getTime() < waitMs);
  for (const row of live) {
    const deadline = row.appliedAt.getTime() + waitMs;
    ctx.emit({ event: "lock-wait" });
    for (;;) {
      const found = await ctx.history.find(ctx.engine, row.name);
      if (found?.status !== "running" || found.appliedAt.getTime() !== row.appliedAt.getTime() || Date.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
  return live.length > 0;
}
