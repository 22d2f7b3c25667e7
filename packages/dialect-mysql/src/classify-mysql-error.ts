import type { ClassifiedError, QueryErrorKind } from "tempest-db-js/dialect";

const PARAMETER_COUNT_HINT =
  "The statement's placeholders and the values sent differ in number: an sql.expr `${}` inside quotes is text, not a parameter; remove the quotes around it";

/** Server error numbers (MySQL and MariaDB share most of them). */
const ERRNO: Readonly<Record<number, QueryErrorKind>> = {
  1213: "deadlock",
  1205: "lock-timeout",
  // MariaDB ≥ 11.6 with innodb_snapshot_isolation: "Record has changed since last read".
  1020: "serialization",
  3572: "lock-not-available",
  1062: "unique-violation",
  1586: "unique-violation",
  1451: "foreign-key-violation",
  1452: "foreign-key-violation",
  1216: "foreign-key-violation",
  1217: "foreign-key-violation",
  1048: "not-null-violation",
  1364: "not-null-violation",
  4025: "check-violation",
  3819: "check-violation",
  1064: "syntax",
  1149: "syntax",
  1969: "statement-timeout",
  3024: "statement-timeout",
  1040: "connection",
  1053: "connection",
  1927: "connection",
  2006: "connection",
  2013: "connection",
  2055: "connection",
  4031: "connection",
  // ER_NET_PACKET_TOO_LARGE: the server closes the connection after it, so it is one to discard.
  1153: "connection",
  1044: "authentication",
  1045: "authentication",
  1251: "authentication",
  1698: "authentication",
};

/** Too many connections, or the server shutting down into a restart: try again in a moment. */
const TRY_AGAIN = new Set([1040, 1053]);

/** mysql2's own codes for a socket that is gone or never came. */
const NETWORK = new Set([
  "PROTOCOL_CONNECTION_LOST",
  "PROTOCOL_SEQUENCE_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/**
 * MariaDB answers a NOWAIT that found the row locked with 1205, the lock-wait-timeout error; the
 * driver, which sees the statement, marks those so that they read as what they are.
 */
const noWaitFailures = new WeakSet<object>();

export function markNoWaitFailure(error: unknown): void {
  if (typeof error === "object" && error !== null) noWaitFailures.add(error);
}

interface MysqlError {
  readonly errno?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
  readonly fatal?: unknown;
}

export function classifyMysqlError(error: unknown): ClassifiedError {
  const e = (typeof error === "object" && error !== null ? error : {}) as MysqlError;
  const errno = typeof e.errno === "number" ? e.errno : undefined;
  const code = typeof e.code === "string" ? e.code : undefined;
  const raw = typeof e.message === "string" ? e.message : String(error);
  const message = redactValues(raw);
  let kind: QueryErrorKind = (errno !== undefined && ERRNO[errno]) || "other";
  // ER_WRONG_ARGUMENTS from a prepared statement: the values sent do not match its placeholders.
  if (errno === 1210 && /mysqld_stmt_execute/.test(raw)) {
    return { kind: "syntax", driverCode: code ?? "1210", constraint: undefined, message: `${message}. ${PARAMETER_COUNT_HINT}` };
  }
  if (kind === "lock-timeout" && noWaitFailures.has(e)) kind = "lock-not-available";
  if (kind === "other" && code && NETWORK.has(code)) kind = "connection";
  if (kind === "other" && /connection is in closed state|Connection lost/i.test(raw)) kind = "connection";
  // mysql2 marks the errors after which the connection cannot be used again: never hand it out again.
  if (kind === "other" && e.fatal === true) kind = "connection";
  return {
    kind,
    driverCode: code ?? (errno === undefined ? undefined : String(errno)),
    constraint: constraintOf(errno, raw),
    message,
    retryable: errno !== undefined && TRY_AGAIN.has(errno) ? true : undefined,
  };
}

/**
 * Server messages quote the offending value ("Duplicate entry 'secret' for key ..."). Parameters
 * must not reach logs through an error message, so the quoted value is replaced; identifiers
 * (key, column, constraint names) stay, since they are what the reader needs.
 */
export function redactValues(message: string): string {
  return message
    .replace(/Duplicate entry '[\s\S]*' for key '/, "Duplicate entry '[redacted]' for key '")
    .replace(/(value: )'[\s\S]*'(?= for column | for function | at row |$)/, "$1'[redacted]'")
    .replace(/(out of range in )'[\s\S]*'$/, "$1'[redacted]'");
}

function constraintOf(errno: number | undefined, message: string): string | undefined {
  let match: RegExpExecArray | null = null;
  if (errno === 1062 || errno === 1586) match = /for key '(?:[^']*\.)?([^'.]+)'/.exec(message);
  if (errno === 1451 || errno === 1452) match = /CONSTRAINT `([^`]+)`/.exec(message);
  if (errno === 4025) match = /CONSTRAINT `([^`]+)`/.exec(message);
  if (errno === 3819) match = /Check constraint '([^']+)'/.exec(message);
  return match?.[1];
}
