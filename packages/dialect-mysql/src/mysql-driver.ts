import type { PoolConnection as CorePoolConnection, QueryError as MysqlQueryError } from "mysql2";
import type { ExecuteValues, Pool, PoolOptions, ResultSetHeader } from "mysql2/promise";
import mysql from "mysql2/promise";
import type {
  Driver,
  DriverConfig,
  DriverConnection,
  DriverQuery,
  DriverResult,
  DriverRowStream,
  DriverStreamOptions,
} from "tempest-db-js/dialect";
import { StreamOpenError } from "tempest-db-js/dialect";
import { markNoWaitFailure, redactValues } from "./classify-mysql-error.js";
import type { MysqlServerVersion } from "./mysql-server-version.js";
import { parseServerVersion } from "./mysql-server-version.js";
import { mysqlRowStream } from "./mysql-stream.js";

const ER_LOCK_WAIT_TIMEOUT = 1205;
/**
 * Read once: `mysql.TypedParameter` is a getter that calls require() on every read, which cost more
 * than the rest of toWire together (a path resolution per integer parameter).
 */
const LONGLONG = mysql.TypedParameter.LONGLONG;
/** How much later than the engine's idle guard the server's fires. */
const SERVER_GUARD_MARGIN_MS = 5000;

type Outcome = unknown[] | ResultSetHeader;

/**
 * One statement on mysql2's callback API. Its promise wrapper captures a stack trace for every call
 * (an Error per statement); a failure here is wrapped by the engine with the SQL instead.
 *
 * Given an options object, mysql2 spreads it into a new one on every call, which costs about as much
 * as the rest of its send path (~10 µs a statement here); the SQL text alone takes its fast path,
 * with the pool's row format (objects, see MysqlDriver). Only rows wanted as arrays take the options.
 */
function run(conn: CorePoolConnection, query: DriverQuery): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const done = (error: MysqlQueryError | null, result: unknown) => (error ? reject(error) : resolve(result as Outcome));
    const { sql, params } = query;
    if (query.rowMode === "array") {
      const options = { sql, rowsAsArray: true };
      if (params.length > 0) conn.execute(options, params.map(toWire), done);
      else conn.query(options, done);
    } else if (params.length > 0) conn.execute(sql, params.map(toWire), done);
    else conn.query(sql, done);
  });
}

class MysqlConnection implements DriverConnection {
  readonly #conn: CorePoolConnection;
  readonly #url: string;
  /** The SQL of the stream reading on this connection: mysql2 runs one result set at a time. */
  #streaming: string | undefined;
  #destroyed = false;

  constructor(conn: CorePoolConnection, url: string) {
    this.#conn = conn;
    this.#url = url;
  }

  /**
   * With parameters: a server-side prepared statement, so values never become SQL text that could
   * end up in an error. Without: the text protocol, because MySQL cannot prepare every statement
   * (START TRANSACTION, SAVEPOINT, ...).
   */
  query(query: DriverQuery): Promise<DriverResult> {
    // mysql2 would queue the statement behind the stream, which waits for the loop that waits for it.
    if (this.#streaming !== undefined) return Promise.reject(new StreamOpenError("MySQL", this.#streaming));
    let pending: Promise<Outcome>;
    try {
      pending = run(this.#conn, query);
    } catch (error) {
      return Promise.reject(scrub(error));
    }
    return pending.then(toDriverResult, (error: unknown) => {
      if ((error as { errno?: unknown }).errno === ER_LOCK_WAIT_TIMEOUT && /\bNOWAIT\b/i.test(query.sql)) markNoWaitFailure(error);
      throw scrub(error);
    });
  }

  /** A text-protocol stream (see mysqlRowStream); its statement starts on the first batch. */
  stream(query: DriverQuery, options: DriverStreamOptions): DriverRowStream {
    return mysqlRowStream(this.#conn, query, options, {
      started: () => {
        if (this.#streaming !== undefined) throw new StreamOpenError("MySQL", this.#streaming);
        this.#streaming = query.sql;
      },
      ended: () => {
        this.#streaming = undefined;
      },
      failed: (error) => {
        // mysql2 copies the SQL it sent, values formatted in, to err.sql: put the placeholders back.
        if (error instanceof Error && "sql" in error) (error as { sql: unknown }).sql = query.sql;
        return scrub(error);
      },
    });
  }

  /** KILL QUERY from a connection of its own: the pool may have none to spare. */
  async cancel(): Promise<void> {
    const killer = await mysql.createConnection({ uri: this.#url });
    try {
      await killer.query(`KILL QUERY ${Number(this.#conn.threadId)}`);
    } finally {
      await killer.end().catch(() => {});
    }
  }

  release(broken?: boolean): void {
    if (this.#destroyed) return;
    // A stream stopped half-way destroyed the connection already (mysql2 has no other way).
    if (broken || this.#streaming !== undefined) {
      this.#destroyed = true;
      this.#conn.destroy();
    } else this.#conn.release();
  }
}

/** A mysql2 promise pool. Every new connection is put in UTC and strict mode before its first use. */
export class MysqlDriver implements Driver {
  readonly #pool: Pool;
  readonly #config: DriverConfig;
  /** Connections whose session has been set up (the pool hands the same ones out again). */
  readonly #prepared = new WeakSet<object>();
  #server: Promise<MysqlServerVersion | undefined> | undefined;

  constructor(config: DriverConfig) {
    this.#config = config;
    const options: PoolOptions = {
      uri: config.url,
      connectionLimit: config.poolSize,
      // Each distinct SQL text stays prepared per connection; bound the server-side count.
      maxPreparedStatements: 256,
      ...config.options,
      // Not overridable: the type decoding in mysql-types.ts depends on every one of them, and run()
      // on the row format.
      rowsAsArray: false,
      timezone: "Z",
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
      jsonStrings: true,
      typeCast: true,
      // A reset would drop the session settings made once per connection.
      resetOnRelease: false,
      multipleStatements: false,
    };
    this.#pool = mysql.createPool(options);
    // Idle connections that die are removed by the pool; the event must not become an uncaught error.
    this.#pool.on("connection", (conn) => conn.on("error", () => {}));
  }

  async acquire(): Promise<DriverConnection> {
    // The core pool's callback API: no stack trace captured per acquire (see run()).
    const conn = await new Promise<CorePoolConnection>((resolve, reject) => {
      this.#pool.pool.getConnection((error, connection) => (error ? reject(error) : resolve(connection)));
    });
    if (!this.#prepared.has(conn)) {
      try {
        await run(conn, { sql: await this.#sessionSql(conn), params: [], rowMode: "object" });
        // READ COMMITTED, PostgreSQL's default: an UPDATE that scans past a row another transaction
        // holds reads its committed version instead of waiting for it (semi-consistent read), and no
        // gap locks, which under REPEATABLE READ turn concurrent queue claims into deadlocks.
        // A transaction may still ask for another level.
        await run(conn, { sql: "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", params: [], rowMode: "object" });
      } catch (error) {
        conn.destroy();
        throw scrub(error);
      }
      this.#prepared.add(conn);
    }
    return new MysqlConnection(conn, this.#config.url);
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  /**
   * UTC, so that NOW()/CURRENT_TIMESTAMP and TIMESTAMP columns agree with the UTC `datetime(3)` values
   * this dialect writes. Strict mode, so that a bad value is an error and not a silent truncation.
   * No NO_BACKSLASH_ESCAPES, since DDL literals are written with backslash escapes.
   */
  async #sessionSql(conn: CorePoolConnection): Promise<string> {
    const settings = [
      "time_zone = '+00:00'",
      "sql_mode = CONCAT_WS(',', NULLIF(TRIM(BOTH ',' FROM REPLACE(CONCAT(',', @@SESSION.sql_mode, ','), ',NO_BACKSLASH_ESCAPES,', ',')), ''), 'STRICT_TRANS_TABLES')",
    ];
    const timeoutMs = this.#config.statementTimeoutMs;
    const idleMs = this.#config.idleInTransactionTimeoutMs ?? 0;
    if (timeoutMs !== undefined || idleMs > 0) {
      // A failed read is not kept: the next new connection asks again.
      this.#server ??= readServerVersion(conn).catch((error: unknown) => {
        this.#server = undefined;
        throw error;
      });
      const server = await this.#server;
      // MariaDB counts seconds and covers every statement; MySQL counts milliseconds and covers SELECT only.
      if (timeoutMs !== undefined)
        settings.push(
          server?.flavor === "mariadb" ? `max_statement_time = ${timeoutMs / 1000}` : `max_execution_time = ${Math.ceil(timeoutMs)}`,
        );
      // MariaDB's own idle-transaction guard, a little after the engine's: it ends a session whose client cannot act.
      if (idleMs > 0 && server?.flavor === "mariadb")
        settings.push(`idle_transaction_timeout = ${Math.ceil((idleMs + SERVER_GUARD_MARGIN_MS) / 1000)}`);
    }
    return `SET SESSION ${settings.join(", ")}`;
  }
}

async function readServerVersion(conn: CorePoolConnection): Promise<MysqlServerVersion | undefined> {
  const rows = await run(conn, { sql: "SELECT VERSION()", params: [], rowMode: "array" });
  const first = (rows as unknown[][])[0]?.[0];
  return typeof first === "string" ? parseServerVersion(first) : undefined;
}

function toDriverResult(result: Outcome): DriverResult {
  if (Array.isArray(result)) return { rows: result, rowsAffected: result.length };
  return { rows: [], rowsAffected: result.affectedRows ?? 0 };
}

/**
 * Integers as 64-bit integers: sent as DOUBLE (mysql2's default for numbers) a bigint would be
 * compared in floating point and 2^60 + 1 would equal 2^60.
 */
function toWire(value: unknown): ExecuteValues {
  if (value === undefined) return null;
  if (typeof value === "bigint") return LONGLONG(value);
  if (typeof value === "number" && Number.isSafeInteger(value)) return LONGLONG(value);
  return value as ExecuteValues;
}

/** The server quotes values in some messages (a duplicate key): remove them from the driver's error too. */
function scrub(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const redacted = redactValues(error.message);
  if (redacted !== error.message) {
    if (error.stack) error.stack = error.stack.replace(error.message, redacted);
    error.message = redacted;
  }
  const fields = error as unknown as Record<string, unknown>;
  if (typeof fields.sqlMessage === "string") fields.sqlMessage = redactValues(fields.sqlMessage);
  return error;
}
