import Database from "better-sqlite3";
import type {
  Driver,
  DriverConfig,
  DriverConnection,
  DriverQuery,
  DriverResult,
  DriverRowStream,
  DriverStreamOptions,
} from "tempest-db-js/dialect";
import { StreamOpenError, ValidationError } from "tempest-db-js/dialect";
import { classifySqliteError } from "./classify-sqlite-error.js";
import { SqliteStatements, setModes } from "./sqlite-statements.js";
import { sqliteRowStream } from "./sqlite-stream.js";
import type { SqliteTarget } from "./sqlite-url.js";
import { parseSqliteUrl } from "./sqlite-url.js";

/** Options accepted through `createEngine(url, { driver: { ... } })`. */
export interface SqliteDriverOptions {
  /** How long a statement waits for another connection's write lock before SQLITE_BUSY (default 5000). */
  readonly busyTimeoutMs?: number;
  /** Prepared statements kept per engine, least recently used dropped first (default 256). */
  readonly statementCacheSize?: number;
}

/** Hands the one connection to one holder at a time, in the order they asked. */
class FifoMutex {
  #locked = false;
  readonly #waiters: (() => void)[] = [];

  /** Takes the lock if it is free, without waiting for a tick. */
  tryLock(): boolean {
    if (this.#locked) return false;
    this.#locked = true;
    return true;
  }

  lock(): Promise<void> {
    if (!this.#locked) {
      this.#locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Passes the lock straight to the next waiter, so nobody can cut in between. */
  unlock(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#locked = false;
  }
}

/** The engine's single connection, lent to one holder until `release()`. */
class SqliteConnection implements DriverConnection {
  readonly #run: (query: DriverQuery) => DriverResult;
  readonly #release: (broken: boolean) => void;
  readonly #stream: (query: DriverQuery, options: DriverStreamOptions) => DriverRowStream;
  #released = false;

  constructor(
    run: (query: DriverQuery) => DriverResult,
    release: (broken: boolean) => void,
    stream: (query: DriverQuery, options: DriverStreamOptions) => DriverRowStream,
  ) {
    this.#run = run;
    this.#release = release;
    this.#stream = stream;
  }

  stream(query: DriverQuery, options: DriverStreamOptions): DriverRowStream {
    if (this.#released) throw new Error("This SQLite connection was already released");
    return this.#stream(query, options);
  }

  /** Runs the statement at once; a failure is thrown. */
  queryNow(query: DriverQuery): DriverResult {
    if (this.#released) throw new Error("This SQLite connection was already released");
    return this.#run(query);
  }

  /** better-sqlite3 runs synchronously: the result is wrapped as it is, without an async frame. */
  query(query: DriverQuery): Promise<DriverResult> {
    if (this.#released) return Promise.reject(new Error("This SQLite connection was already released"));
    try {
      return Promise.resolve(this.#run(query));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  release(broken?: boolean): void {
    // A second release would hand the mutex to a second holder while the first still runs.
    if (this.#released) return;
    this.#released = true;
    this.#release(broken === true);
  }
}

/**
 * One better-sqlite3 Database per engine, lent out through a FIFO mutex: SQLite allows one open
 * transaction per connection, so a transaction holds the connection from BEGIN to COMMIT and every
 * other statement of this engine waits behind it. Consequently, inside `engine.transaction(fn)`
 * run statements on `tx`: a statement on the engine itself would wait for the transaction that is
 * waiting for it.
 *
 * better-sqlite3 is synchronous: while another process holds the write lock, a statement here
 * blocks the event loop for up to `busyTimeoutMs` before failing with SQLITE_BUSY (a retryable
 * `lock-timeout`). Use one engine per database file per process; two engines on one file in one
 * process contend through the file lock like two processes do, and the blocked one blocks both.
 */
export class SqliteDriver implements Driver {
  readonly target: SqliteTarget;
  readonly busyTimeoutMs: number;
  /** One connection: core refuses a statement on the engine inside its own transaction instead of hanging. */
  readonly maxConnections = 1;
  readonly #mutex = new FifoMutex();
  readonly #statements: SqliteStatements;
  /** Handed to every connection, made once rather than per acquire. */
  readonly #runQuery = (query: DriverQuery) => this.#run(query);
  readonly #streamQuery = (query: DriverQuery, options: DriverStreamOptions) => this.#stream(query, options);
  /**
   * The statement of the stream reading on the connection, if one is: better-sqlite3 runs nothing else
   * on a connection while an iterate() is open ("This database connection is busy").
   */
  #streaming: { readonly sql: string; readonly inTransaction: boolean } | undefined;
  readonly #releaseConnection = (broken: boolean) => {
    if (broken) this.#discard();
    this.#mutex.unlock();
  };
  #db: Database.Database | undefined;
  #closing: Promise<void> | undefined;

  constructor(config: DriverConfig) {
    this.target = parseSqliteUrl(config.url);
    const options = readOptions(config.options);
    this.busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    this.#statements = new SqliteStatements(options.statementCacheSize ?? 256);
  }

  /** Prepared statements kept, least recently used dropped first. */
  get statementCacheSize(): number {
    return this.#statements.capacity;
  }

  /** Prepared statements currently cached (for diagnostics and tests). */
  get preparedStatementCount(): number {
    return this.#statements.size;
  }

  acquire(): Promise<DriverConnection> {
    if (this.#closing) return Promise.reject(new Error("The SQLite database is closed"));
    // A stream outside a transaction holds the one connection until its loop ends: waiting for it
    // from inside that loop would never end, so the statement is refused instead.
    if (this.#streaming?.inTransaction === false) return Promise.reject(this.#busy());
    // Uncontended (the usual case): no promise to wait on before handing the connection out.
    if (this.#mutex.tryLock()) return this.#lend();
    return this.#mutex.lock().then(() => this.#lend());
  }

  /**
   * The connection lent at once when nobody holds it or waits for it (the mutex is FIFO); undefined
   * otherwise, or when it cannot be lent now (closing, streaming, failing to open): `acquire()` then
   * waits for it or reports why.
   */
  acquireNow(): DriverConnection | undefined {
    if (this.#closing || this.#streaming?.inTransaction === false || !this.#mutex.tryLock()) return undefined;
    try {
      this.#open();
    } catch {
      this.#mutex.unlock();
      return undefined;
    }
    return new SqliteConnection(this.#runQuery, this.#releaseConnection, this.#streamQuery);
  }

  /** Opens the database if needed and lends the connection; the caller holds the mutex. */
  #lend(): Promise<DriverConnection> {
    try {
      this.#open();
    } catch (error) {
      this.#mutex.unlock();
      return Promise.reject(error);
    }
    return Promise.resolve(new SqliteConnection(this.#runQuery, this.#releaseConnection, this.#streamQuery));
  }

  /**
   * Runs `query` at once when nobody holds the connection (nor waits for it: the mutex is FIFO),
   * without lending it. A connection-level failure discards the database like `release(true)`.
   */
  runNow(query: DriverQuery): DriverResult | undefined {
    if (this.#streaming?.inTransaction === false) throw this.#busy();
    if (this.#closing || !this.#mutex.tryLock()) return undefined;
    try {
      this.#open();
      return this.#run(query);
    } catch (error) {
      if (classifySqliteError(error).kind === "connection") this.#discard();
      throw error;
    } finally {
      this.#mutex.unlock();
    }
  }

  /** Waits for the current holder and everyone already queued, then closes the database. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#mutex.lock();
      try {
        this.#statements.clear();
        this.#db?.close();
        this.#db = undefined;
      } finally {
        this.#mutex.unlock();
      }
    })();
    return this.#closing;
  }

  #open(): Database.Database {
    if (this.#db) return this.#db;
    const db = openDatabase(this.target.filename, this.busyTimeoutMs);
    try {
      if (!this.target.memory) {
        // WAL lets readers run beside the one writer, also across processes. A file system that
        // cannot do WAL keeps its rollback journal: BEGIN IMMEDIATE still serializes the writers.
        db.pragma("journal_mode = WAL");
        // Durable across application crashes; only a power loss can drop the last commits.
        db.pragma("synchronous = NORMAL");
      }
      db.pragma("foreign_keys = ON");
      // LIKE is case-sensitive, as on PostgreSQL and MySQL (SQLite's own LIKE folds A-Z); ilike folds with LOWER.
      db.pragma("case_sensitive_like = ON");
    } catch (error) {
      db.close();
      throw error;
    }
    this.#db = db;
    return db;
  }

  /**
   * A connection core gave up on (a failed ROLLBACK, a dropped file). A file database is closed and
   * reopened on the next acquire, which also ends any transaction left open; an in-memory database
   * would lose its contents that way, so it is only rolled back.
   */
  #discard(): void {
    this.#streaming = undefined;
    const db = this.#db;
    if (!db) return;
    if (this.target.memory) {
      if (db.inTransaction) {
        try {
          db.exec("ROLLBACK");
        } catch {
          // Nothing more can be done for a private in-memory database.
        }
      }
      return;
    }
    this.#statements.clear();
    this.#db = undefined;
    try {
      db.close();
    } catch {
      // Already unusable; the next acquire opens a fresh connection.
    }
  }

  #busy(): StreamOpenError {
    return new StreamOpenError("SQLite", this.#streaming?.sql ?? "");
  }

  /** A stream on the lent connection; its statement starts on the first batch (see sqliteRowStream). */
  #stream(query: DriverQuery, options: DriverStreamOptions): DriverRowStream {
    const start = (): Iterator<unknown> => {
      if (this.#streaming) throw this.#busy();
      const db = this.#open();
      const entry = this.#statements.get(db, query.sql);
      if (!entry) throw new RangeError("SQLite streams one statement at a time: stream() takes a single select");
      setModes(entry, query.wantsBigInt === true, query.rowMode === "array");
      const rows = entry.statement.iterate(query.params as unknown[]);
      this.#streaming = { sql: query.sql, inTransaction: options.inTransaction };
      return rows;
    };
    const end = () => {
      this.#streaming = undefined;
    };
    return sqliteRowStream(start, end, options.batchSize, !options.inTransaction);
  }

  #run(query: DriverQuery): DriverResult {
    if (this.#streaming) throw this.#busy();
    const db = this.#open();
    const entry = this.#statements.get(db, query.sql);
    if (!entry) return this.#script(db, query);
    const { statement } = entry;
    const params = query.params as unknown[];
    const spread = spreadable(params);
    setModes(entry, query.wantsBigInt === true, query.rowMode === "array");
    if (entry.reader) {
      const rows = spread ? statement.all(...params) : statement.all(params);
      return { rows, rowsAffected: rows.length };
    }
    return { rows: [], rowsAffected: (spread ? statement.run(...params) : statement.run(params)).changes };
  }

  /**
   * A raw script of several statements (a migration, a schema dump) runs through `db.exec`, which
   * cannot bind parameters or return rows. rowsAffected is the script's total of changed rows.
   */
  #script(db: Database.Database, query: DriverQuery): DriverResult {
    if (query.params.length > 0) {
      throw new RangeError("SQLite runs several statements in one execute() only without parameters: execute them one by one");
    }
    const before = this.#totalChanges(db);
    db.exec(query.sql);
    return { rows: [], rowsAffected: this.#totalChanges(db) - before };
  }

  #totalChanges(db: Database.Database): number {
    const entry = this.#statements.get(db, "SELECT total_changes()");
    if (!entry) return 0;
    if (entry.mode !== 2) {
      entry.statement.safeIntegers(false).raw(true);
      entry.mode = 2;
    }
    return (entry.statement.get() as [number] | undefined)?.[0] ?? 0;
  }
}

/**
 * Parameters passed as arguments of their own rather than in one array (see spreadable): up to a
 * queue settlement of a 50-message batch and its fence (53), which binds ~1.5 µs faster spread.
 */
const MAX_SPREAD = 64;

/**
 * Whether a statement's parameters can be passed as separate arguments: better-sqlite3 binds those
 * faster than the items of one array argument (which it reads one by one through the V8 API), and
 * binds them the same way unless one is an array (spliced in) or another object (named parameters):
 * such a list, and a long one (hundreds of arguments on the stack), goes as one array, as it always did.
 */
function spreadable(params: readonly unknown[]): boolean {
  if (params.length > MAX_SPREAD) return false;
  for (let i = 0; i < params.length; i++) {
    const value = params[i];
    if (typeof value === "object" && value !== null && !ArrayBuffer.isView(value)) return false;
  }
  return true;
}

/** better-sqlite3 checks the directory itself and throws a code-less TypeError: give it SQLite's code and the path. */
function openDatabase(filename: string, busyTimeoutMs: number): Database.Database {
  try {
    return new Database(filename, { timeout: busyTimeoutMs });
  } catch (error) {
    if (error instanceof TypeError && /^Cannot open database/.test(error.message)) {
      throw Object.assign(new Error(`${error.message}: ${filename}`, { cause: error }), { code: "SQLITE_CANTOPEN" });
    }
    throw error;
  }
}

const OPTIONS: ReadonlySet<string> = new Set(["busyTimeoutMs", "statementCacheSize"]);

export function readOptions(options: Readonly<Record<string, unknown>>): SqliteDriverOptions {
  for (const key of Object.keys(options)) {
    if (!OPTIONS.has(key)) {
      throw new ValidationError(`Unknown SQLite driver option "${key}"; the options are ${[...OPTIONS].join(", ")}`);
    }
  }
  const { busyTimeoutMs, statementCacheSize } = options;
  if (busyTimeoutMs !== undefined && !(Number.isSafeInteger(busyTimeoutMs) && (busyTimeoutMs as number) >= 0)) {
    throw new ValidationError(`busyTimeoutMs must be a non-negative integer of milliseconds, got ${String(busyTimeoutMs)}`);
  }
  if (statementCacheSize !== undefined && !(Number.isSafeInteger(statementCacheSize) && (statementCacheSize as number) >= 1)) {
    throw new ValidationError(`statementCacheSize must be a positive integer, got ${String(statementCacheSize)}`);
  }
  return { busyTimeoutMs: busyTimeoutMs as number | undefined, statementCacheSize: statementCacheSize as number | undefined };
}
