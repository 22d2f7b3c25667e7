import type { SchemaChange } from "tempest-db-js";
import { changeLabel } from "../diff/change-label.js";
import { destructiveMarksOf } from "../diff/destructive-marks.js";
import type { MigrationPlan, PlannedChange } from "../diff/migration-plan.js";
import { sameColumnShape } from "../diff/snapshot-compare.js";
import { lintLocks } from "./lint-locks.js";
import type { LockLintOptions } from "./lock-lint-options.js";
import type { LockRule } from "./lock-warning.js";

/**
 * The plan with every fixable warning of `lintLocks` replaced by its safe form, leading to the same
 * schema: indexes created and dropped CONCURRENTLY (each its own change, which the runner runs
 * outside a transaction), foreign keys and checks added NOT VALID then validated, and SET NOT NULL
 * proven first by a validated CHECK (PostgreSQL 12+ then skips the scan), the check dropped after.
 * Changes on empty or new tables are left as they are. Warnings with no safe form remain: lint the
 * result to see them.
 */
export function safePlan(plan: MigrationPlan, options: LockLintOptions): MigrationPlan {
  const warnings = lintLocks(plan, { ...options, warningsAsErrors: false });
  const fixes = new Map<number, Set<LockRule>>();
  for (const w of warnings) if (w.fixable) fixes.set(w.index, (fixes.get(w.index) ?? new Set()).add(w.rule));
  const changes: PlannedChange[] = [];
  plan.changes.forEach((planned, index) => {
    const rules = fixes.get(index);
    if (!rules) {
      changes.push(planned);
      return;
    }
    for (const change of safeForm(planned.change, rules)) {
      changes.push({ change, label: changeLabel(change), destructive: destructiveMarksOf(change) });
    }
  });
  return { ...plan, changes };
}

function safeForm(change: SchemaChange, rules: ReadonlySet<LockRule>): SchemaChange[] {
  switch (change.kind) {
    case "createIndex":
    case "dropIndex":
      return [{ ...change, concurrently: true }];
    case "addForeignKey":
      return [
        { ...change, notValid: true },
        { kind: "validateConstraint", table: change.table, name: change.foreignKey.name },
      ];
    case "addCheck":
      return [
        { ...change, notValid: true },
        { kind: "validateConstraint", table: change.table, name: change.name },
      ];
    case "alterColumn": {
      const notNull = rules.has("set-not-null-scans");
      const unique = rules.has("unique-constraint-locks");
      if (!notNull && !unique) return [change];
      const { table, from, to } = change;
      // Everything else first (if anything else changes), then NOT NULL proven by a check, then
      // UNIQUE from an index built concurrently.
      const rest = { ...to, ...(notNull ? { notNull: from.notNull } : {}), ...(unique ? { unique: from.unique } : {}) };
      const steps: SchemaChange[] = sameColumnShape(from, rest) ? [] : [{ ...change, to: rest }];
      const proven = { ...rest, notNull: to.notNull };
      if (notNull) {
        const name = checkName(table, to.name);
        steps.push(
          { kind: "addCheck", table, name, notNullOf: to.name, notValid: true },
          { kind: "validateConstraint", table, name },
          { ...change, from: rest, to: proven },
          { kind: "dropCheck", table, name, notNullOf: to.name },
        );
      }
      if (unique) steps.push({ kind: "addUniqueConstraint", table, column: proven, name: uniqueName(table, to.name) });
      return steps;
    }
    default:
      return [change];
  }
}

/** PostgreSQL truncates identifiers to 63 bytes; a long name is cut and given a hash so two never meet. */
const MAX_IDENTIFIER = 63;

export function checkName(table: string, column: string): string {
  return shortName(`${table}_${column}_not_null`);
}

/**
 * The name PostgreSQL gives a column's UNIQUE constraint (`table_column_key`, as the compiler's
 * uniqueConstraintName), so that dropping the UNIQUE later finds it; cut as checkName cuts.
 */
export function uniqueName(table: string, column: string): string {
  return shortName(`${table}_${column}_key`);
}

function shortName(name: string): string {
  if (Buffer.byteLength(name) <= MAX_IDENTIFIER) return name;
  let hash = 0x811c9dc5;
  for (const unit of name) hash = Math.imul(hash ^ (unit.codePointAt(0) as number), 0x01000193) >>> 0;
  const suffix = `_${hash.toString(16).padStart(8, "0")}`;
  let cut = "";
  for (const ch of name) {
    if (Buffer.byteLength(cut + ch) > MAX_IDENTIFIER - suffix.length) break;
    cut += ch;
  }
  return cut + suffix;
}
