import type { ModelClass } from "tempest-db-js";
import type { RunnerOptions } from "./runner/migrator.js";
import { migrationStatus } from "./runner/migrator.js";
import { schemaDrift } from "./schema-drift.js";

export interface CheckOptions extends RunnerOptions {
  readonly models: readonly ModelClass<any>[];
}

export interface CheckResult {
  /** Nothing pending, no problem, no drift: what CI wants. */
  readonly ok: boolean;
  readonly pending: readonly string[];
  /** Edited, failed or missing migrations. */
  readonly problems: readonly string[];
  /** What would turn the live schema into the models' (empty when they match). */
  readonly drift: readonly string[];
}

/**
 * For CI: fails (ok false) when a migration is pending, an applied one was edited or failed, or the
 * live schema differs from the models. Drift is reported only once nothing is pending, since a
 * pending migration explains it.
 */
export async function checkSchema(options: CheckOptions): Promise<CheckResult> {
  const status = await migrationStatus(options);
  const drift =
    status.pending.length > 0 || status.problems.length > 0
      ? []
      : (
          await schemaDrift({
            engine: options.engine,
            models: options.models,
            folder: options.folder,
            ...(options.historyTable === undefined ? {} : { historyTable: options.historyTable }),
          })
        ).changes;
  return {
    ok: status.pending.length === 0 && status.problems.length === 0 && drift.length === 0,
    pending: status.pending,
    problems: status.problems,
    drift,
  };
}
