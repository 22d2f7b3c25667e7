import type { DriverRowStream } from "tempest-db-js";

/**
 * One better-sqlite3 `iterate()` read a batch at a time. The statement starts on the first next(),
 * when every statement queued before it has run; until it ends, its connection is busy (the driver
 * refuses other statements with a StreamOpenError). `start` opens the iterator and `end` frees the
 * connection again; both are the driver's.
 */
export function sqliteRowStream(start: () => Iterator<unknown>, end: () => void, batchSize: number): DriverRowStream {
  let rows: Iterator<unknown> | undefined;
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    if (rows !== undefined) end();
  };
  return {
    next(): Promise<readonly unknown[] | undefined> {
      if (done) return Promise.resolve(undefined);
      try {
        rows ??= start();
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
      if (!done && rows !== undefined) {
        try {
          // Resets the statement, which releases its read of the database.
          rows.return?.();
        } finally {
          finish();
        }
      }
      done = true;
      return Promise.resolve("closed");
    },
  };
}
