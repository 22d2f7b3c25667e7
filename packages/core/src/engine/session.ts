import type { CompiledQuery } from "../compiler/compiled-query.js";
import type { DriverConnection } from "../dialect/driver.js";
import {
  CommitOutcomeUnknownError,
  ConnectionError,
  RetryableTransactionError,
  TransactionFailedError,
  TransactionTimeoutError,
  ValidationError,
} from "../errors.js";
import type { TransactionHandle, TransactionOptions } from "./executor.js";
import { BaseExecutor, runSql } from "./executor.js";
import type { ExecutedQuery } from "./query-result.js";
import type { OpenedStream } from "./row-stream.js";
import { StreamCursor } from "./row-stream.js";
import { insideGuarded, runGuarded } from "./self-deadlock-guard.js";
import { Transaction } from "./transaction.js";
import { TransactionGuard } from "./transaction-guard.js";

/**
 * Whether retryOnDeadlock may run the callback again: the server rolled the attempt back for a
 * retryable reason. An error from COMMIT itself is retried only when the server answered it (a
 * serialization failure at commit); an unknown outcome never is.
 */
function isRetryable(error: unknown, attempt: Attempt): boolean {
  if (CommitOutcomeUnknownError.isInstance(error)) return false;
  if (RetryableTransactionError.isInstance(error)) return true;
  return !attempt.commitSent && TransactionFailedError.isInstance(error) && RetryableTransactionError.isInstance(error.cause);
}

/**
 * Runs each statement on a pooled connection, outside any transaction, and opens transactions.
 * The engine is a session too.
 */
export class Session extends BaseExecutor {
  /** An idle synchronous connection runs the statement at once (no acquire, release or promise); else a pooled one. */
  runCompiled<R>(compiled: CompiledQuery): ExecutedQuery<R> | Promise<ExecutedQuery<R>> {
    const now = this.core.runNow<R>(compiled);
    if (now !== undefined) return now;
    // Only a statement that has to wait for a connection can wait for its own transaction.
    this.#refuseSelfDeadlock();
    return this.#runPooled<R>(compiled);
  }

  async #runPooled<R>(compiled: CompiledQuery): Promise<ExecutedQuery<R>> {
    const connection = await this.core.acquire();
    let result: ExecutedQuery<R>;
    try {
      result = await this.core.run<R>(connection, compiled, false);
    } catch (error) {
      const released = connection.release(ConnectionError.isInstance(error));
      if (released) await released;
      throw error;
    }
    // A synchronous release (SQLite) costs no tick.
    const released = connection.release(false);
    if (released) await released;
    return result;
  }

  /**
   * A stream on a connection of its own, held until the stream ends (PostgreSQL's driver wraps its
   * cursor in a transaction of its own there), then released; discarded when the stream lost it.
   */
  protected async openStream(compile: () => CompiledQuery, batchSize: number): Promise<OpenedStream> {
    this.#refuseSelfDeadlock();
    const core = this.core;
    await core.ready();
    const compiled = compile();
    const connection = await core.acquire();
    let cursor: StreamCursor;
    try {
      cursor = StreamCursor.open(core, connection, compiled, batchSize, false);
    } catch (error) {
      await connection.release(false);
      throw error;
    }
    return {
      next: () => cursor.next(),
      refused: undefined,
      close: async (failure) => {
        let broken = ConnectionError.isInstance(failure);
        try {
          if ((await cursor.close()) === "lost") broken = true;
        } catch (error) {
          broken = true;
          if (failure === undefined) throw error;
        } finally {
          await connection.release(broken);
        }
      },
    };
  }

  /**
   * Runs `fn` in a transaction: commit when it returns, rollback when it throws (the error is
   * rethrown). With `retryOnDeadlock: n` the whole callback runs again on a retryable failure.
   */
  async transaction<T>(fn: (tx: TransactionHandle) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const retries = options.retryOnDeadlock ?? 0;
    for (let attempt = 0; ; attempt++) {
      const state: Attempt = { commitSent: false };
      try {
        return await this.#once(fn, options, state);
      } catch (error) {
        if (attempt >= retries || !isRetryable(error, state)) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** Math.min(attempt, 6)));
      }
    }
  }

  /**
   * On a single-connection driver (SQLite), a statement on the engine inside its own transaction
   * callback would wait for the connection the transaction holds: a silent hang. Refuse it instead.
   */
  #refuseSelfDeadlock(): void {
    if (this.core.driver.maxConnections === 1 && insideGuarded(this.core)) {
      throw new ValidationError(
        "This statement runs on the engine inside its own transaction callback, but the engine has a single connection, held by that transaction: it would wait forever. Run it on the transaction (tx.execute) instead.",
      );
    }
  }

  async #once<T>(fn: (tx: TransactionHandle) => Promise<T>, options: TransactionOptions, attempt: Attempt): Promise<T> {
    this.#refuseSelfDeadlock();
    const core = this.core;
    if (!core.isReady) await core.ready();
    // A synchronous driver's free connection is lent at once, and its BEGIN and COMMIT run at once:
    // the same statements, checks and outcomes as the awaited path, without a promise per step.
    const connection = core.acquireNow() ?? (await core.acquire());
    const now = connection.queryNow !== undefined ? (connection as SyncConnection) : undefined;
    const control = (sql: string): Promise<string | undefined> | string | undefined =>
      now !== undefined ? core.controlNow(now, sql) : runSql(core, connection, sql);
    let broken = false;
    const tx = new Transaction(core, connection, 1);
    const guard = new TransactionGuard(core, tx.lane, connection);
    const rollback = async (): Promise<void> => {
      try {
        await control(core.compiler.rollbackSql());
      } catch {
        broken = true; // A connection that cannot roll back is not returned to the pool.
      }
    };
    try {
      for (const sql of core.compiler.beginStatements(options)) {
        const begun = control(sql);
        if (begun instanceof Promise) await begun;
      }
      let result: T;
      try {
        const outcome = core.driver.maxConnections === 1 ? runGuarded(core, () => fn(tx)) : fn(tx);
        // A timeout (or close()) ends the transaction even if the callback never settles.
        result = await Promise.race([outcome, guard.expired]);
      } catch (error) {
        tx.finish();
        await tx.closeStreams();
        await this.#settleAfterFailure(tx, guard);
        // A connection a stream had to close (mysql2) took the transaction with it: nothing to roll back.
        if (guard.cancelFailed || tx.lost) broken = true;
        else await rollback();
        throw guard.fired ?? error;
      }
      // Statements issued in the callback and still queued run before COMMIT; one that failed dooms it.
      tx.finish();
      const closing = tx.closeStreams();
      if (closing !== undefined) await closing;
      const draining = tx.drain();
      if (draining !== undefined) await draining;
      guard.stop();
      if (tx.lost && !guard.fired) {
        broken = true;
        throw tx.lost;
      }
      const failure = guard.fired ?? tx.failure;
      if (failure !== undefined) {
        await rollback();
        if (failure === guard.fired) throw failure;
        throw new TransactionFailedError(
          "A statement failed inside this transaction and the callback went on: the transaction was rolled back, not committed (see cause).",
          failure,
        );
      }
      attempt.commitSent = true;
      let tag: string | undefined;
      try {
        const committed = control(core.compiler.commitSql());
        tag = committed instanceof Promise ? await committed : committed;
      } catch (error) {
        if (ConnectionError.isInstance(error)) throw commitOutcomeUnknown(error);
        // A failed COMMIT can leave the transaction open (SQLite busy): never pool it that way.
        await rollback();
        throw error;
      }
      if (core.compiler.commitRolledBack(tag)) {
        throw new TransactionFailedError(
          "The server rolled this transaction back instead of committing it: a statement in it failed without the engine seeing the error.",
          undefined,
        );
      }
      return result;
    } catch (error) {
      // A server-side guard (PostgreSQL idle_in_transaction_session_timeout) ends the session too.
      if (ConnectionError.isInstance(error) || TransactionTimeoutError.isInstance(error)) broken = true;
      throw error;
    } finally {
      tx.finish();
      try {
        // A synchronous release (SQLite) costs no tick.
        const released = connection.release(broken);
        if (released) await released;
      } finally {
        guard.done();
      }
    }
  }

  /**
   * After the callback failed or the guard fired: wait for the statements still queued. A timed-out
   * statement was cancelled; one that does not settle soon after is cut with its connection.
   */
  async #settleAfterFailure(tx: Transaction, guard: TransactionGuard): Promise<void> {
    const draining = tx.drain();
    if (draining === undefined) return;
    if (guard.fired === undefined) return draining;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), CANCEL_GRACE_MS);
    });
    const outcome = await Promise.race([draining.then(() => "drained" as const), grace]);
    clearTimeout(timer);
    if (outcome === "late") guard.cancelFailed = true;
  }
}

type SyncConnection = DriverConnection & Required<Pick<DriverConnection, "queryNow">>;

/** How long a cancelled statement may take to stop before its connection is cut. */
const CANCEL_GRACE_MS = 2000;

/** Whether COMMIT was sent on this attempt: from then on the callback never runs again. */
interface Attempt {
  commitSent: boolean;
}

function commitOutcomeUnknown(error: ConnectionError): CommitOutcomeUnknownError {
  const reason = error.message.split("\n")[0];
  return new CommitOutcomeUnknownError({
    message: `The connection failed after COMMIT was sent, so whether the transaction committed is unknown (${reason})`,
    sql: error.sql,
    params: error.params,
    kind: error.kind,
    driverCode: error.driverCode,
    constraint: error.constraint,
    cause: error,
  });
}
