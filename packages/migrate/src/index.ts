// @tempest-db-js/migrate: schema migrations for tempest-db-js.

export type { CheckOptions, CheckResult } from "./check-schema.js";
export { checkSchema } from "./check-schema.js";
export { migrationChecksum } from "./checksum.js";
export type { CliIo } from "./cli/cli-io.js";
export { runCli } from "./cli/run-cli.js";
export type { MigrateConfig, ResolvedConfig } from "./config.js";
export { CONFIG_FILES, defineConfig, findConfig, loadConfig } from "./config.js";
export type { AlterCapabilities, DialectAlterFlags } from "./diff/alter-capabilities.js";
export { alterCapabilitiesOf, fullAlterCapabilities } from "./diff/alter-capabilities.js";
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
export {
  MigrationChecksumError,
  MigrationError,
  MigrationFailedError,
  MigrationLockTimeoutError,
  MigrationStateError,
} from "./errors.js";
export type { GenerateOptions, GenerateResult } from "./generate-migration.js";
export { alterCapabilities, generateMigration } from "./generate-migration.js";
export type { HistoryRow } from "./history/history-table.js";
export { lintLocks } from "./lint/lint-locks.js";
export type { LockLintCapabilities, LockLintOptions } from "./lint/lock-lint-options.js";
export { LockSafetyError } from "./lint/lock-safety-error.js";
export type { Blocked, LockLevel, LockRule, LockWarning } from "./lint/lock-warning.js";
export { typeChangeRewrites, volatileDefault } from "./lint/postgres-rewrites.js";
export { safePlan } from "./lint/safe-plan.js";
export type { TableFacts } from "./lint/table-facts.js";
export { readTableFacts } from "./lint/table-facts.js";
export type { ChangeStep, DataStep, DataStepContext, Migration, MigrationStep, SqlStep, StoredStatement } from "./migration.js";
export { defineMigration } from "./migration.js";
export type { LoadedMigration, MigrationFile } from "./migration-folder.js";
export { listMigrations, loadMigration } from "./migration-folder.js";
export type { PullOptions } from "./pull/plan-pull.js";
export type { PullModelsOptions, PullResult } from "./pull/pull-models.js";
export { pullModels } from "./pull/pull-models.js";
export type { PullWarning } from "./pull/pulled-schema.js";
export type { RenderedChange, RenderInput } from "./render-migration.js";
export { renderMigration } from "./render-migration.js";
export type { MigrateEvent, MigrateListener } from "./runner/migrate-event.js";
export type {
  DownOptions,
  MigrationState,
  MigrationStatusEntry,
  RunnerOptions,
  StatusResult,
  UpOptions,
  UpResult,
} from "./runner/migrator.js";
export { migrateDown, migrateUp, migrationStatus } from "./runner/migrator.js";
export type { DriftOptions, DriftReport } from "./schema-drift.js";
export { schemaDrift } from "./schema-drift.js";
export { latestSnapshot, snapshotPath, writeSnapshot } from "./snapshot-file.js";
