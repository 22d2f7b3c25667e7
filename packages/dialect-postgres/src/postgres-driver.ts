import pg from "pg";
import type {
  Driver,
  DriverConfig,
  DriverConnection,
  DriverQuery,
  DriverResult,
  DriverRowStream,
  DriverStreamOptions,
} from "tempest-db-js/dialect";
import { UnsupportedFeatureError } from "tempest-db-js/dialect";
import { readOptions } from "./postgres-driver-options.js";
import { postgresRowStream } from "./postgres-stream.js";
import { postgresTypeParsers } from "./postgres-types.js";
import { isStalePlan, mayRetry, PreparedStatements } from "./prepared-statements.js";

class PostgresConnection implements DriverConnection {
  readonly #client: pg.PoolClient;
  readonly #prepared: PreparedStatements | undefined;

  readonly #cancelConfig: pg.ClientConfig | undefined;

  constructor(client: pg.PoolClient, prepared: PreparedStatements | undefined, cancelConfig: pg.ClientConfig | undefined) {
    this.#client = client;
    this.#prepared = prepared;
    this.#cancelConfig = cancelConfig;
  }

  /** pg's promise, mapped: no async frame of its own (one promise and tick fewer per statement). */
  query(query: DriverQuery): Promise<DriverResult> {
    const values = query.params as unknown[];
    try {
      // Statements without parameters (BEGIN, COMMIT, DDL) take the simple protocol: one message.
      const name = this.#prepared && values.length > 0 ? this.#prepared.nameFor(this.#client, query.sql) : undefined;
      const config: pg.QueryConfig = name === undefined ? { text: query.sql, values } : { name, text: query.sql, values };
      const pending: Promise<pg.QueryResult | pg.QueryArrayResult> =
        query.rowMode === "array" ? this.#client.query({ ...config, rowMode: "array" }) : this.#client.query(config);
      if (name === undefined) return pending.then(toDriverResult);
      return pending.then(toDriverResult, (error: unknown) => {
        if (!isStalePlan(error)) throw error;
        this.#prepared?.rename(query.sql);
        // Outside a transaction the failed statement changed nothing: run it once more, unnamed, so
        // the server reads the current column types. Its answer, or its error, is the statement's.
        if (!mayRetry(this.#client)) throw error;
        const unnamed: pg.QueryConfig = { text: query.sql, values };
        const retried = query.rowMode === "array" ? this.#client.query({ ...unnamed, rowMode: "array" }) : this.#client.query(unnamed);
        return retried.then(toDriverResult);
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A server-side cursor (see postgresRowStream); nothing is sent until the first batch is asked for. */
  stream(query: DriverQuery, options: DriverStreamOptions): DriverRowStream {
    return postgresRowStream(this.#client, query, options);
  }

  /** pg_cancel_backend from a connection of its own: the pool may have none to spare. */
  async cancel(): Promise<void> {
    const pid = (this.#client as unknown as { processID?: unknown }).processID;
    if (typeof pid !== "number" || this.#cancelConfig === undefined) throw new Error("no backend process id to cancel");
    const canceller = new pg.Client(this.#cancelConfig);
    canceller.on("error", () => {});
    try {
      await canceller.connect();
      await canceller.query("SELECT pg_cancel_backend($1)", [pid]);
    } finally {
      await canceller.end().catch(() => {});
    }
  }

  release(broken?: boolean): void {
    this.#client.release(broken === true);
  }
}

function toDriverResult(result: pg.QueryResult | pg.QueryArrayResult): DriverResult {
  // A multi-statement raw query yields one result per statement: report the last.
  const last = Array.isArray(result) ? (result[result.length - 1] as pg.QueryResult) : result;
  // The command tag matters after COMMIT: an aborted transaction answers it with ROLLBACK.
  return { rows: last?.rows ?? [], rowsAffected: last?.rowCount ?? 0, command: last?.command };
}

function lend(
  client: pg.PoolClient,
  prepared: PreparedStatements | undefined,
  cancelConfig: pg.ClientConfig | undefined,
): DriverConnection {
  return new PostgresConnection(client, prepared, cancelConfig);
}

/**
 * A checked-out client whose backend dies emits 'error'; the failing query already reports it, so
 * the event only needs a listener (without one Node crashes the process). pg-pool removes its own
 * idle listener when it hands a client out, and a backend killed right after its startup can send
 * its FATAL in the same packet as the ReadyForQuery that completes the connect: pg then emits
 * 'error' synchronously, before connect()'s promise reaches lend(). So the listener goes on in the
 * pool's 'connect' event, which fires for every new client before it is handed out.
 */
function guard(client: pg.PoolClient): void {
  client.on("error", () => {});
}

/** A pg.Pool. Idle clients that die (server restart, pg_terminate_backend) are dropped, never thrown. */
export class PostgresDriver implements Driver {
  readonly #pool: pg.Pool;
  readonly #config: DriverConfig;
  readonly #poolOptions: Readonly<Record<string, unknown>>;
  readonly #prepared: PreparedStatements | undefined;
  readonly #pooler: "transaction" | undefined;
  readonly #listenUrl: string | undefined;
  readonly #lend = (client: pg.PoolClient) => lend(client, this.#prepared, this.#cancelConfig);
  /** Undefined behind a pooler: its backend ids are not the server's, so a cancel could hit another session. */
  readonly #cancelConfig: pg.ClientConfig | undefined;

  constructor(config: DriverConfig) {
    this.#config = config;
    const { preparedStatements: _, statementCacheSize: __, pooler: ___, listenUrl: ____, ...poolOptions } = config.options;
    const options = readOptions(config.options);
    this.#poolOptions = poolOptions;
    this.#pooler = options.pooler;
    this.#listenUrl = options.listenUrl;
    const prepared = options.preparedStatements ?? options.pooler === undefined;
    // Behind a pooler a DEALLOCATE by name would reach whichever server connection is next: never evict.
    this.#prepared = prepared ? new PreparedStatements(options.statementCacheSize ?? 100, options.pooler === undefined) : undefined;
    this.#cancelConfig = options.pooler === undefined ? { connectionString: config.url, ...poolOptions } : undefined;
    this.#pool = new pg.Pool({
      connectionString: config.url,
      max: config.poolSize,
      types: postgresTypeParsers,
      ...(config.statementTimeoutMs === undefined ? {} : { statement_timeout: config.statementTimeoutMs }),
      ...poolOptions,
    });
    this.#pool.on("error", () => {});
    this.#pool.on("connect", guard);
  }

  acquire(): Promise<DriverConnection> {
    try {
      return this.#pool.connect().then(this.#lend);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  /** LISTEN on a dedicated connection outside the pool, so that it never holds a pooled one. */
  async listen(channel: string, onMessage: (payload: string) => void, onError: (error: unknown) => void): Promise<() => Promise<void>> {
    if (this.#pooler !== undefined && this.#listenUrl === undefined) {
      // Through a transaction-mode pooler the LISTEN would run on some server connection and be
      // forgotten with it: no error, no notification, ever. Refuse instead.
      throw new UnsupportedFeatureError(
        "PostgreSQL",
        "LISTEN through a pooler in transaction mode",
        "Notifications would never arrive. Give a direct connection for LISTEN with { driver: { listenUrl } }, or poll (work() does when told listen: false).",
      );
    }
    const client = new pg.Client({ connectionString: this.#listenUrl ?? this.#config.url, ...this.#poolOptions });
    client.on("error", onError);
    client.on("notification", (message) => {
      if (message.channel === channel) onMessage(message.payload ?? "");
    });
    await client.connect();
    await client.query(`LISTEN "${channel.replaceAll('"', '""')}"`);
    return async () => {
      await client.end().catch(() => {});
    };
  }
}
