import { ValidationError } from "tempest-db-js";

/** Options accepted through `createEngine(url, { driver: { ... } })`; any other key goes to `pg.Pool`. */
export interface PostgresDriverOptions {
  /**
   * Run repeated statements as named prepared statements (default true): the server parses and
   * plans them once per connection. Turn off behind a pooler that cannot keep them (PgBouncer in
   * transaction mode before 1.21).
   */
  readonly preparedStatements?: boolean;
  /** Prepared statements kept per connection, least recently used deallocated first (default 100). */
  readonly statementCacheSize?: number;
}

/** Checks the dialect's own keys; every other key is a `pg.Pool` option and is left alone. */
export function readOptions(options: Readonly<Record<string, unknown>>): PostgresDriverOptions {
  const { preparedStatements, statementCacheSize } = options;
  if (preparedStatements !== undefined && typeof preparedStatements !== "boolean") {
    throw new ValidationError(`preparedStatements must be true or false, got ${String(preparedStatements)}`);
  }
  if (statementCacheSize !== undefined && !(Number.isSafeInteger(statementCacheSize) && (statementCacheSize as number) >= 1)) {
    throw new ValidationError(`statementCacheSize must be a positive integer, got ${String(statementCacheSize)}`);
  }
  return { preparedStatements, statementCacheSize: statementCacheSize as number | undefined };
}
