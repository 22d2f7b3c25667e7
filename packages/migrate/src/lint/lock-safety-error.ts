import { TempestError } from "tempest-db-js";
import type { LockWarning } from "./lock-warning.js";

/** `warningsAsErrors`: the plan takes heavy locks on tables with rows. Nothing was run. */
export class LockSafetyError extends TempestError {
  static override readonly code = "LOCK_SAFETY";
  readonly warnings: readonly LockWarning[];

  constructor(warnings: readonly LockWarning[]) {
    super(
      `The migration takes ${warnings.length} heavy lock${warnings.length === 1 ? "" : "s"} on tables with rows:\n${warnings.map((w) => `  ${w.message}`).join("\n")}`,
    );
    this.warnings = warnings;
  }
}
