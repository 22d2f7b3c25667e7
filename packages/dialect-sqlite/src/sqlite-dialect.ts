import type { Dialect, DialectCapabilities, DriverConnection } from "tempest-db-js/dialect";
import { DIALECT_CONTRACT_VERSION, defineCapabilities } from "tempest-db-js/dialect";
import { classifySqliteError } from "./classify-sqlite-error.js";
import { sqliteCodec } from "./sqlite-codec.js";
import { SqliteCompiler } from "./sqlite-compiler.js";
import { readOptions, SqliteDriver } from "./sqlite-driver.js";
import { sqliteIntrospector } from "./sqlite-introspector.js";
import { sqliteMigrationSupport } from "./sqlite-migration-support.js";
import { parseSqliteUrl } from "./sqlite-url.js";

/**
 * What the better-sqlite3 12 build (SQLite 3.5x) can do; `inspectServer` lowers it for an older
 * linked SQLite. Flags not named keep core's safe default (`false`).
 */
export const sqliteCapabilities = defineCapabilities({
  rowLocks: false,
  shareLocks: false,
  skipLocked: false,
  noWait: false,
  lockOf: false,
  returningInsert: true,
  returningUpdate: true,
  returningDelete: true,
  limitInSubquery: true,
  conflictTarget: true,
  conflictTargetWhere: true,
  onDuplicateKey: false,
  partialIndexes: true,
  savepoints: true,
  listenNotify: false,
  serializedWrites: true,
  rightJoin: true,
  fullJoin: true,
  nullsOrder: true,
  // SUM/AVG over the TEXT a numeric column holds would run in floating point.
  exactDecimalAggregates: false,
  ctes: true,
  recursiveCtes: true,
  cteMaterialized: true,
  // Writes are statements of their own: no INSERT/UPDATE/DELETE inside WITH.
  dataModifyingCtes: false,
  intersectExcept: true,
  // Neither INTERSECT ALL nor EXCEPT ALL, and no parenthesized compound parts (a part with LIMIT is read from a derived table).
  intersectAll: false,
  exceptAll: false,
  parenthesizedSetParts: false,
  windowFunctions: true,
  windowGroups: true,
  windowRangeOffset: true,
  windowOffsetDefault: true,
  windowsPerSelect: Number.MAX_SAFE_INTEGER,
  maxParams: 32766,
  // Its compiler keeps a statement's text independent of its values: proven by the conformance suite's
  // "cached compile equals full compile" cases.
  shapeCache: true,
  // Schema changes: ALTER TABLE adds, renames and drops columns and renames tables; everything else
  // (a column's type, nullability or default, constraints) takes the documented table rebuild.
  transactionalDdl: true,
  renameTable: true,
  renameColumn: true,
  dropColumn: true,
  alterColumn: false,
  alterConstraints: false,
  tableRebuild: true,
  virtualGeneratedColumns: true,
  calendarIntervals: true,
});

/** The SQLite release each feature first shipped in. */
const SINCE: ReadonlyArray<readonly [version: string, without: Partial<DialectCapabilities>]> = [
  ["3.35.0", { returningInsert: false, returningUpdate: false, returningDelete: false, cteMaterialized: false }],
  ["3.24.0", { conflictTarget: false, conflictTargetWhere: false }],
  ["3.39.0", { rightJoin: false, fullJoin: false }],
  ["3.30.0", { nullsOrder: false }],
  ["3.28.0", { windowGroups: false, windowRangeOffset: false }],
  ["3.25.0", { windowFunctions: false, windowOffsetDefault: false }],
  // SQLITE_MAX_VARIABLE_NUMBER's default before 3.32.0.
  ["3.32.0", { maxParams: 999 }],
  ["3.35.0", { dropColumn: false }],
  // The 'floor' modifier, which makes January 31 plus a month February's last day (not March 2 or 3).
  ["3.46.0", { calendarIntervals: false }],
];

export function capabilitiesForVersion(version: string, assumed: DialectCapabilities): DialectCapabilities {
  let capabilities = assumed;
  for (const [since, without] of SINCE) {
    if (compareVersions(version, since) < 0) capabilities = defineCapabilities({ ...capabilities, ...without });
  }
  return capabilities;
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    const diff = (pa[i] || 0) - (pb[i] || 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

export const sqliteDialect: Dialect = {
  contractVersion: DIALECT_CONTRACT_VERSION,
  name: "SQLite",
  schemes: ["sqlite"],
  capabilitiesFor(url) {
    // Parsed here so that a malformed URL fails in createEngine, not at the first statement.
    parseSqliteUrl(url);
    return sqliteCapabilities;
  },
  createCompiler: (capabilities) => new SqliteCompiler(capabilities),
  codec: sqliteCodec,
  createDriver: (config) => new SqliteDriver(config),
  validateOptions: (options) => {
    readOptions(options);
  },
  classifyError: classifySqliteError,
  introspector: sqliteIntrospector,
  migrationSupport: sqliteMigrationSupport,
  async inspectServer(connection: DriverConnection, assumed: DialectCapabilities): Promise<DialectCapabilities> {
    const { rows } = await connection.query({ sql: "SELECT sqlite_version()", params: [], rowMode: "array" });
    const version = (rows[0] as unknown[] | undefined)?.[0];
    return typeof version === "string" ? capabilitiesForVersion(version, assumed) : assumed;
  },
};

export { classifySqliteError };
