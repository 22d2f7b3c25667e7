import type { DialectCapabilities } from "tempest-db-js/dialect";
import { defineCapabilities } from "tempest-db-js/dialect";
import type { MysqlServerVersion } from "./mysql-server-version.js";
import { atLeast, MYSQL_8_0 } from "./mysql-server-version.js";

/**
 * Core's capability table plus the few spellings in which MySQL and MariaDB differ. The compiler
 * reads only this object, so the two servers differ in data, never in `if (flavor === ...)` code
 * scattered through the compiler.
 */
export interface MysqlCapabilities extends DialectCapabilities {
  readonly server: MysqlServerVersion;
  /** `LOCK IN SHARE MODE` rather than `FOR SHARE` (MariaDB, MySQL before 8). */
  readonly lockInShareMode: boolean;
  /** `CREATE INDEX IF NOT EXISTS`, and `DROP INDEX IF EXISTS` in ALTER TABLE (MariaDB only). */
  readonly indexIfNotExists: boolean;
  /** UPDATE/DELETE may read its own table in a subquery (MariaDB; MySQL answers error 1093). */
  readonly writeTargetInSubquery: boolean;
  /** Binary and no-pad where the server has it, so that equality and uniqueness match JavaScript's `===`. */
  readonly tableCollation: string;
  /** `JSON_TABLE` (MariaDB 10.6+, MySQL 8): long in/notIn lists travel as one JSON parameter. */
  readonly jsonTable: boolean;
  /**
   * INTERSECT ALL / EXCEPT ALL may follow another set operator in one flat chain. Not on MariaDB:
   * 10.11.19 loops forever on `SELECT 1 INTERSECT ALL SELECT 2 EXCEPT ALL SELECT 1` (at one core,
   * through KILL and max_statement_time, until SIGKILL), and MDEV-38722 crashes a chain ending in
   * EXCEPT ALL; the compiler reads the chain before such an operator from a derived table there.
   * MySQL 8 is unmeasured here and keeps the chain.
   */
  readonly bagOperatorChains: boolean;
  /**
   * OFFSET applies to a DISTINCT select as written. Not on MariaDB: 10.11.19 answers
   * `SELECT DISTINCT 5 FROM t LIMIT 2 OFFSET 2` with one row (a select list of constants, literals or
   * uncorrelated subqueries, is cut to one row and the offset dropped); the compiler pages the distinct
   * rows as a derived table there. MySQL 8 is unmeasured here and keeps the select as written.
   */
  readonly distinctOffset: boolean;
  /** ADD COLUMN (at the end, as migrations add) with ALGORITHM=INSTANT (MariaDB 10.3.2, MySQL 8.0.12). */
  readonly instantAddColumn: boolean;
  /** DROP COLUMN with ALGORITHM=INSTANT (MariaDB 10.4, MySQL 8.0.29). */
  readonly instantDropColumn: boolean;
  /** RENAME COLUMN with ALGORITHM=INSTANT (MariaDB 10.5.2, MySQL 8.0.28). */
  readonly instantRenameColumn: boolean;
  /** DROP FOREIGN KEY / DROP CONSTRAINT (a CHECK) with ALGORITHM=INSTANT (MariaDB; measured on 10.11). */
  readonly instantDropConstraint: boolean;
}

export function mysqlCapabilities(server: MysqlServerVersion): MysqlCapabilities {
  const maria = server.flavor === "mariadb";
  const mysql8 = !maria && atLeast(server, 8);
  const flags = defineCapabilities({
    rowLocks: true,
    shareLocks: true,
    skipLocked: maria ? atLeast(server, 10, 6) : mysql8,
    noWait: maria ? atLeast(server, 10, 3) : mysql8,
    lockOf: mysql8,
    returningInsert: maria && atLeast(server, 10, 5),
    returningUpdate: false,
    returningDelete: maria,
    // Error 1235: "This version of MySQL doesn't yet support 'LIMIT & IN/ALL/ANY/SOME subquery'".
    limitInSubquery: false,
    conflictTarget: false,
    conflictTargetWhere: false,
    onDuplicateKey: true,
    partialIndexes: false,
    savepoints: true,
    listenNotify: false,
    serializedWrites: false,
    // Strings travel length-prefixed and `=` compares NUL like any other character, but ORDER BY does
    // not: MariaDB 10.11.19 sorts a short varchar (`varchar(6)`) by keys padded with NUL, so values
    // that differ only by trailing NULs ('a', 'a\0') sort as equal despite the NO PAD collation. NUL
    // is refused here, as on PostgreSQL and SQLite, rather than stored and then misordered.
    nulInText: false,
    rightJoin: true,
    // Neither server has FULL JOIN, nor NULLS FIRST / LAST (the compiler sorts on `x IS NULL`).
    fullJoin: false,
    nullsOrder: false,
    exactDecimalAggregates: true,
    ctes: maria ? atLeast(server, 10, 2, 1) : mysql8,
    recursiveCtes: maria ? atLeast(server, 10, 2, 2) : mysql8,
    // Neither server takes MATERIALIZED / NOT MATERIALIZED on a CTE (MySQL has optimizer hints instead).
    cteMaterialized: false,
    dataModifyingCtes: false,
    intersectExcept: maria ? atLeast(server, 10, 3) : atLeast(server, 8, 0, 31),
    intersectAll: maria ? atLeast(server, 10, 5) : atLeast(server, 8, 0, 31),
    exceptAll: maria ? atLeast(server, 10, 5) : atLeast(server, 8, 0, 31),
    parenthesizedSetParts: true,
    windowFunctions: maria ? atLeast(server, 10, 2) : mysql8,
    // Neither server has GROUPS frames; MariaDB's LAG/LEAD take no default (the compiler writes a CASE).
    windowGroups: false,
    windowRangeOffset: maria ? atLeast(server, 10, 2) : mysql8,
    windowOffsetDefault: mysql8,
    // MariaDB 10.11.19 computes some selects with several windows wrongly; MySQL 8 is unmeasured here.
    windowsPerSelect: 1,
    // The prepared-statement protocol counts parameters in 16 bits.
    maxParams: 65535,
    // Its compiler keeps a statement's text independent of its values: proven by the conformance suite's
    // "cached compile equals full compile" cases.
    shapeCache: true,
    statementTimeout: true,
    // DDL commits implicitly: a migration's statements cannot roll back together.
    transactionalDdl: false,
    renameTable: true,
    renameColumn: maria ? atLeast(server, 10, 5, 2) : mysql8,
    dropColumn: true,
    alterColumn: true,
    // CHECK constraints are enforced from MariaDB 10.2.1 and MySQL 8.0.16.
    alterConstraints: maria ? atLeast(server, 10, 2, 1) : atLeast(server, 8, 0, 16),
    virtualGeneratedColumns: true,
    calendarIntervals: true,
  });
  return Object.freeze({
    ...flags,
    server,
    lockInShareMode: !mysql8,
    indexIfNotExists: maria,
    writeTargetInSubquery: maria && atLeast(server, 10, 3, 2),
    tableCollation: maria ? "utf8mb4_nopad_bin" : mysql8 ? "utf8mb4_0900_bin" : "utf8mb4_bin",
    jsonTable: maria ? atLeast(server, 10, 6) : mysql8,
    bagOperatorChains: !maria,
    distinctOffset: !maria,
    instantAddColumn: maria ? atLeast(server, 10, 3, 2) : atLeast(server, 8, 0, 12),
    instantDropColumn: maria ? atLeast(server, 10, 4) : atLeast(server, 8, 0, 29),
    instantRenameColumn: maria ? atLeast(server, 10, 5, 2) : atLeast(server, 8, 0, 28),
    instantDropConstraint: maria && atLeast(server, 10, 4),
  });
}

/** Capabilities handed back by core are the object this package made; a plain table gets MySQL 8 spellings. */
export function asMysqlCapabilities(capabilities: DialectCapabilities): MysqlCapabilities {
  if ("server" in capabilities && "tableCollation" in capabilities) return capabilities as MysqlCapabilities;
  return Object.freeze({ ...mysqlCapabilities(MYSQL_8_0), ...capabilities });
}
