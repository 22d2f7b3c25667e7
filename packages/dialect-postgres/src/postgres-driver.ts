import pg from "pg";
import type { Driver, DriverConfig, DriverConnection, DriverQuery, DriverResult } from "tempest-db-js";
import { postgresTypeParsers } from "./postgres-types.js";

class PostgresConnection implements DriverConnection {
  readonly #client: pg.PoolClient;

  constructor(client: pg.PoolClient) {
    this.#client = client;
  }

  /** pg's promise, mapped: no async frame of its own (one promise and tick fewer per statement). */
  query(query: DriverQuery): Promise<DriverResult> {
    const values = query.params as unknown[];
    try {
      const pending: Promise<pg.QueryResult | pg.QueryArrayResult> =
        query.rowMode === "array"
          ? this.#client.query({ text: query.sql, values, rowMode: "array" })
          : this.#client.query({ text: query.sql, values });
      return pending.then(toDriverResult);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  release(broken?: boolean): void {
    this.#client.release(broken === true);
  }
}

function toDriverResult(result: pg.QueryResult | pg.QueryArrayResult): DriverResult {
  // A multi-statement raw query yields one result per statement: report the last.
  const last = Array.isArray(result) ? (result[result.length - 1] as pg.QueryResult) : result;
  return { rows: last?.rows ?? [], rowsAffected: last?.rowCount ?? 0 };
}

const guarded = new WeakSet<pg.PoolClient>();

function lend(client: pg.PoolClient): DriverConnection {
  // A checked-out client whose backend dies emits 'error'; the failing query already reports it,
  // so the event only needs a listener (without one Node crashes the process).
  if (!guarded.has(client)) {
    guarded.add(client);
    client.on("error", () => {});
  }
  return new PostgresConnection(client);
}

/** A pg.Pool. Idle clients that die (server restart, pg_terminate_backend) are dropped, never thrown. */
export class PostgresDriver implements Driver {
  readonly #pool: pg.Pool;
  readonly #config: DriverConfig;

  constructor(config: DriverConfig) {
    this.#config = config;
    this.#pool = new pg.Pool({
      connectionString: config.url,
      max: config.poolSize,
      types: postgresTypeParsers,
      ...(config.statementTimeoutMs === undefined ? {} : { statement_timeout: config.statementTimeoutMs }),
      ...config.options,
    });
    this.#pool.on("error", () => {});
  }

  acquire(): Promise<DriverConnection> {
    try {
      return this.#pool.connect().then(lend);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  /** LISTEN on a dedicated connection outside the pool, so that it never holds a pooled one. */
  async listen(channel: string, onMessage: (payload: string) => void, onError: (error: unknown) => void): Promise<() => Promise<void>> {
    const client = new pg.Client({ connectionString: this.#config.url, ...this.#config.options });
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
