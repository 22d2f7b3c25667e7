import type { Expression } from "../ast/expression.js";
import type { SelectNode } from "../ast/statement-node.js";
import type { Executable } from "../builder/executable.js";
import type { CompiledQuery } from "../compiler/compiled-query.js";
import type { DriverConnection } from "../dialect/driver.js";
import { QueryError, StreamEndedTransactionError, TransactionFailedError, ValidationError } from "../errors.js";
import type { EngineCore } from "./engine-core.js";
import type { TransactionHandle, TransactionOptions } from "./executor.js";
import { BaseExecutor, finishedError, planOf, toNode } from "./executor.js";
import type { ExecutedQuery } from "./query-result.js";
import { QueryResult } from "./query-result.js";
import type { OpenedStream } from "./row-stream.js";
import { StreamCursor } from "./row-stream.js";
import type { GuardedLane } from "./transaction-guard.js";

let savepointCounter = 0;

const noop = (): void => {};

/**
 * The statements of one connection's transaction, in the order they were issued: one runs at a time
 * whatever the caller awaits. Shared by the transaction and its savepoints.
 */
interface Lane {
  readonly core: EngineCore;
  readonly connection: DriverConnection;
  /** Statements issued and not yet settled. */
  inFlight: number;
  /** The last issued statement (settled when inFlight is 0). */
  tail: Promise<unknown> | undefined;
  /** performance.now() when the last queued statement settled (or the transaction began): read by the idle guard. */
  idleSince: number;
  /** Statements run at once on a synchronous connection: counted, not timed (see TransactionGuard). */
  ranAtOnce: number;
  /** The transaction timed out or was ended (see TransactionGuard): statements are refused with this. */
  expired: QueryError | undefined;
  /** A stream closed the connection to stop (mysql2), ending the transaction: statements are refused with this. */
  lost: StreamEndedTransactionError | undefined;
}

const TRANSACTION = Symbol.for("tempest-db-js.transaction");

/**
 * Whether `executor` is a transaction handle (the callback's `tx`, at any depth) rather than an engine
 * or a reserved session: code given "an executor" runs its statements there as they are, where it
 * would otherwise open a transaction of its own. Read from a brand on the class's prototype, so a
 * transaction of another copy of this package answers true as well, and a plain object with a
 * `depth` never does.
 */
export function isTransaction(executor: unknown): executor is TransactionHandle {
  if (executor instanceof Transaction) return true;
  return typeof executor === "object" && executor !== null && (executor as Record<symbol, unknown>)[TRANSACTION] === true;
}

/**
 * A transaction bound to one connection. `transaction()` inside it opens a savepoint.
 *
 * `execute()` issues the statement at once: it joins the connection's queue and runs after every
 * statement issued before it, and the commit waits for it whether or not it was awaited. A statement
 * that fails marks this level (the transaction, or the savepoint it ran in) failed: later statements
 * are refused without being sent, and the level ends in a rollback and a TransactionFailedError.
 */
export class Transaction extends BaseExecutor implements TransactionHandle {
  readonly connection: DriverConnection;
  readonly depth: number;
  readonly #lane: Lane;
  readonly #parent: Transaction | undefined;
  #finished = false;
  /** The first statement failure at this level. */
  #failure: QueryError | undefined;
  /** The savepoint open on this handle, until it settles: statements on this handle wait for none, they are refused. */
  #child: Promise<unknown> | undefined;
  /** The streams opened on this handle and not yet ended, each by its close function. */
  readonly #streams = new Set<() => Promise<void>>();

  static {
    Object.defineProperty(this.prototype, TRANSACTION, { value: true });
  }

  constructor(core: EngineCore, connection: DriverConnection, depth: number, parent?: Transaction) {
    super(core);
    this.connection = connection;
    this.depth = depth;
    this.#parent = parent;
    this.#lane = parent
      ? parent.#lane
      : { core, connection, inFlight: 0, tail: undefined, idleSince: performance.now(), ranAtOnce: 0, expired: undefined, lost: undefined };
  }

  /** The statement queue the transaction's guard watches. */
  get lane(): GuardedLane {
    return this.#lane;
  }

  /** The callback returned: statements issued from now on are refused. Those already issued still run. */
  finish(): void {
    this.#finished = true;
  }

  /** Set when a stream had to close the connection to stop, which ended the transaction. */
  get lost(): StreamEndedTransactionError | undefined {
    return this.#lane.lost;
  }

  /**
   * Ends the streams still open on this handle, before COMMIT or ROLLBACK (or RELEASE SAVEPOINT):
   * their cursors belong to the transaction. Reading one afterwards is refused. Undefined when none
   * is open (no tick to wait for).
   */
  closeStreams(): Promise<void> | undefined {
    if (this.#streams.size === 0) return undefined;
    return Promise.allSettled([...this.#streams].map((close) => close())).then(noop);
  }

  /**
   * A stream in the transaction's statement queue: each batch is read in order with the statements
   * issued around it, so on PostgreSQL other statements run between fetches of its cursor.
   */
  protected async openStream(compile: () => CompiledQuery, batchSize: number): Promise<OpenedStream> {
    this.#refuseIssue();
    const cursor = StreamCursor.open(this.core, this.connection, compile(), batchSize, true);
    const lane = this.#lane;
    let ended = false;
    const end = async (): Promise<void> => {
      if (ended) return;
      ended = true;
      this.#streams.delete(end);
      const outcome = await this.#enqueue(() => cursor.close(), false).catch((error: unknown) => {
        // A transaction already ending (timed out, lost) has its own error to report.
        if (lane.expired !== undefined || lane.lost !== undefined) return "closed" as const;
        throw error;
      });
      if (outcome === "lost") lane.lost ??= new StreamEndedTransactionError(this.core.dialect.name, cursor.sql);
    };
    this.#streams.add(end);
    const transaction = this;
    return {
      next: () => (ended ? Promise.reject(finishedError()) : this.#enqueue(() => cursor.next(), true)),
      get refused() {
        return ended && transaction.#finished ? finishedError() : undefined;
      },
      close: async (failure) => {
        try {
          await end();
        } catch (error) {
          if (failure === undefined) throw error;
        }
      },
    };
  }

  /** The first statement that failed at this level, when one did. */
  get failure(): QueryError | undefined {
    return this.#failure;
  }

  /** Settles once every statement issued on this connection, and any savepoint open on this handle, has settled. */
  drain(): Promise<void> | undefined {
    if (this.#child === undefined && this.#lane.inFlight === 0) return undefined;
    return this.#drainLoop();
  }

  async #drainLoop(): Promise<void> {
    for (;;) {
      if (this.#child !== undefined) await this.#child.then(noop, noop);
      else if (this.#lane.inFlight > 0) await this.#lane.tail?.then(noop, noop);
      else return;
    }
  }

  override execute<R>(query: Executable<R>): QueryResult<R>;
  override execute(query: Expression<any>): QueryResult<Record<string, unknown>>;
  override execute(query: Executable<unknown> | Expression<any>): QueryResult<any> {
    // Built and validated now, so bad input throws at the call site; issued at once, in order.
    const node = toNode(query);
    const plan = planOf(query, this.core.settings.helpersOnly);
    let run: Promise<ExecutedQuery<unknown>> | ExecutedQuery<unknown>;
    try {
      // Inside a transaction the levels read what its isolation level gives (docs/relations.md).
      run = plan === undefined ? this.runCompiled(this.core.compiler.compile(node)) : this.loadWith(node as SelectNode, plan);
    } catch (error) {
      run = Promise.reject(error);
    }
    return QueryResult.issued(run);
  }

  /** A relation load inside a transaction reads what the transaction's isolation level gives it. */
  protected override inSnapshot<T>(fn: (executor: BaseExecutor) => Promise<T>): Promise<T> {
    return fn(this);
  }

  /**
   * Issues the statement: its result, when a synchronous connection ran it at once (nothing else was
   * in flight, so it runs after everything issued before it, as the queue would run it), or a promise
   * of it. May throw a refusal decided at issue.
   */
  runCompiled<R>(compiled: CompiledQuery): Promise<ExecutedQuery<R>> | ExecutedQuery<R> {
    this.#refuseIssue();
    const lane = this.#lane;
    if (lane.inFlight === 0 && lane.connection.queryNow !== undefined) return this.#runAtOnce<R>(compiled);
    return this.#enqueue(() => this.core.run<R>(this.connection, compiled, true), true);
  }

  /**
   * The queue's work for a statement sent at once, without its promises: the refusal after an earlier
   * failure, the failure recorded for this level, the idle clock. A failure comes back as a rejected
   * promise that, like a queued one, cannot crash the process unawaited.
   */
  #runAtOnce<R>(compiled: CompiledQuery): Promise<ExecutedQuery<R>> | ExecutedQuery<R> {
    const lane = this.#lane;
    const doom = this.#doom();
    if (doom !== undefined) return quietly(refusedAfter(doom));
    lane.ranAtOnce++;
    try {
      return this.core.runSync<R>(lane.connection as SyncConnection, compiled);
    } catch (error) {
      if (QueryError.isInstance(error)) {
        this.#failure ??= error;
        return quietly(error);
      }
      return Promise.reject(error);
    }
  }

  /** Refusals decided when the statement is issued: nothing is queued. */
  #refuseIssue(): void {
    if (this.#lane.expired !== undefined) throw this.#lane.expired;
    if (this.#lane.lost !== undefined) throw this.#lane.lost;
    if (this.#finished) throw finishedError();
    if (this.#child !== undefined) {
      throw new ValidationError(
        "A nested transaction (savepoint) is open on this handle: run the statement on the nested handle, or after its transaction() settles.",
      );
    }
  }

  /** The failure that dooms this level: its own, or an enclosing level's. */
  #doom(): QueryError | undefined {
    for (let level: Transaction | undefined = this; level; level = level.#parent) {
      if (level.#failure !== undefined) return level.#failure;
    }
    return undefined;
  }

  /**
   * Runs `send` after every statement issued before it. When nothing is in flight (statements awaited
   * one at a time) it is sent at once; the bookkeeping costs one promise, as an async frame would.
   */
  #enqueue<T>(send: () => Promise<T>, checked: boolean): Promise<T> {
    const lane = this.#lane;
    const start = (): Promise<T> => {
      if (lane.expired !== undefined) return Promise.reject(lane.expired);
      if (lane.lost !== undefined) return Promise.reject(lane.lost);
      const doom = checked ? this.#doom() : undefined;
      if (doom !== undefined) return Promise.reject(refusedAfter(doom));
      return send();
    };
    const started = lane.inFlight === 0 || lane.tail === undefined ? start() : lane.tail.then(start, start);
    lane.inFlight++;
    const settled: Promise<T> = started.then(
      (result) => {
        if (--lane.inFlight === 0) lane.idleSince = performance.now();
        return result;
      },
      (error: unknown) => {
        if (--lane.inFlight === 0) lane.idleSince = performance.now();
        if (QueryError.isInstance(error)) this.#failure ??= error;
        // The transaction reports a failure (and the refusals after it) itself: an unawaited statement
        // must not also crash the process with an unhandled rejection.
        if (QueryError.isInstance(error) || TransactionFailedError.isInstance(error)) settled.catch(noop);
        throw error;
      },
    );
    lane.tail = settled;
    return settled;
  }

  /** A control statement (SAVEPOINT, RELEASE, ROLLBACK TO) at this level, in the queue. */
  #control(sql: string, checked: boolean): Promise<unknown> {
    return this.#enqueue(() => this.core.control(this.connection, sql).then(() => EMPTY), checked);
  }

  transaction<T>(fn: (tx: TransactionHandle) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    try {
      this.#refuseIssue();
      if (options.isolation || options.readOnly || options.retryOnDeadlock) {
        throw new ValidationError(
          "A nested transaction is a savepoint: isolation, readOnly and retryOnDeadlock belong to the outermost transaction",
        );
      }
      if (!this.core.capabilities.savepoints)
        this.core.compiler.unsupported("savepoints (nested transactions)", "Run the work in the outer transaction.");
    } catch (error) {
      return Promise.reject(error);
    }
    const run = this.#savepoint(fn);
    this.#child = run;
    return run.finally(() => {
      if (this.#child === run) this.#child = undefined;
    });
  }

  async #savepoint<T>(fn: (tx: TransactionHandle) => Promise<T>): Promise<T> {
    const name = `tempest_sp_${++savepointCounter}`;
    const compiler = this.core.compiler;
    await this.#control(compiler.savepointSql(name), true);
    const nested = new Transaction(this.core, this.connection, this.depth + 1, this);
    let result: T;
    try {
      result = await fn(nested);
    } catch (error) {
      nested.finish();
      await nested.closeStreams();
      await nested.drain();
      await this.#undo(name);
      throw error;
    }
    nested.finish();
    await nested.closeStreams();
    await nested.drain();
    const failure = nested.#failure;
    if (failure !== undefined) {
      await this.#undo(name);
      throw new TransactionFailedError(
        "A statement failed inside this nested transaction and its callback went on: the savepoint was rolled back, not released (see cause).",
        failure,
      );
    }
    await this.#control(compiler.releaseSavepointSql(name), false);
    return result;
  }

  async #undo(name: string): Promise<void> {
    const compiler = this.core.compiler;
    await this.#control(compiler.rollbackToSavepointSql(name), false);
    await this.#control(compiler.releaseSavepointSql(name), false);
  }
}

type SyncConnection = DriverConnection & Required<Pick<DriverConnection, "queryNow">>;

function refusedAfter(doom: QueryError): TransactionFailedError {
  return new TransactionFailedError(
    "Not sent: an earlier statement of this transaction failed, so the transaction will be rolled back (see cause).",
    doom,
  );
}

/** A rejection the transaction reports itself (see #enqueue): unawaited, it must not crash the process. */
function quietly(error: unknown): Promise<never> {
  const rejected = Promise.reject(error);
  rejected.catch(noop);
  return rejected;
}

const EMPTY: ExecutedQuery<never> = Object.freeze({ rows: [], rowsAffected: 0 }) as ExecutedQuery<never>;
