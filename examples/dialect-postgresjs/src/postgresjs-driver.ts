import postgres from "postgres";
import type { Driver, DriverConfig, DriverConnection, DriverQuery, DriverResult } from "tempest-db-js/dialect";
import { postgresJsTypes } from "./postgresjs-types.js";

type Sql = postgres.Sql<Record<string, postgres.PostgresType>>;
type ReservedSql = postgres.ReservedSql<Record<string, postgres.PostgresType>>;
type Params = postgres.ParameterOrJSON<never>[];

/** One reserved postgres.js connection, held by a session or a transaction until released. */
class PostgresJsConnection implements DriverConnection {
  readonly #reserved: ReservedSql;

  constructor(reserved: ReservedSql) {
    this.#reserved = reserved;
  }

  async query(query: DriverQuery): Promise<DriverResult> {
    const params = query.params as Params;
    // Parameterized statements are prepared once per connection and reused; without parameters
    // postgres.js uses the simple protocol, which also runs multi-statement scripts.
    const pending = this.#reserved.unsafe(query.sql, params, { prepare: params.length > 0 });
    const result = query.rowMode === "array" ? await pending.values() : await pending;
    return { rows: result, rowsAffected: result.count ?? 0 };
  }

  async release(broken?: boolean): Promise<void> {
    // postgres.js cannot discard one connection of its pool. A dead socket is reconnected by the
    // driver itself; a live one is at least taken out of any transaction it was left in.
    if (broken) await this.#reserved.unsafe("ROLLBACK").catch(() => undefined);
    this.#reserved.release();
  }
}

/** postgres.js speaks `postgres://`; the dialect's own scheme is only for choosing the dialect. */
export function driverUrl(url: string): string {
  return url.replace(/^[a-z][a-z0-9+.-]*:/i, "postgres:");
}

/** A postgres.js pool behind the tempest-db-js driver contract. */
export class PostgresJsDriver implements Driver {
  readonly #sql: Sql;

  constructor(config: DriverConfig) {
    this.#sql = postgres(driverUrl(config.url), {
      max: config.poolSize,
      types: postgresJsTypes,
      // postgres.js prints server notices ("table does not exist, skipping") by default.
      onnotice: () => {},
      ...(config.statementTimeoutMs === undefined ? {} : { connection: { statement_timeout: config.statementTimeoutMs } }),
      ...config.options,
    }) as unknown as Sql;
  }

  async acquire(): Promise<DriverConnection> {
    return new PostgresJsConnection(await this.#sql.reserve());
  }

  async close(): Promise<void> {
    await this.#sql.end({ timeout: 5 });
  }

  /** postgres.js keeps one connection for all listeners and re-subscribes them after a reconnect. */
  async listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>> {
    const { unlisten } = await this.#sql.listen(channel, (payload) => onMessage(payload));
    return async () => {
      await unlisten();
    };
  }
}
