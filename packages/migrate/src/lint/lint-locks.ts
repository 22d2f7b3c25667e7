import type { SchemaChange } from "tempest-db-js";
import type { MigrationPlan, PlannedChange } from "../diff/migration-plan.js";
import { changeTable } from "./change-table.js";
import type { LockLintOptions } from "./lock-lint-options.js";
import { LockSafetyError } from "./lock-safety-error.js";
import type { LockWarning } from "./lock-warning.js";
import { PlanState } from "./plan-state.js";
import type { LockFinding } from "./postgres-lock-rules.js";
import { postgresFindings } from "./postgres-lock-rules.js";

/**
 * Every change of the plan that takes a heavy lock on a table holding rows, or rewrites or scans
 * it, before anything runs. On PostgreSQL by its lock rules; on MySQL/MariaDB every ALTER that
 * copies the table. With `warningsAsErrors` the warnings are thrown as a LockSafetyError.
 */
export function lintLocks(plan: Pick<MigrationPlan, "changes">, options: LockLintOptions): LockWarning[] {
  const warnings: LockWarning[] = [];
  const state = new PlanState(options.facts);
  plan.changes.forEach((planned: PlannedChange, index) => {
    const change = planned.change;
    for (const found of findingsOf(change, options, state)) warnings.push(toWarning(found, index, planned.label));
    state.follow(change);
  });
  if (options.warningsAsErrors && warnings.length > 0) throw new LockSafetyError(warnings);
  return warnings;
}

function findingsOf(change: SchemaChange, options: LockLintOptions, state: PlanState): LockFinding[] {
  if (options.capabilities.concurrentIndexes) return postgresFindings(change, state);
  const table = changeTable(change);
  if (!options.copiesTable?.(change) || !state.hasRows(table)) return [];
  return [
    {
      rule: "table-copy",
      table,
      alsoLocks: [],
      lock: "TABLE COPY",
      blocks: "writes",
      touchesEveryRow: "rewrite",
      what: "the ALTER copies the whole table while writes wait (ALGORITHM=COPY)",
      safeAlternative:
        "a change the server makes in place (INSTANT or INPLACE, LOCK=NONE), or an online schema change tool such as gh-ost or pt-online-schema-change",
      fixable: false,
    },
  ];
}

function toWarning(found: LockFinding, index: number, label: string): LockWarning {
  const tables = [found.table, ...found.alsoLocks].join(" and ");
  const lock = found.lock === "TABLE COPY" ? "a table copy" : `${found.lock} on ${tables}`;
  const message = `${label}: ${found.what} (${lock}, blocks ${found.blocks}). Safe: ${found.safeAlternative}${found.fixable ? " — safePlan() writes it" : ""}.`;
  const { what: _what, ...rest } = found;
  return { ...rest, index, label, message };
}
