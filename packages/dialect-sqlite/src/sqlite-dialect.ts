import type { ClassifiedError, Dialect, DialectCapabilities, DriverConnection, QueryErrorKind } from "tempest-db-js";
import { DIALECT_CONTRACT_VERSION, defineCapabilities } from "tempest-db-js";
import { SqliteCompiler } from "./sqlite-compiler.js";
import { readOptions, SqliteDriver } from "./sqlite-driver.js";
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
  maxParams: 32766,
});

/** The SQLite release each feature first shipped in. */
const SINCE: ReadonlyArray<readonly [version: string, without: Partial<DialectCapabilities>]> = [
  ["3.35.0", { returningInsert: false, returningUpdate: false, returningDelete: false }],
  ["3.24.0", { conflictTarget: false, conflictTargetWhere: false }],
  // SQLITE_MAX_VARIABLE_NUMBER's default before 3.32.0.
  ["3.32.0", { maxParams: 999 }],
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

const CONSTRAINT: Record<string, QueryErrorKind> = {
  SQLITE_CONSTRAINT_UNIQUE: "unique-violation",
  SQLITE_CONSTRAINT_PRIMARYKEY: "unique-violation",
  SQLITE_CONSTRAINT_FOREIGNKEY: "foreign-key-violation",
  SQLITE_CONSTRAINT_NOTNULL: "not-null-violation",
  SQLITE_CONSTRAINT_CHECK: "check-violation",
};

/** The file cannot be used at all: reopening (or fixing the path) is the way out. */
const CONNECTION = new Set(["SQLITE_CANTOPEN", "SQLITE_NOTADB", "SQLITE_CORRUPT"]);

/**
 * better-sqlite3 throws SqliteError with the extended result code as `.code` (SQLITE_BUSY_SNAPSHOT,
 * SQLITE_CONSTRAINT_UNIQUE, ...). BUSY and LOCKED mean another connection holds the write lock past
 * busy_timeout: retrying the whole transaction is the cure, hence `lock-timeout`. `constraint` is
 * what SQLite names after "constraint failed:" — the table.column list, or a CHECK's expression.
 */
export function classifySqliteError(error: unknown): ClassifiedError {
  const e = error as { code?: unknown; message?: unknown };
  const code = typeof e?.code === "string" ? e.code : undefined;
  const message = typeof e?.message === "string" ? e.message : String(error);
  const constraint = /constraint failed: (.+)$/s.exec(message)?.[1];
  return { kind: kindOf(code, message), driverCode: code, constraint, message };
}

function kindOf(code: string | undefined, message: string): QueryErrorKind {
  if (code === undefined) {
    if (/database connection is not open|database is closed/i.test(message)) return "connection";
    return "other";
  }
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "lock-timeout";
  const constraint = CONSTRAINT[code];
  if (constraint) return constraint;
  if (code.startsWith("SQLITE_CONSTRAINT")) {
    if (/^(UNIQUE|PRIMARY KEY) constraint failed/i.test(message)) return "unique-violation";
    if (/^FOREIGN KEY constraint failed/i.test(message)) return "foreign-key-violation";
    if (/^NOT NULL constraint failed/i.test(message)) return "not-null-violation";
    if (/^CHECK constraint failed/i.test(message)) return "check-violation";
  }
  if (CONNECTION.has(code) || code.startsWith("SQLITE_IOERR")) return "connection";
  if (code === "SQLITE_ERROR" && /syntax error|incomplete input|unrecognized token/i.test(message)) return "syntax";
  return "other";
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
  createDriver: (config) => new SqliteDriver(config),
  validateOptions: (options) => {
    readOptions(options);
  },
  classifyError: classifySqliteError,
  async inspectServer(connection: DriverConnection, assumed: DialectCapabilities): Promise<DialectCapabilities> {
    const { rows } = await connection.query({ sql: "SELECT sqlite_version()", params: [], rowMode: "array" });
    const version = (rows[0] as unknown[] | undefined)?.[0];
    return typeof version === "string" ? capabilitiesForVersion(version, assumed) : assumed;
  },
};
