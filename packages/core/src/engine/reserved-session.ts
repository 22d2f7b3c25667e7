import type { CompiledQuery } from "../compiler/compiled-query.js";
import type { DriverConnection } from "../dialect/driver.js";
import { ConnectionError, TransactionFinishedError, ValidationError } from "../errors.js";
import type { EngineCore } from "./engine-core.js";
import type { TransactionHandle, TransactionOptions } from "./executor.js";
import { BaseExecutor } from "./executor.js";
import type { ExecutedQuery } from "./query-result.js";
import type { OpenedStream } from "./row-stream.js";

/**
 * One pooled connection, held for a callback, whose statements all run on it outside any
 * transaction: for session state that must outlive a statement but must not be a transaction — a
 * session-level lock (PostgreSQL `pg_advisory_lock`, MySQL `GET_LOCK`) that other connections'
 * `CREATE INDEX CONCURRENTLY` would otherwise wait for, as it waits for every open transaction.
 * Statements run one at a time, in call order.
 */
export class ReservedSession extends BaseExecutor {
  readonly #connection: DriverConnection;
  #open = true;
  #broken = false;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(core: EngineCore, connection: DriverConnection) {
    super(core);
    this.#connection = connection;
  }

  runCompiled<R>(compiled: CompiledQuery): Promise<ExecutedQuery<R>> {
    if (!this.#open) {
      return Promise.reject(
        new TransactionFinishedError("This reserved connection was given back: its callback returned, so the statement was not sent."),
      );
    }
    const run = this.#queue.then(() => this.core.run<R>(this.#connection, compiled, false));
    this.#queue = run.catch((error) => {
      if (ConnectionError.isInstance(error)) this.#broken = true;
    });
    return run;
  }

  /** A reserved connection runs outside transactions: the levels of a relation load read one after the other. */
  protected override inSnapshot<T>(fn: (executor: BaseExecutor) => Promise<T>): Promise<T> {
    return fn(this);
  }

  protected openStream(_compile: () => CompiledQuery, _batchSize: number): Promise<OpenedStream> {
    return Promise.reject(new ValidationError("A reserved connection does not stream: stream on the engine or in a transaction."));
  }

  transaction<T>(_fn: (tx: TransactionHandle) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    return Promise.reject(new ValidationError("A reserved connection runs outside transactions: open the transaction on the engine."));
  }

  /** @internal Waits for the last statement, then gives the connection back (dropped if it broke). */
  async release(): Promise<void> {
    this.#open = false;
    await this.#queue;
    await this.#connection.release(this.#broken);
  }
}
