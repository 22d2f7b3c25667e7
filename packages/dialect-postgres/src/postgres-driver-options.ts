import { ValidationError } from "tempest-db-js/dialect";

/** Options accepted through `createEngine(url, { driver: { ... } })`; any other key goes to `pg.Pool`. */
export interface PostgresDriverOptions {
  /**
   * Run repeated statements as named prepared statements (default true, false with `pooler`): the
   * server parses and plans them once per connection. Behind a pooler that tracks them (PgBouncer
   * 1.21+ with `max_prepared_statements` > 0) set it to true along with `pooler`; statements are then
   * never DEALLOCATEd by name (the pooler owns the server connections) — once `statementCacheSize`
   * are prepared, further texts run unnamed.
   */
  readonly preparedStatements?: boolean;
  /**
   * The connection goes through a pooler in transaction mode (PgBouncer `pool_mode = transaction`,
   * and the like), where each transaction may run on another server connection. Then named prepared
   * statements are off (unless `preparedStatements: true`), and `LISTEN` — which needs one server
   * connection for as long as it listens — is refused with an UnsupportedFeatureError unless
   * `listenUrl` gives a direct connection for it. NOTIFY works either way.
   */
  readonly pooler?: "transaction";
  /** A connection string that bypasses the pooler, used only for LISTEN (with `pooler`). */
  readonly listenUrl?: string;
  /** Prepared statements kept per connection, least recently used deallocated first (default 100). */
  readonly statementCacheSize?: number;
}

/** Checks the dialect's own keys; every other key is a `pg.Pool` option and is left alone. */
export function readOptions(options: Readonly<Record<string, unknown>>): PostgresDriverOptions {
  const { preparedStatements, statementCacheSize, pooler, listenUrl } = options;
  if (pooler !== undefined && pooler !== "transaction") {
    throw new ValidationError(`pooler must be "transaction" (a pooler in transaction mode), got ${JSON.stringify(pooler)}`);
  }
  if (listenUrl !== undefined && (typeof listenUrl !== "string" || listenUrl === "")) {
    throw new ValidationError("listenUrl must be a connection string");
  }
  if (preparedStatements !== undefined && typeof preparedStatements !== "boolean") {
    throw new ValidationError(`preparedStatements must be true or false, got ${String(preparedStatements)}`);
  }
  if (statementCacheSize !== undefined && !(Number.isSafeInteger(statementCacheSize) && (statementCacheSize as number) >= 1)) {
    throw new ValidationError(`statementCacheSize must be a positive integer, got ${String(statementCacheSize)}`);
  }
  return {
    preparedStatements,
    statementCacheSize: statementCacheSize as number | undefined,
    pooler: pooler as "transaction" | undefined,
    listenUrl: listenUrl as string | undefined,
  };
}
