import { AsyncLocalStorage } from "node:async_hooks";
import type { CompiledQuery } from "../compiler/compiled-query.js";
import { ConnectionError, RetryableTransactionError, ValidationError } from "../errors.js";
import type { TransactionHandle, TransactionOptions } from "./executor.js";
import { BaseExecutor, runSql } from "./executor.js";
import type { ExecutedQuery } from "./query-result.js";
import { Transaction } from "./transaction.js";

/** The engines whose transaction the current async context runs inside. */
const openTransactions = new AsyncLocalStorage<ReadonlySet<object>>();
/**
 * Transactions running inside openTransactions. AsyncLocalStorage costs every promise of the
 * process a hook while it is enabled, so it is used only where the guard is needed (single-connection
 * drivers) and disabled whenever no such transaction is open.
 */
let guardedTransactions = 0;

async function runGuarded<T>(core: object, fn: () => Promise<T>): Promise<T> {
  const held = new Set(openTransactions.getStore());
  held.add(core);
  guardedTransactions++;
  try {
    return await openTransactions.run(held, fn);
  } finally {
    if (--guardedTransactions === 0) openTransactions.disable();
  }
}

/**
 * Runs each statement on a pooled connection, outside any transaction, and opens transactions.
 * The engine is a session too.
 */
export class Session extends BaseExecutor {
  /** An idle synchronous connection runs the statement at once (no acquire, release or promise); else a pooled one. */
  runCompiled<R>(compiled: CompiledQuery): ExecutedQuery<R> | Promise<ExecutedQuery<R>> {
    this.#refuseSelfDeadlock();
    return this.core.runNow<R>(compiled) ?? this.#runPooled<R>(compiled);
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
   * Runs `fn` in a transaction: commit when it returns, rollback when it throws (the error is
   * rethrown). With `retryOnDeadlock: n` the whole callback runs again on a retryable failure.
   */
  async transaction<T>(fn: (tx: TransactionHandle) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const retries = options.retryOnDeadlock ?? 0;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#once(fn, options);
      } catch (error) {
        if (attempt >= retries || !RetryableTransactionError.isInstance(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** Math.min(attempt, 6)));
      }
    }
  }

  /**
   * On a single-connection driver (SQLite), a statement on the engine inside its own transaction
   * callback would wait for the connection the transaction holds: a silent hang. Refuse it instead.
   */
  #refuseSelfDeadlock(): void {
    if (this.core.driver.maxConnections === 1 && openTransactions.getStore()?.has(this.core)) {
      throw new ValidationError(
        "This statement runs on the engine inside its own transaction callback, but the engine has a single connection, held by that transaction: it would wait forever. Run it on the transaction (tx.execute) instead.",
      );
    }
  }

  async #once<T>(fn: (tx: TransactionHandle) => Promise<T>, options: TransactionOptions): Promise<T> {
    this.#refuseSelfDeadlock();
    await this.core.ready();
    const connection = await this.core.acquire();
    const compiler = this.core.compiler;
    let broken = false;
    const tx = new Transaction(this.core, connection, 1);
    try {
      for (const sql of compiler.beginStatements(options)) await runSql(this.core, connection, sql, true);
      let result: T;
      try {
        result = this.core.driver.maxConnections === 1 ? await runGuarded(this.core, () => fn(tx)) : await fn(tx);
      } catch (error) {
        tx.finish();
        try {
          await runSql(this.core, connection, "ROLLBACK", true);
        } catch {
          broken = true; // A connection that cannot roll back is not returned to the pool.
        }
        throw error;
      }
      tx.finish();
      try {
        await runSql(this.core, connection, "COMMIT", true);
      } catch (error) {
        // A failed COMMIT can leave the transaction open (SQLite busy): never pool it that way.
        await runSql(this.core, connection, "ROLLBACK", true).catch(() => {
          broken = true;
        });
        throw error;
      }
      return result;
    } catch (error) {
      if (ConnectionError.isInstance(error)) broken = true;
      throw error;
    } finally {
      tx.finish();
      await connection.release(broken);
    }
  }
}
