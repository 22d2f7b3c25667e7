/** PostgreSQL's table lock modes that the lint reports, weakest first (see "Explicit Locking" in its docs). */
export type LockLevel = "SHARE UPDATE EXCLUSIVE" | "SHARE" | "SHARE ROW EXCLUSIVE" | "ACCESS EXCLUSIVE" | "TABLE COPY";

/** What the other sessions cannot do while the lock is held. */
export type Blocked = "writes" | "reads and writes";

export type LockRule =
  /** CREATE INDEX without CONCURRENTLY. */
  | "index-not-concurrent"
  /** DROP INDEX without CONCURRENTLY. */
  | "drop-index-not-concurrent"
  /** ADD FOREIGN KEY that checks every row while it holds its lock. */
  | "foreign-key-validated-at-once"
  /** ADD CHECK that checks every row while it holds its lock. */
  | "check-validated-at-once"
  /** SET NOT NULL with no validated check to prove it: a full scan under ACCESS EXCLUSIVE. */
  | "set-not-null-scans"
  /** ALTER COLUMN TYPE that rewrites the table and its indexes. */
  | "type-change-rewrites"
  /** ADD COLUMN with a volatile default: every row is written. */
  | "volatile-default-rewrites"
  /** ADD COLUMN ... NOT NULL without a default: fails on a table that has rows. */
  | "not-null-column-without-default"
  /** A UNIQUE constraint added with ALTER TABLE: its index is built under ACCESS EXCLUSIVE. */
  | "unique-constraint-locks"
  /** MySQL/MariaDB: the ALTER copies the table. */
  | "table-copy";

/**
 * One change that holds a heavy lock on a table with rows, or rewrites it. `fixable`: `safePlan`
 * turns it into its safe form; otherwise `safeAlternative` says what to do by hand.
 */
export interface LockWarning {
  readonly rule: LockRule;
  /** The position of the change in the plan. */
  readonly index: number;
  readonly label: string;
  readonly table: string;
  /** Other tables the same statement locks (a foreign key also locks the table it references). */
  readonly alsoLocks: readonly string[];
  readonly lock: LockLevel;
  readonly blocks: Blocked;
  /** Every row is read (a scan) or written again (a rewrite) while the lock is held. */
  readonly touchesEveryRow: "scan" | "rewrite" | "none";
  readonly safeAlternative: string;
  readonly fixable: boolean;
  /** One sentence with all of the above. */
  readonly message: string;
}
