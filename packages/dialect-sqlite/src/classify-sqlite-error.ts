import type { ClassifiedError, QueryErrorKind } from "tempest-db-js/dialect";

const PARAMETER_COUNT_HINT =
  "The statement's placeholders and the values sent differ in number: an sql.expr `${}` inside quotes is text, not a parameter; remove the quotes around it";

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
  // better-sqlite3 refuses, before running, values that do not match the statement's placeholders.
  if (
    error instanceof RangeError &&
    /^Too many parameter values were provided|^Too few parameter values were provided|^Missing named parameter/.test(message)
  ) {
    return { kind: "syntax", driverCode: undefined, constraint: undefined, message: `${message}. ${PARAMETER_COUNT_HINT}` };
  }
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
