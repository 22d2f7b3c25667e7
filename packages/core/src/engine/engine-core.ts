import type { CompiledQuery } from "../compiler/compiled-query.js";
import type { SqlCompiler } from "../compiler/sql-compiler.js";
import type { DialectCapabilities } from "../dialect/capabilities.js";
import type { Dialect } from "../dialect/dialect.js";
import type { Driver, DriverConnection, DriverQuery, DriverResult } from "../dialect/driver.js";
import { redactUrl, urlSecrets } from "../dialect/registry.js";
import type { QueryError } from "../errors.js";
import { queryErrorClass, StreamOpenError } from "../errors.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import { DeadlineQueue } from "./deadline-queue.js";
import type { QueryEvent } from "./query-event.js";
import type { ExecutedQuery } from "./query-result.js";
import { REDACTED, redactedCopy, redactText, secretsOf } from "./redact-secrets.js";
import type { RowDecoder } from "./row-decoder.js";
import { rowDecoder } from "./row-decoder.js";

const CONNECT = { sql: "(connect)", params: [] } as const;

export interface EngineSettings {
  readonly url: string;
  readonly poolSize: number;
  readonly statementTimeoutMs: number | undefined;
  /** 0: wait for a pooled connection without limit. */
  readonly acquireTimeoutMs: number;
  /** 0: no idle guard. */
  readonly idleInTransactionTimeoutMs: number;
  /** 0: no limit on a transaction's duration. */
  readonly transactionTimeoutMs: number;
  /** How long close() waits for open work before cutting connections. */
  readonly closeTimeoutMs: number;
  readonly logParams: boolean;
  /** `operators: "helpers-only"`: statements with plain operator objects are refused (refusePlainOperators). */
  readonly helpersOnly: boolean;
  readonly slowQueryMs: number;
  readonly onQuery: ((event: QueryEvent) => void) | undefined;
  readonly driverOptions: Readonly<Record<string, unknown>>;
}

/**
 * The state one engine shares with its sessions and transactions: the dialect, the compiler for the
 * server's capabilities, the lazily opened pool, and the one path every statement takes.
 */
export class EngineCore {
  readonly dialect: Dialect;
  /** The settings as given, with the URL's password (and any password parameter) masked. */
  readonly settings: EngineSettings;
  /** The URL as given: private, so neither util.inspect nor JSON.stringify of an engine shows it. */
  readonly #url: string;
  /** The URL and its password: hidden from every error, whatever logParams says. */
  readonly #urlSecrets: readonly string[];
  compiler: SqlCompiler;
  /** An empty object standing for this engine in callers' caches (`Executor.engineKey`): it reveals nothing. */
  readonly key: object = Object.freeze(Object.create(null));
  #driver: Driver | undefined;
  #inspected: Promise<void> | undefined;
  /** ready() has resolved: statements may skip awaiting it. */
  #ready = false;
  #closed = false;
  /** Per result shape: does it hold a 64-bit integer column (driver must not round through number)? */
  readonly #wantsBigInt = new WeakMap<readonly ColumnMeta[], boolean>();
  /** The last result shape asked about, and its answers: a loop runs one statement again and again. */
  #lastColumns: readonly ColumnMeta[] | undefined;
  #lastHoldsBigInt: boolean | undefined;
  #lastDecoder: RowDecoder | undefined;
  /** The `acquireTimeoutMs` of acquires waiting for a connection, on one timer (made at the first acquire). */
  #acquireDeadlines: DeadlineQueue | undefined;

  constructor(dialect: Dialect, settings: EngineSettings) {
    this.dialect = dialect;
    this.#url = settings.url;
    this.#urlSecrets = urlSecrets(settings.url);
    this.settings = Object.freeze({ ...settings, url: redactUrl(settings.url) });
    this.compiler = dialect.createCompiler(dialect.capabilitiesFor(settings.url));
  }

  /** What util.inspect and JSON.stringify show of an engine, a session or a transaction: nothing secret. */
  describe(): { dialect: string; url: string; poolSize: number; logParams: boolean } {
    const { url, poolSize, logParams } = this.settings;
    return { dialect: this.dialect.name, url, poolSize, logParams };
  }

  toJSON(): object {
    return this.describe();
  }

  [Symbol.for("nodejs.util.inspect.custom")](): object {
    return this.describe();
  }

  get capabilities(): DialectCapabilities {
    return this.compiler.capabilities;
  }

  get driver(): Driver {
    if (this.#closed) throw new Error("This engine is closed");
    this.#driver ??= this.dialect.createDriver({
      url: this.#url,
      poolSize: this.settings.poolSize,
      statementTimeoutMs: this.settings.statementTimeoutMs,
      idleInTransactionTimeoutMs: this.settings.idleInTransactionTimeoutMs,
      options: this.settings.driverOptions,
    });
    return this.#driver;
  }

  /** Once per engine, before the first statement: let the dialect read the server's capabilities. */
  ready(): Promise<void> {
    const inspect = this.dialect.inspectServer?.bind(this.dialect);
    if (!inspect) {
      this.#ready = true;
      return Promise.resolve();
    }
    this.#inspected ??= (async () => {
      const connection = await this.acquire();
      try {
        const capabilities = await inspect(connection, this.compiler.capabilities);
        this.compiler = this.dialect.createCompiler(capabilities);
        this.#ready = true;
      } finally {
        await connection.release();
      }
    })().catch((error) => {
      this.#inspected = undefined;
      throw error;
    });
    return this.#inspected;
  }

  /** True once ready() has resolved. */
  get isReady(): boolean {
    return this.#ready;
  }

  /**
   * A connection from the driver; a failure arrives as a QueryError, and a wait past
   * `acquireTimeoutMs` as a PoolTimeoutError (a connection that arrives later goes straight back).
   */
  acquire(): Promise<DriverConnection> {
    let pending: Promise<DriverConnection>;
    try {
      pending = this.driver.acquire();
    } catch (error) {
      return Promise.reject(this.typedError(error, CONNECT));
    }
    const limit = this.settings.acquireTimeoutMs;
    if (limit === 0) {
      return pending.catch((error: unknown) => {
        throw this.typedError(error, CONNECT);
      });
    }
    this.#acquireDeadlines ??= new DeadlineQueue(limit);
    const deadlines = this.#acquireDeadlines;
    return new Promise((resolve, reject) => {
      let late = false;
      const deadline = deadlines.add(() => {
        late = true;
        reject(this.#poolTimeout(limit));
      });
      pending.then(
        (connection) => {
          if (!late) {
            deadlines.remove(deadline);
            resolve(connection);
          } else void Promise.resolve(connection.release(false)).catch(() => {});
        },
        (error: unknown) => {
          deadlines.remove(deadline);
          if (!late) reject(this.typedError(error, CONNECT));
        },
      );
    });
  }

  #poolTimeout(limit: number): QueryError {
    const ErrorClass = queryErrorClass("pool-timeout");
    return new ErrorClass({
      message: `${this.dialect.name}: no pooled connection became free within ${limit} ms (acquireTimeoutMs; poolSize ${this.settings.poolSize})`,
      sql: CONNECT.sql,
      params: [],
      kind: "pool-timeout",
      cause: undefined,
    });
  }

  /**
   * The driver's connection lent at once, when the driver is synchronous and the connection free (see
   * `Driver.acquireNow`); undefined otherwise, and the caller acquires it the usual way.
   */
  acquireNow(): DriverConnection | undefined {
    if (this.#closed) return undefined;
    return this.driver.acquireNow?.();
  }

  /** Transactions open on this engine, each with the function that ends it at once (close()). */
  readonly openTransactions = new Set<{ abort(reason: string): void; readonly settled: Promise<unknown> }>();

  /**
   * Runs a compiled statement outside any transaction at once, when the driver can (`runNow`) and its
   * connection is idle, and returns the result itself; undefined otherwise. The same timing, event,
   * error wrapping (thrown here) and decoding as run().
   */
  runNow<R>(compiled: CompiledQuery): ExecutedQuery<R> | undefined {
    const driver = this.driver;
    if (driver.runNow === undefined) return undefined;
    const started = this.settings.onQuery ? performance.now() : 0;
    let result: DriverResult | undefined;
    try {
      result = driver.runNow(this.driverQuery(compiled));
    } catch (error) {
      throw this.#failed(error, compiled, started, false);
    }
    return result === undefined ? undefined : this.#decoded<R>(result, compiled, started, false);
  }

  /**
   * Runs a compiled statement on a synchronous connection (`queryNow`) and returns its result; a
   * failure is thrown, wrapped. The same timing, event, error wrapping and decoding as run().
   */
  runSync<R>(connection: DriverConnection & Required<Pick<DriverConnection, "queryNow">>, compiled: CompiledQuery): ExecutedQuery<R> {
    const started = this.settings.onQuery ? performance.now() : 0;
    let result: DriverResult;
    try {
      result = connection.queryNow(this.driverQuery(compiled));
    } catch (error) {
      throw this.#failed(error, compiled, started, true);
    }
    return this.#decoded<R>(result, compiled, started, true);
  }

  driverQuery(compiled: CompiledQuery): DriverQuery {
    const { columns } = compiled;
    return {
      sql: compiled.sql,
      params: compiled.params,
      rowMode: columns ? "array" : "object",
      wantsBigInt: columns ? this.#holdsBigInt(columns) : false,
    };
  }

  /** Runs a compiled statement on a connection: timing, the query event, error wrapping, row decoding. */
  run<R>(connection: DriverConnection, compiled: CompiledQuery, inTransaction: boolean): Promise<ExecutedQuery<R>> {
    // Timing is only read by the query event.
    const started = this.settings.onQuery ? performance.now() : 0;
    let pending: Promise<DriverResult>;
    try {
      pending = connection.query(this.driverQuery(compiled));
    } catch (error) {
      return Promise.reject(this.#failed(error, compiled, started, inTransaction));
    }
    // Mapped rather than awaited in an async frame: one promise and tick fewer on every statement.
    return pending.then(
      (result) => this.#decoded<R>(result, compiled, started, inTransaction),
      (error: unknown) => {
        throw this.#failed(error, compiled, started, inTransaction);
      },
    );
  }

  /**
   * A transaction-control statement (BEGIN, COMMIT, SAVEPOINT...): no parameters, no rows to decode.
   * Resolves to the server's command tag, when the driver reports one.
   */
  control(connection: DriverConnection, sql: string): Promise<string | undefined> {
    const compiled: CompiledQuery = { sql, params: [], kind: "rawStatement", columns: undefined };
    const started = this.settings.onQuery ? performance.now() : 0;
    let pending: Promise<DriverResult>;
    try {
      pending = connection.query({ sql, params: [], rowMode: "object" });
    } catch (error) {
      return Promise.reject(this.#failed(error, compiled, started, true));
    }
    return pending.then(
      (result) => {
        if (this.settings.onQuery) this.emit(compiled, started, result.rowsAffected, undefined, true);
        return result.command;
      },
      (error: unknown) => {
        throw this.#failed(error, compiled, started, true);
      },
    );
  }

  /**
   * control() on a synchronous connection (`queryNow`): the statement runs at once and its command tag
   * is returned; a failure is thrown, wrapped. The same event and error wrapping as control().
   */
  controlNow(connection: DriverConnection & Required<Pick<DriverConnection, "queryNow">>, sql: string): string | undefined {
    const started = this.settings.onQuery ? performance.now() : 0;
    let result: DriverResult;
    try {
      result = connection.queryNow({ sql, params: [], rowMode: "object" });
    } catch (error) {
      throw this.#failed(error, { sql, params: [], kind: "rawStatement", columns: undefined }, started, true);
    }
    if (this.settings.onQuery)
      this.emit({ sql, params: [], kind: "rawStatement", columns: undefined }, started, result.rowsAffected, undefined, true);
    return result.command;
  }

  #failed(error: unknown, compiled: CompiledQuery, started: number, inTransaction: boolean): QueryError | StreamOpenError {
    const typed = this.typedError(error, compiled);
    // A statement refused before it was sent is no query to report.
    if (!StreamOpenError.isInstance(typed)) this.emit(compiled, started, 0, typed, inTransaction);
    return typed;
  }

  /** A driver's failure as a QueryError; a StreamOpenError (the driver refused before sending anything) as it is. */
  typedError(error: unknown, compiled: Pick<CompiledQuery, "sql" | "params">): QueryError | StreamOpenError {
    return StreamOpenError.isInstance(error) ? error : this.wrapError(error, compiled);
  }

  /** A driver's rows as the statement's result rows: the same decoding for execute() and stream(). */
  decodeRows(rows: readonly unknown[], compiled: CompiledQuery): unknown[] {
    const { columns } = compiled;
    if (!columns) return rows as unknown[];
    let decode = this.#lastDecoder;
    if (columns !== this.#lastColumns || decode === undefined) {
      decode = rowDecoder(this.dialect.codec, columns, compiled.nesting);
      this.#remember(columns);
      this.#lastDecoder = decode;
    }
    const decoded = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) decoded[i] = decode(rows[i] as unknown[]);
    return decoded;
  }

  #decoded<R>(result: DriverResult, compiled: CompiledQuery, started: number, inTransaction: boolean): ExecutedQuery<R> {
    const { rowsAffected } = result;
    const decoded = this.decodeRows(result.rows, compiled);
    if (this.settings.onQuery) this.emit(compiled, started, decoded.length || rowsAffected, undefined, inTransaction);
    return { rows: decoded as R[], rowsAffected };
  }

  #holdsBigInt(columns: readonly ColumnMeta[]): boolean {
    if (columns === this.#lastColumns && this.#lastHoldsBigInt !== undefined) return this.#lastHoldsBigInt;
    let holds = this.#wantsBigInt.get(columns);
    if (holds === undefined) {
      holds = columns.some((c) => c.kind === "bigint");
      if (Object.isFrozen(columns)) this.#wantsBigInt.set(columns, holds);
    }
    this.#remember(columns);
    this.#lastHoldsBigInt = holds;
    return holds;
  }

  /** Makes `columns` the last result shape; the answers kept for the previous one no longer apply. */
  #remember(columns: readonly ColumnMeta[]): void {
    if (columns === this.#lastColumns) return;
    this.#lastColumns = columns;
    this.#lastHoldsBigInt = undefined;
    this.#lastDecoder = undefined;
  }

  /**
   * The typed error for a driver's failure. Unless `logParams` is on, no bound value travels with it:
   * the message, and a copy of the driver's error that replaces it as the cause, have every bound
   * string and every value slot the servers write replaced (redactedCopy). The work happens here,
   * when a statement has failed, and costs nothing on the statements that succeed.
   */
  wrapError(error: unknown, compiled: Pick<CompiledQuery, "sql" | "params">): QueryError {
    const classified = this.dialect.classifyError(error);
    const ErrorClass = queryErrorClass(classified.kind);
    const logParams = this.settings.logParams;
    const secrets = logParams ? this.#urlSecrets : [...this.#urlSecrets, ...secretsOf(compiled.params)];
    return new ErrorClass({
      message: `${this.dialect.name}: ${redactText(classified.message, secrets, !logParams)}`,
      sql: compiled.sql,
      params: logParams ? compiled.params : REDACTED,
      kind: classified.kind,
      driverCode: classified.driverCode,
      constraint: classified.constraint,
      // A connection that could not be opened sent nothing: worth trying again in a moment.
      retryable: classified.retryable ?? (compiled === CONNECT && classified.kind === "connection" ? true : undefined),
      // With logParams the values stay (the slots are not replaced), the URL's password never does.
      cause: redactedCopy(error, secrets, undefined, !logParams),
    });
  }

  emit(compiled: CompiledQuery, started: number, rowCount: number, error: QueryError | undefined, inTransaction: boolean): void {
    const onQuery = this.settings.onQuery;
    if (!onQuery) return;
    const durationMs = performance.now() - started;
    try {
      onQuery({
        sql: compiled.sql,
        params: this.settings.logParams ? compiled.params : undefined,
        durationMs,
        rowCount,
        error,
        slow: durationMs >= this.settings.slowQueryMs,
        inTransaction,
      });
    } catch {
      // A logging hook must never break a query.
    }
  }

  /**
   * Gives open transactions up to `closeTimeoutMs` to finish, then ends those still open (rolled back,
   * their callbacks' later statements refused, a running statement cancelled) and closes the pool,
   * waiting for it no longer than the same bound: a stuck callback cannot keep close() waiting.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const driver = this.#driver;
    const bound = this.settings.closeTimeoutMs;
    const within = <T>(work: Promise<T>, ms: number): Promise<unknown> =>
      ms > 0 ? Promise.race([work, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]) : work;
    const settledAll = () => Promise.allSettled([...this.openTransactions].map((t) => t.settled));
    if (this.openTransactions.size > 0) await within(settledAll(), bound);
    if (this.openTransactions.size > 0) {
      for (const transaction of this.openTransactions) transaction.abort("the engine is closing");
      await within(settledAll(), bound);
    }
    this.#driver = undefined;
    const closing = driver?.close();
    if (closing)
      await within(
        closing.catch(() => {}),
        bound,
      );
  }
}
