import type { Engine } from "tempest-db-js";
import type { HistoryTable } from "../history/history-table.js";
import type { RunnerDialect } from "../migration-dialect.js";
import type { MigrateListener } from "./migrate-event.js";

/** What applying one migration needs, fixed for a run. */
export interface RunContext {
  readonly engine: Engine;
  readonly dialect: RunnerDialect;
  readonly history: HistoryTable;
  readonly emit: MigrateListener;
  readonly lockTimeoutMs: number;
  readonly lockRetries: number;
  /** Longest wait for another runner (the lock, or on SQLite a migration another runner claimed). */
  readonly lockWaitMs: number;
}
