/**
 * Every error the library throws descends from TempestError. Each subclass has a stable `name` and
 * `code`, and `static isInstance` checks the code rather than the prototype so that errors survive
 * two copies of the package in one process.
 */
export class TempestError extends Error {
  static readonly code: string = "TEMPEST_ERROR";
  readonly code: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = (new.target as typeof TempestError).code;
    this.name = new.target.name;
  }

  static isInstance<T extends TempestError>(
    this: (abstract new (...args: any[]) => T) & { readonly code: string },
    value: unknown,
  ): value is T {
    if (!(value instanceof Error)) return false;
    const code = (value as { code?: unknown }).code;
    if (code === this.code) return true;
    // A subclass instance is also an instance of its parents.
    let proto = Object.getPrototypeOf(value);
    while (proto && proto !== Error.prototype) {
      if ((proto.constructor as { code?: string }).code === this.code) return true;
      proto = Object.getPrototypeOf(proto);
    }
    return false;
  }
}

/** Bad input found while a query is built, before any SQL exists. Nothing was sent. */
export class ValidationError extends TempestError {
  static override readonly code: string = "VALIDATION_ERROR";
}

/** The dialect cannot express what the query asks for. Thrown while compiling; nothing was sent. */
export class UnsupportedFeatureError extends TempestError {
  static override readonly code = "UNSUPPORTED_FEATURE";
  readonly dialect: string;
  readonly feature: string;
  readonly hint: string;

  /** `subject` names what lacks the feature when it is narrower than the dialect (e.g. "MariaDB 10.11"). */
  constructor(dialect: string, feature: string, hint: string, options: { subject?: string } = {}) {
    super(`${options.subject ?? dialect} does not support ${feature}. ${hint}`);
    this.dialect = dialect;
    this.feature = feature;
    this.hint = hint;
  }
}

/** `.one()` found no row. */
export class NoResultError extends TempestError {
  static override readonly code = "NO_RESULT";
}

/** `.one()` or `.oneOrNull()` found more than one row. */
export class TooManyResultsError extends TempestError {
  static override readonly code = "TOO_MANY_RESULTS";
  readonly count: number;
  constructor(count: number) {
    super(`Expected at most one row, got ${count}`);
    this.count = count;
  }
}

/** The dialect for a URL scheme is not installed or not registered. */
export class DialectNotFoundError extends TempestError {
  static override readonly code = "DIALECT_NOT_FOUND";
}

export type QueryErrorKind =
  | "deadlock"
  | "serialization"
  | "lock-timeout"
  | "lock-not-available"
  | "unique-violation"
  | "foreign-key-violation"
  | "not-null-violation"
  | "check-violation"
  | "connection"
  | "statement-timeout"
  | "syntax"
  | "authentication"
  | "pool-timeout"
  | "transaction-timeout"
  | "other";

const RETRYABLE: ReadonlySet<QueryErrorKind> = new Set(["deadlock", "serialization", "lock-timeout"]);
/** Kinds that are worth trying again later, though not as a deadlock retry of the transaction. */
const RETRY_LATER: ReadonlySet<QueryErrorKind> = new Set(["pool-timeout"]);

/**
 * The server or driver refused a statement. Carries the SQL that failed; parameters are redacted
 * unless the engine was created with `logParams: true`.
 */
export class QueryError extends TempestError {
  static override readonly code: string = "QUERY_ERROR";
  readonly sql: string;
  readonly params: readonly unknown[] | "[redacted]";
  readonly kind: QueryErrorKind;
  /** The driver's own error code (SQLSTATE, errno name, SQLITE_*). */
  readonly driverCode: string | undefined;
  readonly constraint: string | undefined;
  /** Set where the error itself says more than its kind (a connection refused before anything was sent). */
  readonly #retryable: boolean | undefined;

  constructor(args: {
    message: string;
    sql: string;
    params: readonly unknown[] | "[redacted]";
    kind: QueryErrorKind;
    driverCode?: string | undefined;
    constraint?: string | undefined;
    /** Overrides the kind's answer to `retryable`. */
    retryable?: boolean | undefined;
    cause: unknown;
  }) {
    super(`${args.message}\n  ${sqlInMessage(args.sql)}`, { cause: args.cause });
    this.sql = args.sql;
    this.params = args.params;
    this.kind = args.kind;
    this.driverCode = args.driverCode;
    this.constraint = args.constraint;
    this.#retryable = args.retryable;
  }

  /**
   * True when trying again may succeed: at once for a deadlock, serialization failure or lock-wait
   * timeout (what `retryOnDeadlock` retries); after a pause for a pool timeout or a connection that
   * could not be opened (the server restarting). See the error kinds table in docs/api.md.
   */
  get retryable(): boolean {
    return this.#retryable ?? (RETRYABLE.has(this.kind) || RETRY_LATER.has(this.kind));
  }

  /** True when the statement may or may not have taken effect (a COMMIT whose answer never came). */
  get outcomeUnknown(): boolean {
    return false;
  }
}

/** A deadlock, serialization failure or lock-wait timeout: retry the whole transaction. */
export class RetryableTransactionError extends QueryError {
  static override readonly code = "RETRYABLE_TRANSACTION";
}

/** A unique, foreign-key, not-null or check constraint refused the row. */
export class ConstraintViolationError extends QueryError {
  static override readonly code = "CONSTRAINT_VIOLATION";
}

/** The connection dropped or could not be opened. The pool discards the connection. */
export class ConnectionError extends QueryError {
  static override readonly code: string = "CONNECTION_ERROR";
}

/**
 * COMMIT was sent and the connection dropped before the server answered: the transaction may have
 * committed or not. Never retryable, and `retryOnDeadlock` never runs the callback again after it:
 * check the database (for example by an idempotency key) before doing the work again.
 */
export class CommitOutcomeUnknownError extends ConnectionError {
  static override readonly code = "COMMIT_OUTCOME_UNKNOWN";

  override get retryable(): boolean {
    return false;
  }

  override get outcomeUnknown(): boolean {
    return true;
  }
}

/**
 * A statement failed inside the transaction (outside any nested `transaction()`), and the callback
 * carried on: the transaction was rolled back instead of committed. Also the refusal of a statement
 * issued after that failure, which is not sent. `cause` is the statement's own error.
 */
export class TransactionFailedError extends TempestError {
  static override readonly code: string = "TRANSACTION_FAILED";
  /** The error of the statement that failed the transaction. */
  declare readonly cause: unknown;

  constructor(message: string, failure: unknown) {
    super(message, { cause: failure });
  }

  /** Running the whole transaction again may succeed: the statement that failed it was a deadlock or the like. */
  get retryable(): boolean {
    return QueryError.isInstance(this.cause) && this.cause.retryable;
  }
}

/** A statement was issued on a transaction handle after its callback had returned; nothing was sent. */
export class TransactionFinishedError extends TempestError {
  static override readonly code = "TRANSACTION_FINISHED";
}

/**
 * A statement was issued on a connection while a stream was still reading rows on it, where the driver
 * reads one result set at a time (SQLite, MySQL): nothing was sent. `streamSql` is the open stream's
 * statement. Finish the stream (or break out of it) first, or run the statement elsewhere.
 */
export class StreamOpenError extends ValidationError {
  static override readonly code = "STREAM_OPEN";
  readonly streamSql: string;

  constructor(dialect: string, streamSql: string) {
    super(
      `${dialect}: a stream is still reading rows on this connection (${streamSql}), and ${dialect} reads one result set at a time: this statement was not sent. Finish the stream or break out of it first, or run the statement on another connection.`,
    );
    this.streamSql = streamSql;
  }
}

/**
 * A stream on this transaction was left before its last row, and the driver could stop it only by
 * closing the connection (mysql2 cannot leave a result set half-read): the server rolled the
 * transaction back. Statements issued on it afterwards are refused with this error, and the
 * transaction rejects with it. Read streams to the end inside a transaction, or stream outside one.
 */
export class StreamEndedTransactionError extends TransactionFailedError {
  static override readonly code = "STREAM_ENDED_TRANSACTION";
  readonly streamSql: string;

  constructor(dialect: string, streamSql: string) {
    super(
      `${dialect}: a stream on this transaction was left before its last row (break, return or throw in the loop, or its iterator dropped and collected), and ${dialect}'s driver can stop a result set only by closing its connection: the transaction was rolled back by the server, and nothing issued on it from now on is sent.\n  stream: ${streamSql}`,
      undefined,
    );
    this.streamSql = streamSql;
  }
}

/** The user or password was refused, or the role does not exist. Not retryable: fix the configuration. */
export class AuthenticationError extends QueryError {
  static override readonly code = "AUTHENTICATION_FAILED";
}

/** No pooled connection became free within `acquireTimeoutMs`; nothing was sent. Retryable after a pause. */
export class PoolTimeoutError extends QueryError {
  static override readonly code = "POOL_TIMEOUT";
}

/**
 * The transaction ran past `transactionTimeoutMs`, or sat idle past `idleInTransactionTimeoutMs` (or the
 * server's own guard ended it): it was rolled back, and statements issued on it afterwards are refused
 * with this error before anything is sent.
 */
export class TransactionTimeoutError extends QueryError {
  static override readonly code = "TRANSACTION_TIMEOUT";
}

export function queryErrorClass(kind: QueryErrorKind): typeof QueryError {
  if (RETRYABLE.has(kind)) return RetryableTransactionError;
  if (kind.endsWith("-violation")) return ConstraintViolationError;
  if (kind === "connection") return ConnectionError;
  if (kind === "authentication") return AuthenticationError;
  if (kind === "pool-timeout") return PoolTimeoutError;
  if (kind === "transaction-timeout") return TransactionTimeoutError;
  return QueryError;
}

/** The most of a statement's SQL an error message repeats; the whole text stays in `error.sql`. */
export const MAX_SQL_IN_MESSAGE = 500;

/**
 * The statement as an error message shows it: whole when short, else its kind and table first, its
 * length, and its first MAX_SQL_IN_MESSAGE characters (a 120-row insert is 11 KB of placeholders).
 */
function sqlInMessage(sql: string): string {
  if (sql.length <= MAX_SQL_IN_MESSAGE) return `sql: ${sql}`;
  const kind = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? "statement";
  const table = /\b(?:INTO|UPDATE|FROM|TABLE)\s+("(?:[^"]|"")+"|`(?:[^`]|``)+`|[\w.]+)/i.exec(sql)?.[1];
  return `sql (${kind}${table ? ` ${table}` : ""}, ${sql.length} characters, the first ${MAX_SQL_IN_MESSAGE} shown): ${sql.slice(0, MAX_SQL_IN_MESSAGE)}…`;
}
