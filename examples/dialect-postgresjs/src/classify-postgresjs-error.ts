import type { ClassifiedError, QueryErrorKind } from "tempest-db-js/dialect";

/** SQLSTATE codes the engine needs to tell apart; everything else is "other". */
const SQLSTATE: Readonly<Record<string, QueryErrorKind>> = {
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
};

/** postgres.js's own codes for a socket that closed or never opened, plus Node's network errors. */
const CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EHOSTUNREACH",
]);

/**
 * postgres.js rejects with a PostgresError carrying the server's SQLSTATE in `code` and the
 * constraint in `constraint_name`, or with a plain Error whose `code` names a connection failure.
 */
export function classifyPostgresJsError(error: unknown): ClassifiedError {
  const e = error as { code?: unknown; message?: unknown; constraint_name?: unknown };
  const code = typeof e?.code === "string" ? e.code : undefined;
  const message = typeof e?.message === "string" ? e.message : String(error);
  let kind: QueryErrorKind = (code && SQLSTATE[code]) || "other";
  if (kind === "other" && code && (code.startsWith("08") || CONNECTION_CODES.has(code))) kind = "connection";
  const constraint = typeof e?.constraint_name === "string" ? e.constraint_name : undefined;
  return { kind, driverCode: code, constraint, message };
}
