import type { SchemaChange } from "tempest-db-js";
import { exhaustive } from "tempest-db-js";
import type { Blocked, LockLevel, LockRule } from "./lock-warning.js";
import type { PlanState } from "./plan-state.js";
import { typeChangeRewrites, typeChanges, volatileDefault } from "./postgres-rewrites.js";

/** A finding before it is placed in the plan: what one change does to a table that holds rows. */
export interface LockFinding {
  readonly rule: LockRule;
  readonly table: string;
  readonly alsoLocks: readonly string[];
  readonly lock: LockLevel;
  readonly blocks: Blocked;
  readonly touchesEveryRow: "scan" | "rewrite" | "none";
  readonly what: string;
  readonly safeAlternative: string;
  readonly fixable: boolean;
}

/**
 * PostgreSQL's locks for one change on a table that holds rows (the caller checks that). Facts from
 * PostgreSQL's documentation ("Explicit Locking", ALTER TABLE, CREATE INDEX) and the rules of
 * squawk and strong_migrations. Changes whose lock is brief (renames, drops of a column, a default,
 * NOT NULL) are not reported: the runner's lock_timeout bounds how long they wait for it. Neither is a
 * changed enum: the compiler adds its new CHECK NOT VALID and validates it in a second statement.
 */
export function postgresFindings(change: SchemaChange, state: PlanState): LockFinding[] {
  const hasRows = (table: string) => state.hasRows(table);
  const finding = (f: Omit<LockFinding, "alsoLocks"> & { alsoLocks?: readonly string[] }): LockFinding[] =>
    hasRows(f.table) ? [{ alsoLocks: [], ...f }] : [];
  switch (change.kind) {
    case "createIndex":
      if (change.concurrently) return [];
      return finding({
        rule: "index-not-concurrent",
        table: change.table,
        lock: "SHARE",
        blocks: "writes",
        touchesEveryRow: "scan",
        what: `CREATE ${change.index.unique ? "UNIQUE " : ""}INDEX ${change.index.name} reads the whole table while writes wait`,
        safeAlternative: "CREATE INDEX CONCURRENTLY, outside a transaction (SHARE UPDATE EXCLUSIVE: reads and writes go on)",
        fixable: true,
      });
    case "dropIndex":
      if (change.concurrently) return [];
      return finding({
        rule: "drop-index-not-concurrent",
        table: change.table,
        lock: "ACCESS EXCLUSIVE",
        blocks: "reads and writes",
        touchesEveryRow: "none",
        what: `DROP INDEX ${change.index.name} waits for every running query on the table, and every query after it waits too`,
        safeAlternative: "DROP INDEX CONCURRENTLY, outside a transaction",
        fixable: true,
      });
    case "addForeignKey":
      if (change.notValid) return [];
      return finding({
        rule: "foreign-key-validated-at-once",
        table: change.table,
        alsoLocks: change.foreignKey.referencedTable === change.table ? [] : [change.foreignKey.referencedTable],
        lock: "SHARE ROW EXCLUSIVE",
        blocks: "writes",
        touchesEveryRow: "scan",
        what: `ADD FOREIGN KEY ${change.foreignKey.name} checks every row while writes to both tables wait`,
        safeAlternative: "ADD ... NOT VALID (brief), then VALIDATE CONSTRAINT (SHARE UPDATE EXCLUSIVE: writes go on)",
        fixable: true,
      });
    case "addCheck":
      if (change.notValid) return [];
      return finding({
        rule: "check-validated-at-once",
        table: change.table,
        lock: "ACCESS EXCLUSIVE",
        blocks: "reads and writes",
        touchesEveryRow: "scan",
        what: `ADD CHECK ${change.name} checks every row while nothing else reads or writes the table`,
        safeAlternative: "ADD ... NOT VALID (brief), then VALIDATE CONSTRAINT (SHARE UPDATE EXCLUSIVE)",
        fixable: true,
      });
    case "alterColumn":
      return alterFindings(change, finding, state.provenNotNull(change.table, change.to.name));
    case "addColumn": {
      const { column } = change;
      if (column.notNull && column.default === null && column.generated === null) {
        return finding({
          rule: "not-null-column-without-default",
          table: change.table,
          lock: "ACCESS EXCLUSIVE",
          blocks: "reads and writes",
          touchesEveryRow: "none",
          what: `ADD COLUMN ${column.name} NOT NULL without a default fails: the table has rows`,
          safeAlternative: "add it nullable (or with a default), backfill it in batches, then set NOT NULL",
          fixable: false,
        });
      }
      if (volatileDefault(column.default) || column.generated?.stored) {
        return finding({
          rule: "volatile-default-rewrites",
          table: change.table,
          lock: "ACCESS EXCLUSIVE",
          blocks: "reads and writes",
          touchesEveryRow: "rewrite",
          what: `ADD COLUMN ${column.name} with a ${column.generated ? "stored generated value" : "volatile default"} writes every row while nothing else reads or writes the table`,
          safeAlternative: "add the column without the default, set the default for new rows, and backfill the old ones in batches",
          fixable: false,
        });
      }
      return [];
    }
    case "createTable":
    case "dropTable":
    case "renameTable":
    case "dropColumn":
    case "renameColumn":
    case "dropForeignKey":
    case "dropCheck":
    case "validateConstraint":
    // Its index is built CONCURRENTLY; ADD CONSTRAINT ... USING INDEX then only attaches it, under the lock_timeout.
    case "addUniqueConstraint":
    case "rebuildTable":
      return [];
    default:
      return exhaustive(change);
  }
}

function alterFindings(
  change: Extract<SchemaChange, { kind: "alterColumn" }>,
  finding: (f: Omit<LockFinding, "alsoLocks">) => LockFinding[],
  provenNotNull: boolean,
): LockFinding[] {
  const { from, to, table } = change;
  const found: LockFinding[] = [];
  if (typeChanges(from, to) && typeChangeRewrites(from, to)) {
    found.push(
      ...finding({
        rule: "type-change-rewrites",
        table,
        lock: "ACCESS EXCLUSIVE",
        blocks: "reads and writes",
        touchesEveryRow: "rewrite",
        what: `changing ${to.name} from ${from.kind} to ${to.kind} rewrites the table and its indexes while nothing else reads or writes it`,
        safeAlternative: "add a new column of the new type, backfill it in batches, move the application over, then drop the old one",
        fixable: false,
      }),
    );
  }
  if (to.notNull && !from.notNull && !provenNotNull) {
    found.push(
      ...finding({
        rule: "set-not-null-scans",
        table,
        lock: "ACCESS EXCLUSIVE",
        blocks: "reads and writes",
        touchesEveryRow: "scan",
        what: `SET NOT NULL on ${to.name} reads every row while nothing else reads or writes the table`,
        safeAlternative: "ADD CHECK (col IS NOT NULL) NOT VALID, VALIDATE it, SET NOT NULL (which then skips the scan), drop the check",
        fixable: true,
      }),
    );
  }
  if (to.unique && !from.unique) {
    found.push(
      ...finding({
        rule: "unique-constraint-locks",
        table,
        lock: "ACCESS EXCLUSIVE",
        blocks: "reads and writes",
        touchesEveryRow: "scan",
        what: `ADD UNIQUE on ${to.name} builds its index while nothing else reads or writes the table`,
        safeAlternative:
          "CREATE UNIQUE INDEX CONCURRENTLY outside the transaction, then ADD CONSTRAINT ... UNIQUE USING INDEX, which only attaches it (the safe plan does both)",
        fixable: true,
      }),
    );
  }
  return found;
}
