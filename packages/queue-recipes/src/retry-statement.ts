import type { Executor } from "tempest-db-js";
import { isTransaction, RetryableTransactionError } from "tempest-db-js";
import { TRANSACTION_RETRIES } from "./run-claim-transaction.js";

/**
 * Runs one autocommitted statement again when the server chose it as a deadlock victim (InnoDB may
 * do so even for a single UPDATE) or SQLite reported busy. Inside a caller's transaction a retry
 * would be wrong — the transaction is already rolled back — so the error goes to the caller.
 */
export async function retryStatement<T>(db: Executor, run: () => Promise<T>): Promise<T> {
  const inTransaction = isTransaction(db);
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (inTransaction || attempt >= TRANSACTION_RETRIES || !RetryableTransactionError.isInstance(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * 2 ** Math.min(attempt, 6)));
    }
  }
}
