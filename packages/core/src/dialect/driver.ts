/** A statement handed to a driver: SQL text with placeholders, and the encoded parameters. */
export interface DriverQuery {
  readonly sql: string;
  readonly params: readonly unknown[];
  /** `array`: rows as value arrays in column order (shaped queries). `object`: rows keyed by column name. */
  readonly rowMode: "array" | "object";
  /** The query holds 64-bit integer columns that must not be rounded through `number`. */
  readonly wantsBigInt?: boolean;
}

export interface DriverResult {
  readonly rows: readonly unknown[];
  readonly rowsAffected: number;
  /**
   * The server's command tag, where the protocol has one (PostgreSQL: `INSERT`, `COMMIT`, ...).
   * The engine reads it after COMMIT: a server that answers `ROLLBACK` rolled the transaction back.
   */
  readonly command?: string | undefined;
}

/** How core asks a connection for a stream (see DriverConnection.stream). */
export interface DriverStreamOptions {
  /** Rows per batch: the most a driver holds in memory for one stream, give or take its socket buffers. */
  readonly batchSize: number;
  /** The connection is inside a transaction core opened (a driver that needs one for a cursor opens its own otherwise). */
  readonly inTransaction: boolean;
}

/**
 * The rows of one statement, read a batch at a time on the connection that opened it. Core calls
 * next() only after the previous call settled, and close() exactly once: after the last batch, after
 * a failed next(), or when the consumer stops early.
 */
export interface DriverRowStream {
  /** The next batch (at most batchSize rows, in the query's rowMode); undefined once every row was read. */
  next(): Promise<readonly unknown[] | undefined>;
  /**
   * Ends the stream and frees what it holds on the server. Resolves to `lost` when the driver had to
   * close the connection to stop it (mysql2 cannot leave a result set half-read): whatever the
   * connection held, an open transaction included, is gone.
   */
  close(): Promise<"closed" | "lost">;
}

/** One connection, exclusively held until released. */
export interface DriverConnection {
  query(query: DriverQuery): Promise<DriverResult>;
  /**
   * Synchronous drivers (SQLite) may run a statement at once and return its result, throwing on
   * failure: a transaction with nothing else in flight uses it, so a statement costs no promise.
   */
  queryNow?(query: DriverQuery): DriverResult;
  /**
   * Streams a select's rows with bounded memory (contract 3; optional: without it, stream() throws
   * UnsupportedFeatureError). While the stream is open the driver may refuse other statements on the
   * connection with a StreamOpenError (SQLite, mysql2: one result set at a time).
   */
  stream?(query: DriverQuery, options: DriverStreamOptions): DriverRowStream;
  /**
   * Cancel the statement running on this connection, from outside it (PostgreSQL pg_cancel_backend,
   * MySQL KILL QUERY); the statement then fails. Used when a transaction times out mid-statement.
   */
  cancel?(): Promise<void>;
  /** Return the connection to the pool; `broken` discards it instead. */
  release(broken?: boolean): void | Promise<void>;
}

export interface DriverConfig {
  readonly url: string;
  /** Connections the pool may open. */
  readonly poolSize: number;
  /** Server-side statement timeout, where the dialect supports one. */
  readonly statementTimeoutMs: number | undefined;
  /**
   * The engine rolls back a transaction idle this long (0: never). A driver whose server has its own
   * guard sets it a little longer, as a backstop for a client that can no longer act (PostgreSQL
   * idle_in_transaction_session_timeout, MariaDB idle_transaction_timeout).
   */
  readonly idleInTransactionTimeoutMs?: number;
  /** Dialect-specific options passed through from `createEngine(url, { driver })`. */
  readonly options: Readonly<Record<string, unknown>>;
}

/** A pool over a real driver. */
export interface Driver {
  /** How many connections the driver can lend at once, when it is fixed (SQLite: 1). */
  readonly maxConnections?: number;
  /**
   * Synchronous drivers (SQLite) may run a statement at once when their connection is idle, without
   * lending it: no acquire, no release, no promise in between. Returns undefined when the connection
   * is busy, and the statement takes the usual acquire path. A failure that leaves the connection
   * unusable is the driver's to handle, as `release(true)` would.
   */
  runNow?(query: DriverQuery): DriverResult | undefined;
  /**
   * Synchronous drivers (SQLite) may lend their connection at once when nobody holds it or waits for
   * it: a transaction then begins without a promise in between. Returns undefined otherwise (or on any
   * trouble, which `acquire()` then reports), and the caller takes the usual `acquire()` path.
   */
  acquireNow?(): DriverConnection | undefined;
  acquire(): Promise<DriverConnection>;
  close(): Promise<void>;
  /**
   * Subscribe to a notification channel (dialects with `listenNotify`). Resolves once listening;
   * the returned function unsubscribes.
   */
  listen?(channel: string, onMessage: (payload: string) => void, onError: (error: unknown) => void): Promise<() => Promise<void>>;
}
