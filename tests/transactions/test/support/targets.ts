import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mysqlDialect from "@tempest-db-js/dialect-mysql";
import postgresDialect from "@tempest-db-js/dialect-postgres";
import sqliteDialect from "@tempest-db-js/dialect-sqlite";
import type { Dialect, Driver, DriverConnection, DriverQuery, Engine, EngineOptions, QueryEvent } from "tempest-db-js";
import { column, createEngine, Model, select } from "tempest-db-js";

export const PG_URL = process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
export const MYSQL_URL = process.env.TEMPEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";

export class Entry extends Model {
  static tablename = "contract_entries";
  id = column.integer().primaryKey();
  value = column.integer().notNull();
}

/** What the real driver saw: the most statements ever in flight at once on one connection. */
export interface Traffic {
  maxInFlight: number;
}

/**
 * The target's own dialect with its real driver, observed: every connection counts the statements
 * it has in flight. `hide` turns the failure of a statement whose SQL contains it into an empty
 * result, as a driver that loses an error would (used to show that PostgreSQL's COMMIT tag is read).
 */
function observed(dialect: Dialect, traffic: Traffic, hide: string | undefined): Dialect {
  return {
    ...dialect,
    createDriver(config) {
      const driver: Driver = dialect.createDriver(config);
      const watch = (connection: DriverConnection): DriverConnection => {
        let inFlight = 0;
        return {
          query(query: DriverQuery) {
            inFlight++;
            traffic.maxInFlight = Math.max(traffic.maxInFlight, inFlight);
            let pending = connection.query(query);
            if (hide !== undefined && query.sql.includes(hide)) pending = pending.catch(() => ({ rows: [], rowsAffected: 0 }));
            return pending.finally(() => inFlight--);
          },
          release: (broken) => connection.release(broken),
          ...(connection.cancel === undefined ? {} : { cancel: () => connection.cancel?.() ?? Promise.resolve() }),
        };
      };
      return {
        ...(driver.maxConnections === undefined ? {} : { maxConnections: driver.maxConnections }),
        // SQLite's synchronous path stays in use: execute() on the engine must run once through it too.
        ...(driver.runNow === undefined ? {} : { runNow: (query: DriverQuery) => driver.runNow?.(query) }),
        acquire: () => driver.acquire().then(watch),
        close: () => driver.close(),
      };
    },
  };
}

export interface Opened {
  readonly engine: Engine;
  /** Every statement the engine ran, in order of completion. */
  readonly sent: QueryEvent[];
  readonly traffic: Traffic;
  /** The database's URL, for a second engine on it (undefined for a private in-memory database). */
  readonly url: string | undefined;
  /** The rows of the entries table, by id. */
  rows(): Promise<{ id: number; value: number }[]>;
  close(): Promise<void>;
}

export interface Target {
  readonly label: string;
  /** The statement that reads the id of the connection it runs on, and the one that kills a connection by id. */
  readonly kill: { readonly ownId: string; readonly terminate: (id: unknown) => string } | undefined;
  /** PostgreSQL answers COMMIT of an aborted transaction with the tag ROLLBACK. */
  readonly commitTag: boolean;
  open(options?: EngineOptions & { hide?: string }): Promise<Opened>;
}

async function prepared(
  url: string,
  dialect: Dialect,
  options: EngineOptions & { hide?: string },
  cleanup: () => void = () => {},
): Promise<Opened> {
  const sent: QueryEvent[] = [];
  const traffic: Traffic = { maxInFlight: 0 };
  const { hide, ...engineOptions } = options;
  const engine = createEngine(url, {
    poolSize: 3,
    ...engineOptions,
    dialect: observed(dialect, traffic, hide),
    onQuery: (event) => sent.push(event),
  });
  await engine.dropAll([Entry]);
  await engine.createAll([Entry]);
  sent.length = 0;
  traffic.maxInFlight = 0;
  return {
    engine,
    sent,
    traffic,
    url: url === "sqlite::memory:" ? undefined : url,
    rows: () => engine.execute(select(Entry).orderBy("id")).all(),
    async close() {
      await engine.dropAll([Entry]).catch(() => undefined);
      await engine.close();
      cleanup();
    },
  };
}

export const postgres: Target = {
  label: "PostgreSQL",
  kill: { ownId: "SELECT pg_backend_pid() AS id", terminate: (id) => `SELECT pg_terminate_backend(${Number(id)})` },
  commitTag: true,
  open: (options = {}) => prepared(PG_URL, postgresDialect, options),
};

export const mariadb: Target = {
  label: "MariaDB",
  kill: { ownId: "SELECT CONNECTION_ID() AS id", terminate: (id) => `KILL ${Number(id)}` },
  commitTag: false,
  open: (options = {}) => prepared(MYSQL_URL, mysqlDialect, options),
};

export const sqliteFile: Target = {
  label: "SQLite file",
  kill: undefined,
  commitTag: false,
  open(options = {}) {
    const dir = mkdtempSync(join(tmpdir(), "tempest-contract-"));
    return prepared(`sqlite://${join(dir, "contract.db")}`, sqliteDialect, options, () => rmSync(dir, { recursive: true, force: true }));
  },
};

export const sqliteMemory: Target = {
  label: "SQLite memory",
  kill: undefined,
  commitTag: false,
  open: (options = {}) => prepared("sqlite::memory:", sqliteDialect, options),
};

export const targets: readonly Target[] = [postgres, mariadb, sqliteFile, sqliteMemory];
