import { TempestError } from "tempest-db-js";

/** Base of every error the migration tool throws. */
export class MigrationError extends TempestError {
  static override readonly code: string = "MIGRATION_ERROR";
}

/**
 * A migration failed. `rolledBack` says whether the database is as it was before it (every
 * statement that ran was inside a transaction that rolled back); otherwise `ran` lists the
 * statements that took effect, and the history table records the migration as failed after them.
 */
export class MigrationFailedError extends MigrationError {
  static override readonly code = "MIGRATION_FAILED";
  readonly migration: string;
  /** What failed: a statement's SQL, or a data step's name. */
  readonly failed: string;
  /** The statements (and data steps) that took effect before the failure and were not rolled back. */
  readonly ran: readonly string[];
  readonly rolledBack: boolean;

  constructor(args: { migration: string; failed: string; ran: readonly string[]; rolledBack: boolean; cause: unknown }) {
    const reason = args.cause instanceof Error ? args.cause.message.split("\n")[0] : String(args.cause);
    const state = args.rolledBack
      ? "Everything it did was rolled back."
      : args.ran.length === 0
        ? "Nothing it did had taken effect."
        : `These had already taken effect and were not rolled back (the history records the migration as failed after them):\n${args.ran.map((s, i) => `  ${i + 1}. ${s}`).join("\n")}`;
    super(`Migration ${args.migration} failed at: ${args.failed}\n  ${reason}\n${state}`, { cause: args.cause });
    this.migration = args.migration;
    this.failed = args.failed;
    this.ran = args.ran;
    this.rolledBack = args.rolledBack;
  }
}

/** An applied migration's file no longer has the checksum it had when it was applied. */
export class MigrationChecksumError extends MigrationError {
  static override readonly code = "MIGRATION_CHECKSUM";
  readonly migration: string;

  constructor(migration: string, recorded: string, actual: string) {
    super(
      `Migration ${migration} was edited after it was applied (checksum ${recorded.slice(0, 12)} in the history, ${actual.slice(0, 12)} on disk). Restore the file as it was applied and put the change in a new migration.`,
    );
    this.migration = migration;
  }
}

/** The history and the migrations folder disagree, or a migration cannot run as asked. */
export class MigrationStateError extends MigrationError {
  static override readonly code = "MIGRATION_STATE";
}

/** Another process held the migration lock for longer than the runner was told to wait. */
export class MigrationLockTimeoutError extends MigrationError {
  static override readonly code = "MIGRATION_LOCK_TIMEOUT";
}
