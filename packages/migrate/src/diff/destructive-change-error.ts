import { TempestError } from "tempest-db-js";
import type { DestructiveMark, MigrationPlan } from "./migration-plan.js";

/**
 * The plan holds destructive changes that were not allowed by name. Carries the plan, so a CLI can
 * show it and ask; nothing was run. The message names tables and columns only, never a value.
 */
export class DestructiveChangeError extends TempestError {
  static override readonly code = "DESTRUCTIVE_CHANGE";
  readonly refused: readonly DestructiveMark[];
  readonly plan: MigrationPlan;

  constructor(refused: readonly DestructiveMark[], plan: MigrationPlan) {
    const lines = refused.map((mark) => `  ${JSON.stringify(mark.label)}: ${mark.reason}`);
    const labels = [...new Set(refused.map((mark) => JSON.stringify(mark.label)))].join(", ");
    super(
      `The migration holds ${refused.length} destructive change${refused.length === 1 ? "" : "s"} not allowed:\n${lines.join("\n")}\nAllow each by name if it is meant: allowDestructive: [${labels}]`,
    );
    this.refused = refused;
    this.plan = plan;
  }
}
