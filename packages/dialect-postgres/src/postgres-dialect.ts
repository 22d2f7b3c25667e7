import type { ClassifiedError, Dialect, QueryErrorKind } from "tempest-db-js/dialect";
import { DIALECT_CONTRACT_VERSION, defineCapabilities } from "tempest-db-js/dialect";
import { postgresCodec } from "./postgres-codec.js";
import { PostgresCompiler } from "./postgres-compiler.js";
import { PostgresDriver } from "./postgres-driver.js";
import { readOptions } from "./postgres-driver-options.js";
import { postgresIntrospector } from "./postgres-introspector.js";
import { postgresMigrationSupport } from "./postgres-migration-support.js";

export const postgresCapabilities = defineCapabilities({
  calendarIntervals: true,
  rowLocks: true,
  shareLocks: true,
  skipLocked: true,
  noWait: true,
  lockOf: true,
  returningInsert: true,
  returningUpdate: true,
  returningDelete: true,
  limitInSubquery: true,
  conflictTarget: true,
  conflictTargetWhere: true,
  partialIndexes: true,
  savepoints: true,
  listenNotify: true,
  rightJoin: true,
  fullJoin: true,
  nullsOrder: true,
  exactDecimalAggregates: true,
  ctes: true,
  recursiveCtes: true,
  // MATERIALIZED / NOT MATERIALIZED: PostgreSQL 12 and later.
  cteMaterialized: true,
  dataModifyingCtes: true,
  intersectExcept: true,
  intersectAll: true,
  exceptAll: true,
  parenthesizedSetParts: true,
  // GROUPS frames and RANGE offsets since PostgreSQL 11; the suite's oldest server is 15.
  windowFunctions: true,
  lateralJoin: true,
  windowGroups: true,
  windowRangeOffset: true,
  windowOffsetDefault: true,
  windowsPerSelect: Number.MAX_SAFE_INTEGER,
  maxParams: 65535,
  // Its compiler keeps a statement's text independent of its values: proven by the conformance suite's
  // "cached compile equals full compile" cases.
  shapeCache: true,
  statementTimeout: true,
  // Schema changes: every ALTER in place, inside the migration's transaction, plus the forms that
  // keep a busy table writable (CONCURRENTLY, NOT VALID + VALIDATE). VIRTUAL generated columns
  // arrived in 18 and the dialect does not read the server's version, so only stored ones.
  transactionalDdl: true,
  renameTable: true,
  renameColumn: true,
  dropColumn: true,
  alterColumn: true,
  alterConstraints: true,
  concurrentIndexes: true,
  notValidConstraints: true,
});

const SQLSTATE: Record<string, QueryErrorKind> = {
  "40P01": "deadlock",
  "40001": "serialization",
  "55P03": "lock-not-available",
  "23505": "unique-violation",
  "23503": "foreign-key-violation",
  "23502": "not-null-violation",
  "23514": "check-violation",
  "57014": "statement-timeout",
  "57P01": "connection",
  "57P02": "connection",
  "57P03": "connection",
  "42601": "syntax",
  "28000": "authentication",
  "28P01": "authentication",
  // The server's own transaction guards end the session: idle_in_transaction_session_timeout, transaction_timeout (17+).
  "25P03": "transaction-timeout",
  "25P04": "transaction-timeout",
};

const PARAMETER_COUNT_HINT =
  "The statement's placeholders and the values sent differ in number: an sql.expr `${}` inside quotes is text, not a parameter; remove the quotes around it";
/** The server is starting up, shutting down into a restart, or out of connection slots: try again in a moment. */
const TRY_AGAIN = new Set(["57P03", "53300"]);

const NETWORK = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND", "EHOSTUNREACH"]);

export function classifyPostgresError(error: unknown): ClassifiedError {
  const e = error as { code?: unknown; message?: unknown; constraint?: unknown };
  const code = typeof e?.code === "string" ? e.code : undefined;
  const message = typeof e?.message === "string" ? e.message : String(error);
  let kind: QueryErrorKind = (code && SQLSTATE[code]) || "other";
  // 08P01 (protocol violation) is also what the server answers a statement sent with more or fewer
  // values than its placeholders: a usage mistake, not a broken connection (see PARAMETER_COUNT_HINT).
  if (code === "08P01" && /^bind message supplies \d+ parameters?, but prepared statement/.test(message)) {
    return { kind: "syntax", driverCode: code, constraint: undefined, message: `${message}. ${PARAMETER_COUNT_HINT}` };
  }
  if (kind === "other" && code && (code.startsWith("08") || NETWORK.has(code))) kind = "connection";
  if (kind === "other" && /Connection terminated|connection is closed|Client has encountered a connection error/i.test(message))
    kind = "connection";
  if (code === "53300") kind = "connection";
  const retryable = code !== undefined && TRY_AGAIN.has(code) ? true : undefined;
  return { kind, driverCode: code, constraint: typeof e?.constraint === "string" ? e.constraint : undefined, message, retryable };
}

export const postgresDialect: Dialect = {
  contractVersion: DIALECT_CONTRACT_VERSION,
  name: "PostgreSQL",
  schemes: ["postgres", "postgresql"],
  capabilitiesFor: () => postgresCapabilities,
  createCompiler: (capabilities) => new PostgresCompiler(capabilities),
  codec: postgresCodec,
  createDriver: (config) => new PostgresDriver(config),
  validateOptions: (options) => {
    readOptions(options);
  },
  classifyError: classifyPostgresError,
  introspector: postgresIntrospector,
  migrationSupport: postgresMigrationSupport,
};
