import { exhaustive } from "tempest-db-js";
import type { DataStep, MigrationStep } from "../migration.js";
import type { RunnerDialect } from "../migration-dialect.js";

/** One thing the runner does and counts: a statement or a data step. */
export type MigrationUnit =
  | {
      readonly kind: "statement";
      readonly sql: string;
      readonly transactional: boolean;
      /** A concurrent index build: the index's name, so an invalid leftover can be found and rebuilt. */
      readonly concurrentIndex: string | undefined;
      /**
       * Builds or drops an index concurrently (PostgreSQL): it takes only a lock that reads and writes
       * pass, then waits for older transactions to end, each wait a lock acquisition that lock_timeout
       * would cancel (leaving an INVALID index) while holding no one up. It runs without the
       * migration's lock timeout; the bounded retry still applies.
       */
      readonly concurrent: boolean;
      /** Any row it returns is a failure (a foreign key check after a rebuild). */
      readonly failsOnRows: boolean;
      /** Restores a setting: runs even when a step before it failed. */
      readonly restores: boolean;
      /** Its rows are statements to run right after it (see StoredStatement.replays). */
      readonly replays: boolean;
    }
  | { readonly kind: "data"; readonly step: DataStep; readonly transactional: boolean };

/** A run of units applied together: in one transaction, or (not transactional) a single unit on its own. */
export interface MigrationSegment {
  readonly transactional: boolean;
  /** Index of the first unit in the migration. */
  readonly start: number;
  readonly units: readonly MigrationUnit[];
}

export function describeUnit(unit: MigrationUnit): string {
  return unit.kind === "statement" ? unit.sql : `data step "${unit.step.name}"`;
}

export function migrationUnits(steps: readonly MigrationStep[], dialect: RunnerDialect): MigrationUnit[] {
  const units: MigrationUnit[] = [];
  for (const step of steps) {
    switch (step.kind) {
      case "change": {
        const change = step.change;
        const concurrentIndex =
          change.kind === "createIndex" && change.concurrently
            ? change.index.name
            : change.kind === "addUniqueConstraint"
              ? change.name
              : undefined;
        for (const s of step.statements) {
          // addUniqueConstraint: its CREATE UNIQUE INDEX CONCURRENTLY, not the ADD CONSTRAINT in the transaction after it.
          const concurrent =
            ((change.kind === "createIndex" || change.kind === "dropIndex") && change.concurrently) ||
            (change.kind === "addUniqueConstraint" && !s.transactional);
          units.push({
            kind: "statement",
            sql: s.sql,
            transactional: s.transactional,
            concurrentIndex,
            concurrent,
            failsOnRows: s.failsOnRows === true,
            restores: s.restores === true,
            replays: s.replays === true,
          });
        }
        break;
      }
      case "sql":
        units.push({
          kind: "statement",
          sql: step.sql,
          transactional: step.transactional ?? dialect.transactionalDdl,
          concurrentIndex: undefined,
          concurrent: false,
          failsOnRows: false,
          restores: false,
          replays: false,
        });
        break;
      case "data":
        units.push({ kind: "data", step, transactional: step.transactional ?? true });
        break;
      default:
        exhaustive(step);
    }
  }
  return units;
}

/** Consecutive transactional units share a transaction; every other unit stands alone. */
export function migrationSegments(units: readonly MigrationUnit[], from: number): MigrationSegment[] {
  const segments: MigrationSegment[] = [];
  let open: { start: number; units: MigrationUnit[] } | undefined;
  units.forEach((unit, i) => {
    if (i < from) return;
    if (unit.transactional) {
      if (!open) segments.push({ transactional: true, ...(open = { start: i, units: [] }) });
      open.units.push(unit);
    } else {
      open = undefined;
      segments.push({ transactional: false, start: i, units: [unit] });
    }
  });
  return segments;
}
