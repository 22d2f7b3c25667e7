import type { Executor, TransactionHandle } from "tempest-db-js";
import { isTransaction } from "tempest-db-js";

/** Whole-transaction retries on deadlock / serialization failure / lock-wait timeout. */
export const TRANSACTION_RETRIES = 8;

/**
 * Runs `fn` in a transaction of its own, retried whole when the server reports a deadlock or a
 * serialization failure. Inside a caller's transaction it runs there: the caller owns the
 * transaction, and so the retry.
 */
export function runClaimTransaction<T>(db: Executor, fn: (tx: TransactionHandle) => Promise<T>): Promise<T> {
  if (isTransaction(db)) return fn(db);
  return db.transaction(fn, { retryOnDeadlock: TRANSACTION_RETRIES });
}
