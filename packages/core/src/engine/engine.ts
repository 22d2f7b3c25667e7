import { createIndexes, createTable, dropTable } from "../builder/ddl.js";
import type { Executable } from "../builder/executable.js";
import type { SqlCompiler } from "../compiler/sql-compiler.js";
import type { Dialect } from "../dialect/dialect.js";
import type { CatalogReader } from "../dialect/introspector.js";
import { checkDialect, dialectFor } from "../dialect/registry.js";
import { TempestError, UnsupportedFeatureError, ValidationError } from "../errors.js";
import type { PlaceholderSpec, Placeholders } from "../expression/placeholder.js";
import type { ModelClass } from "../schema/model.js";
import { EngineCore } from "./engine-core.js";
import { PreparedStatement } from "./prepared-statement.js";
import type { QueryEvent } from "./query-event.js";
import type { OperatorsMode } from "./refuse-plain-operators.js";
import { ReservedSession } from "./reserved-session.js";
import { Session } from "./session.js";

export interface EngineOptions {
  /** A dialect object, for third-party dialects or to skip the URL-scheme lookup. */
  dialect?: Dialect;
  /** Connections in the pool (default 10; SQLite uses one connection per engine). */
  poolSize?: number;
  /** Called after every statement with its SQL, duration and row count. */
  onQuery?: (event: QueryEvent) => void;
  /** Include bound parameters in query events and errors. Off by default: parameters may hold secrets. */
  logParams?: boolean;
  /** Query events at or above this duration have `slow: true` (default 1000 ms). */
  slowQueryMs?: number;
  /** Server-side statement timeout (capability `statementTimeout`); an UnsupportedFeatureError where the dialect has none (SQLite). */
  statementTimeoutMs?: number;
  /**
   * How where() reads plain `{ ne: ... }` objects. `"plain-objects"` (the default) takes them as
   * operators; `"helpers-only"` takes operators only from the `op` helpers, so a value parsed from a
   * request can never become one: a statement with a plain operator object or a bare `null` where-value
   * is a ValidationError naming the field, thrown by execute() / compile() before anything is sent.
   * Without this option, the environment variable `TEMPEST_OPERATORS=helpers-only` turns it on.
   */
  operators?: OperatorsMode;
  /** Longest wait for a pooled connection before a PoolTimeoutError (default 30 000 ms; 0: no limit). */
  acquireTimeoutMs?: number;
  /**
   * A transaction with no statement running for this long is rolled back and ends in a
   * TransactionTimeoutError (default 60 000 ms; 0: never). Where the server has its own guard
   * (PostgreSQL, MariaDB) it is set a few seconds longer, as a backstop.
   */
  idleInTransactionTimeoutMs?: number;
  /** A transaction still open this long after BEGIN is rolled back, its running statement cancelled (default: no limit). */
  transactionTimeoutMs?: number;
  /** close() waits this long for open transactions and the pool, then returns anyway (default 5 000 ms). */
  closeTimeoutMs?: number;
  /** Passed to the dialect's driver as is (e.g. `{ busyTimeoutMs }` for SQLite). */
  driver?: Record<string, unknown>;
}

/**
 * The entry point: a connection pool for one database. Created synchronously; nothing connects
 * until the first statement runs.
 */
export class Engine extends Session {
  session(): Session {
    return new Session(this.core);
  }

  /**
   * Holds one pooled connection for `fn`; every statement on the session it is given runs on that
   * connection, outside any transaction, one at a time. For session state that is not a transaction
   * (a session-level lock); the connection goes back to the pool when `fn` settles.
   */
  async reserve<T>(fn: (session: ReservedSession) => Promise<T>): Promise<T> {
    await this.core.ready();
    const session = new ReservedSession(this.core, await this.core.acquire());
    try {
      return await fn(session);
    } finally {
      await session.release();
    }
  }

  /**
   * Builds and compiles a statement once, with named placeholders for the values that change, and
   * returns it ready to run many times: `prepared.execute(values)` (or `execute(values, tx)` inside a
   * transaction) checks each value against its column exactly as a literal value is checked, and skips
   * building and compiling. `placeholders` declares each name's kind (`"uuid"`, `"integer"`, ...,
   * or `"text | null"` for one that may be null where the column allows it).
   */
  prepare<S extends PlaceholderSpec, R>(placeholders: S, build: (p: Placeholders<S>) => Executable<R>): PreparedStatement<S, R> {
    return new PreparedStatement(this, this.core, placeholders, build);
  }

  /**
   * Subscribe to a notification channel (`capabilities.listenNotify`). Returns the unsubscribe function.
   * A failure to subscribe, and a later loss of the subscription (passed to `onError`), are typed like
   * statement errors: a server that is down or restarting gives a ConnectionError.
   */
  async listen(
    channel: string,
    onMessage: (payload: string) => void,
    onError: (error: unknown) => void = () => {},
  ): Promise<() => Promise<void>> {
    const listen = this.core.driver.listen?.bind(this.core.driver);
    if (!this.capabilities.listenNotify || !listen) {
      this.core.compiler.unsupported("notifications (LISTEN/NOTIFY)", "Poll instead; the queue recipes do so on this dialect.");
    }
    const typed = (error: unknown) =>
      TempestError.isInstance(error) ? error : this.core.wrapError(error, { sql: `LISTEN ${channel}`, params: [] });
    try {
      return await listen(channel, onMessage, (error) => onError(typed(error)));
    } catch (error) {
      throw typed(error);
    }
  }

  /** CREATE TABLE and CREATE INDEX for each model, in order (put referenced models first). */
  async createAll(models: readonly ModelClass[], options: { ifNotExists?: boolean } = {}): Promise<void> {
    for (const model of models) {
      await this.execute(createTable(model, options)).rowsAffected();
      for (const index of createIndexes(model, options)) await this.execute(index).rowsAffected();
    }
  }

  /** DROP TABLE for each model, in reverse order. */
  async dropAll(models: readonly ModelClass[], options: { ifExists?: boolean } = { ifExists: true }): Promise<void> {
    for (const model of [...models].reverse()) await this.execute(dropTable(model, options)).rowsAffected();
  }

  /**
   * @internal What `introspect` and `modelsSnapshot` need of an engine: its dialect, the compiler
   * for the server's capabilities, and a catalog reader whose statements run (bound, logged,
   * errors typed) like every other statement.
   */
  schemaAccess(): SchemaAccess {
    const core = this.core;
    return {
      dialect: core.dialect,
      compiler: () => core.compiler,
      ready: () => core.ready(),
      reader: {
        query: async (sql, params) => {
          await core.ready();
          const result = await this.runCompiled<Record<string, unknown>>({ sql, params, kind: "rawStatement", columns: undefined });
          return result.rows;
        },
      },
    };
  }

  async close(): Promise<void> {
    await this.core.close();
  }
}

/** @internal See Engine.schemaAccess. */
export interface SchemaAccess {
  readonly dialect: Dialect;
  compiler(): SqlCompiler;
  ready(): Promise<void>;
  readonly reader: CatalogReader;
}

const ENGINE_OPTIONS: ReadonlySet<string> = new Set([
  "dialect",
  "poolSize",
  "onQuery",
  "logParams",
  "slowQueryMs",
  "statementTimeoutMs",
  "operators",
  "acquireTimeoutMs",
  "idleInTransactionTimeoutMs",
  "transactionTimeoutMs",
  "closeTimeoutMs",
  "driver",
] satisfies (keyof EngineOptions)[]);

/**
 * TEMPEST_OPERATORS, when no `operators` option is given: unset or empty is the default; anything but
 * the two modes (`helpers_only`, `helpersonly`, ...) is refused rather than read as lenient.
 */
function operatorsFromEnvironment(): OperatorsMode {
  const value = process.env.TEMPEST_OPERATORS;
  if (value === undefined || value === "") return "plain-objects";
  if (value === "helpers-only" || value === "plain-objects") return value;
  throw new ValidationError(
    `TEMPEST_OPERATORS must be "helpers-only" or "plain-objects" (or unset), got ${JSON.stringify(value.slice(0, 40))}: a misspelt mode would leave the engine reading plain operator objects`,
  );
}

/** Creates an engine for a database URL; the scheme picks the dialect (`postgresql:`, `mysql:`, `sqlite:`). */
export function createEngine(url: string, options: EngineOptions = {}): Engine {
  if (typeof url !== "string") throw new ValidationError("createEngine takes a database URL string");
  const dialect = options.dialect ?? dialectFor(url);
  // A registered dialect was checked by registerDialect; one passed here is checked the same way.
  if (options.dialect !== undefined) checkDialect(dialect);
  const poolSize = options.poolSize ?? 10;
  if (!Number.isSafeInteger(poolSize) || poolSize < 1) throw new ValidationError("poolSize must be a positive integer");
  if (typeof options !== "object" || options === null) throw new ValidationError("createEngine: options must be an object");
  // A misspelt option would be silently ignored: every option works or is refused.
  for (const key of Object.keys(options)) {
    if (!ENGINE_OPTIONS.has(key)) {
      throw new ValidationError(`createEngine: unknown option "${key.slice(0, 60)}" (options: ${[...ENGINE_OPTIONS].join(", ")})`);
    }
  }
  const operators = options.operators ?? operatorsFromEnvironment();
  if (operators !== "plain-objects" && operators !== "helpers-only") {
    throw new ValidationError(`operators must be "plain-objects" or "helpers-only", got a ${typeof operators}`);
  }
  dialect.validateOptions?.({ ...options.driver });
  const duration = (name: keyof EngineOptions, fallback: number): number => {
    const value = options[name] ?? fallback;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 2_147_483_647) {
      throw new ValidationError(`${name} must be a number of milliseconds from 0 (off) to 2147483647`);
    }
    return value;
  };
  const statementTimeoutMs = options.statementTimeoutMs;
  if (statementTimeoutMs !== undefined) {
    if (!Number.isSafeInteger(statementTimeoutMs) || statementTimeoutMs < 1 || statementTimeoutMs > 2_147_483_647)
      throw new ValidationError("statementTimeoutMs must be a whole number of milliseconds from 1 to 2147483647");
    if (!dialect.capabilitiesFor(url).statementTimeout)
      throw new UnsupportedFeatureError(
        dialect.name,
        "statementTimeoutMs (a server-side statement timeout)",
        "Leave it out: bound the work with limit(), or end a whole transaction with transactionTimeoutMs.",
      );
  }
  const core = new EngineCore(dialect, {
    url,
    poolSize,
    statementTimeoutMs,
    acquireTimeoutMs: duration("acquireTimeoutMs", 30_000),
    idleInTransactionTimeoutMs: duration("idleInTransactionTimeoutMs", 60_000),
    transactionTimeoutMs: duration("transactionTimeoutMs", 0),
    closeTimeoutMs: duration("closeTimeoutMs", 5_000),
    logParams: options.logParams ?? false,
    helpersOnly: operators === "helpers-only",
    slowQueryMs: options.slowQueryMs ?? 1000,
    onQuery: options.onQuery,
    driverOptions: Object.freeze({ ...options.driver }),
  });
  return new Engine(core);
}
