// @tempest-db-js/migrate: schema migrations for tempest-db-js. The modules land one by one (diff,
// lock-safety lint, migration files, runner, CLI); this entry re-exports each as it lands.

// diff
export type { AlterCapabilities } from "./diff/alter-capabilities.js";
export { fullAlterCapabilities } from "./diff/alter-capabilities.js";
export { applyChange, applyPlan, checkReferences } from "./diff/apply-change.js";
export { changeLabel } from "./diff/change-label.js";
export { DestructiveChangeError } from "./diff/destructive-change-error.js";
export { destructiveMarksOf } from "./diff/destructive-marks.js";
export type { DiffOptions, Renames } from "./diff/diff-options.js";
export { diffSchemas, refusedMarks } from "./diff/diff-schemas.js";
export type { DestructiveMark, MigrationPlan, PlannedChange, RenameHint } from "./diff/migration-plan.js";
export { destructiveMarks } from "./diff/migration-plan.js";
export type { ReverseOptions } from "./diff/reverse-plan.js";
export { inverseChange, reversePlan } from "./diff/reverse-plan.js";
export { normalizeSnapshot, sameSchema } from "./diff/snapshot-compare.js";
export { narrowingReason } from "./diff/type-widening.js";
