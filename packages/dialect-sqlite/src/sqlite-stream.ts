import type { DriverRowStream } from "tempest-db-js/dialect";

/**
 * One better-sqlite3 `iterate()` read a batch at a time. The statement starts on the first next(),
 * when every statement queued before it has run; until it ends, its connection is busy (the driver
 * refuses other statements with a StreamOpenError). `start` opens the iterator and `end` frees the
 * connection again; both are the driver's. With `holdUntilClose` (a stream outside a transaction,
 * which holds the engine's one connection until its loop ends) the connection counts as busy until
 * close(), even once the last row was read: a statement in the loop body would otherwise wait for
 * that connection forever.
 */
export function sqliteRowStream(
  start: () => Iterator<unknown>,
  end: () => void,
  batchSize: number,
  holdUntilClose: boolean,
): DriverRowStream {
  let rows: Iterator<unknown> | undefined;
  let done = false;
  let held = false;
  const release = (): void => {
    if (!held) return;
    held = false;
    end();
  };
  const finish = (): void => {
    done = true;
    if (!holdUntilClose) release();
  };
  return {
    next(): Promise<readonly unknown[] | undefined> {
      if (done) return Promise.resolve(undefined);
      try {
        if (rows === undefined) {
          rows = start();
          held = true;
        }
        const batch: unknown[] = [];
        while (batch.length < batchSize) {
          const step = rows.next();
          if (step.done === true) {
            finish();
            break;
          }
          batch.push(step.value);
        }
        return Promise.resolve(batch.length === 0 ? undefined : batch);
      } catch (error) {
        // better-sqlite3 resets a statement that failed mid-iteration: the connection is free again.
        finish();
        return Promise.reject(error);
      }
    },
    close(): Promise<"closed"> {
      try {
        // Resets the statement, which releases its read of the database.
        if (!done && rows !== undefined) rows.return?.();
      } finally {
        done = true;
        release();
      }
      return Promise.resolve("closed");
    },
  };
}
