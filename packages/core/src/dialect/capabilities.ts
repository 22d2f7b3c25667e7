/**
 * What a dialect (and the server behind it) can do. The compiler consults it and throws
 * UnsupportedFeatureError where a statement asks for something missing; the queue recipes consult
 * it to choose a strategy. Every flag defaults to the safe answer, `false`.
 */
export interface DialectCapabilities {
  /** `SELECT ... FOR UPDATE` row locks. */
  readonly rowLocks: boolean;
  /** `FOR SHARE` (or the dialect's spelling of a shared row lock). */
  readonly shareLocks: boolean;
  readonly skipLocked: boolean;
  readonly noWait: boolean;
  /** `FOR UPDATE OF table`. */
  readonly lockOf: boolean;
  readonly returningInsert: boolean;
  readonly returningUpdate: boolean;
  readonly returningDelete: boolean;
  /** LIMIT inside an `IN (SELECT ...)` operand. */
  readonly limitInSubquery: boolean;
  /** `ON CONFLICT (columns) ...` with a conflict target. */
  readonly conflictTarget: boolean;
  /** A WHERE after the conflict target (partial unique indexes as arbiters). */
  readonly conflictTargetWhere: boolean;
  /** `ON DUPLICATE KEY UPDATE`. */
  readonly onDuplicateKey: boolean;
  readonly partialIndexes: boolean;
  readonly savepoints: boolean;
  /** `LISTEN` / `NOTIFY` style wake-ups, through `engine.listen()` / `engine.notify()`. */
  readonly listenNotify: boolean;
  /**
   * Write transactions exclude each other entirely (SQLite). A claim inside a transaction is then
   * safe without row locks.
   */
  readonly serializedWrites: boolean;
  /**
   * Text (and strings inside JSON) may hold NUL (U+0000) and every operator treats it as a character.
   * Without it a NUL in a bound value is a ValidationError while compiling, not a server error.
   */
  readonly nulInText: boolean;
  /** `RIGHT JOIN` (SQLite from 3.39). */
  readonly rightJoin: boolean;
  /** `FULL JOIN` (not on MySQL/MariaDB; SQLite from 3.39). */
  readonly fullJoin: boolean;
  /** `NULLS FIRST` / `NULLS LAST` in ORDER BY; without it the compiler sorts on `x IS NULL` first. */
  readonly nullsOrder: boolean;
  /** SUM / AVG of numeric columns in exact decimal arithmetic (SQLite has only floating point). */
  readonly exactDecimalAggregates: boolean;
  /** Common table expressions, `WITH name AS (...)` (MySQL from 8.0, MariaDB from 10.2). */
  readonly ctes: boolean;
  /** `WITH RECURSIVE`. */
  readonly recursiveCtes: boolean;
  /** `AS MATERIALIZED` / `AS NOT MATERIALIZED` on a CTE (PostgreSQL 12+, SQLite 3.35+). */
  readonly cteMaterialized: boolean;
  /** INSERT / UPDATE / DELETE ... RETURNING as a CTE's body (PostgreSQL). */
  readonly dataModifyingCtes: boolean;
  /** INTERSECT and EXCEPT (MySQL from 8.0.31). */
  readonly intersectExcept: boolean;
  readonly intersectAll: boolean;
  readonly exceptAll: boolean;
  /**
   * A set operation's part may carry its own LIMIT / OFFSET in parentheses, `(SELECT ... LIMIT 1)
   * UNION ...`; without it (SQLite) the compiler reads such a part from a derived table.
   */
  readonly parenthesizedSetParts: boolean;
  /** Window functions, `fn(...) OVER (...)` (MariaDB 10.2, MySQL 8, SQLite 3.25). */
  readonly windowFunctions: boolean;
  /**
   * `CROSS JOIN LATERAL`: a relation load with a limit per owner row reads each owner's related rows
   * with their own ORDER BY / LIMIT (an index range per owner). Without it the compiler numbers the
   * related rows per owner with ROW_NUMBER() and keeps the first ones (needs `windowFunctions`).
   */
  readonly lateralJoin: boolean;
  /** `GROUPS` window frames (PostgreSQL 11, SQLite 3.28; not MySQL/MariaDB). */
  readonly windowGroups: boolean;
  /** `RANGE` frames with an offset, `RANGE BETWEEN 5 PRECEDING AND CURRENT ROW` (PostgreSQL 11, SQLite 3.28, MariaDB, MySQL 8). */
  readonly windowRangeOffset: boolean;
  /** `LAG(x, n, default)` / `LEAD(...)` with a default (not MariaDB; the compiler writes a CASE there). */
  readonly windowOffsetDefault: boolean;
  /**
   * Most distinct windows (`OVER (...)` specifications) one select may hold; functions sharing one
   * window count once. MariaDB 10.11.19 computes some selects with three windows wrongly (a running
   * sum in another window's order), so MySQL/MariaDB take one.
   */
  readonly windowsPerSelect: number;
  /** Most bound parameters one statement may carry. */
  readonly maxParams: number;
  /**
   * The compiler may reuse the SQL text of a statement shape it compiled before, binding only the new
   * values (see compiler/statement-shapes). Declare it only when every hook the dialect overrides
   * writes text that no value changes and binds values in the base compiler's order; the conformance
   * suite's "cached compile equals full compile" cases prove it. Off by default: a dialect that does
   * not declare it compiles every statement in full.
   */
  readonly shapeCache: boolean;
  /** `statementTimeoutMs` is enforced by the server (PostgreSQL statement_timeout, MariaDB max_statement_time); otherwise it is refused. */
  readonly statementTimeout: boolean;
  // ---- schema changes (migrations): which ALTERs the database has natively ------------------
  /** DDL runs inside a transaction and rolls back with it (PostgreSQL, SQLite; MySQL commits each DDL statement). */
  readonly transactionalDdl: boolean;
  /** `ALTER TABLE ... RENAME TO`. */
  readonly renameTable: boolean;
  /** `ALTER TABLE ... RENAME COLUMN a TO b` (SQLite 3.25, MariaDB 10.5.2, MySQL 8). */
  readonly renameColumn: boolean;
  /** `ALTER TABLE ... DROP COLUMN` (SQLite 3.35, and there only for a column no key, index or constraint uses). */
  readonly dropColumn: boolean;
  /** Changing a column's type, nullability, default, enum values or UNIQUE in place (not SQLite: rebuild the table). */
  readonly alterColumn: boolean;
  /** Adding and dropping FOREIGN KEY and CHECK constraints of an existing table (not SQLite: rebuild the table). */
  readonly alterConstraints: boolean;
  /** SQLite's table rebuild (`rebuildTable`): a new table, the rows copied, the old one dropped. */
  readonly tableRebuild: boolean;
  /** `CREATE INDEX CONCURRENTLY` / `DROP INDEX CONCURRENTLY` (PostgreSQL), outside a transaction. */
  readonly concurrentIndexes: boolean;
  /** `NOT VALID` constraints checked later by `VALIDATE CONSTRAINT` (PostgreSQL). */
  readonly notValidConstraints: boolean;
  /** Generated columns that are computed on read (`VIRTUAL`); stored ones everywhere that has generated columns. */
  readonly virtualGeneratedColumns: boolean;
  /**
   * Months and years added to a datetime as calendar steps that fall back to the month's last day
   * (January 31 plus one month is February 28 or 29); without it `fn.addInterval(x, n, "months")` is refused.
   */
  readonly calendarIntervals: boolean;
}

export const safeCapabilities: DialectCapabilities = Object.freeze({
  rowLocks: false,
  shareLocks: false,
  skipLocked: false,
  noWait: false,
  lockOf: false,
  returningInsert: false,
  returningUpdate: false,
  returningDelete: false,
  limitInSubquery: false,
  conflictTarget: false,
  conflictTargetWhere: false,
  onDuplicateKey: false,
  partialIndexes: false,
  savepoints: false,
  listenNotify: false,
  serializedWrites: false,
  nulInText: false,
  rightJoin: false,
  fullJoin: false,
  nullsOrder: false,
  exactDecimalAggregates: false,
  ctes: false,
  recursiveCtes: false,
  cteMaterialized: false,
  dataModifyingCtes: false,
  intersectExcept: false,
  intersectAll: false,
  exceptAll: false,
  parenthesizedSetParts: false,
  windowFunctions: false,
  lateralJoin: false,
  windowGroups: false,
  windowRangeOffset: false,
  windowOffsetDefault: false,
  windowsPerSelect: 1,
  maxParams: 999,
  shapeCache: false,
  statementTimeout: false,
  transactionalDdl: false,
  renameTable: false,
  renameColumn: false,
  dropColumn: false,
  alterColumn: false,
  alterConstraints: false,
  tableRebuild: false,
  concurrentIndexes: false,
  notValidConstraints: false,
  virtualGeneratedColumns: false,
  calendarIntervals: false,
});

/** A dialect's table: the safe defaults overridden by what it declares. */
export function defineCapabilities(declared: Partial<DialectCapabilities>): DialectCapabilities {
  return Object.freeze({ ...safeCapabilities, ...declared });
}
