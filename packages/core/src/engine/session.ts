import type { CompiledQuery } from "../compiler/compiled-query.js";
import { ConnectionError, RetryableTransactionError } from "../errors.js";
import type { EngineCore } from "./engine-core.js";
import { BaseExecutor, runSql } from "./executor.js";
import type { TransactionHandle, TransactionOptions } from "./executor.js";
import type { ExecutedQuery } from "./query-result.js";
import { Transaction } from "./transaction.js";

/**
 * Runs each statement on a pooled connection, outside any transaction, and opens transactions.
 * The engine is a session too.
 */
export class Session extends BaseExecutor {
  async runCompiled<R>(compiled: CompiledQuery): Promise<ExecutedQuery<R>> {
    const connection = await this.core.acquire();
    let broken = false;
    try {
      return await this.core.run<R>(connection, compiled, false);
    } catch (error) {
      broken = ConnectionError.isInstance(error);
      throw error;
    } finally {
      await connection.release(broken);
    }
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

  async #once<T>(fn: (tx: TransactionHandle) => Promise<T>, options: TransactionOptions): Promise<T> {
    await this.core.ready();
    const connection = await this.core.acquire();
    const compiler = this.core.compiler;
    let broken = false;
    const tx = new Transaction(this.core, connection, 1);
    try {
      for (const sql of compiler.beginStatements(options)) await runSql(this.core, connection, sql, true);
      let result: T;
      try {
        result = await fn(tx);
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
