import type { PoolConnection as CorePoolConnection } from "mysql2";
import type { DriverQuery, DriverRowStream, DriverStreamOptions } from "tempest-db-js/dialect";

/**
 * A select read on mysql2's text protocol, the only one it streams: `query()` formats the bound
 * values into the SQL on the client (the driver scrubs that text from errors). Rows arrive as the
 * server sends them; once a batch is buffered the connection is paused, so the server waits on its
 * socket until the loop asks for more (backpressure). mysql2 cannot leave a result set half-read:
 * an early exit destroys the connection (close() answers `lost`).
 */
export function mysqlRowStream(
  conn: CorePoolConnection,
  query: DriverQuery,
  options: DriverStreamOptions,
  hooks: { readonly started: () => void; readonly ended: () => void; readonly failed: (error: unknown) => unknown },
): DriverRowStream {
  const { batchSize } = options;
  let buffer: unknown[] = [];
  let state: "new" | "reading" | "ended" | "failed" | "closed" = "new";
  let failure: unknown;
  let paused = false;
  let waiter: { resolve: (rows: readonly unknown[] | undefined) => void; reject: (error: unknown) => void } | undefined;

  const finish = (next: "ended" | "failed" | "closed"): void => {
    if (state === "reading") hooks.ended();
    state = next;
  };

  /** Hands the waiting next() its batch once one is full, or the rest when the result set is done. */
  const settle = (): void => {
    if (waiter === undefined) return;
    if (buffer.length < batchSize && state === "reading") return;
    const { resolve, reject } = waiter;
    waiter = undefined;
    if (buffer.length > 0) resolve(take());
    else if (state === "failed") reject(failure);
    else resolve(undefined);
  };

  const take = (): unknown[] => {
    const batch = buffer.length <= batchSize ? buffer : buffer.slice(0, batchSize);
    buffer = batch === buffer ? [] : buffer.slice(batchSize);
    return batch;
  };

  const start = (): void => {
    hooks.started();
    state = "reading";
    const rowsAsArray = query.rowMode === "array";
    const values = query.params.length > 0 ? query.params.map((v) => (v === undefined ? null : v)) : undefined;
    const running =
      values === undefined ? conn.query({ sql: query.sql, rowsAsArray }) : conn.query({ sql: query.sql, rowsAsArray, values });
    running.on("result", (row: unknown) => {
      // A statement without a result set reports its OK packet as a "result": it is no row.
      if ((row as { constructor?: { name?: string } } | null)?.constructor?.name === "ResultSetHeader") return;
      buffer.push(row);
      if (buffer.length >= batchSize && !paused) {
        paused = true;
        conn.pause();
      }
      settle();
    });
    running.on("error", (error: unknown) => {
      failure = hooks.failed(error);
      finish("failed");
      settle();
    });
    running.on("end", () => {
      if (state === "reading") finish("ended");
      settle();
    });
  };

  return {
    next(): Promise<readonly unknown[] | undefined> {
      if (state === "closed") return Promise.resolve(undefined);
      if (state === "new") start();
      if (buffer.length >= batchSize || (state !== "reading" && buffer.length > 0)) return Promise.resolve(take());
      if (state === "failed") return Promise.reject(failure);
      if (state === "ended") return Promise.resolve(undefined);
      return new Promise((resolve, reject) => {
        waiter = { resolve, reject };
        if (paused) {
          paused = false;
          // Rows the pause held back are emitted from here, synchronously.
          conn.resume();
        }
        settle();
      });
    },
    close(): Promise<"closed" | "lost"> {
      const reading = state === "reading";
      finish("closed");
      buffer = [];
      if (!reading) return Promise.resolve("closed");
      conn.destroy();
      // mysql2's destroy() only half-closes the socket (end()): a server blocked writing to a paused
      // client would wait on it until net_write_timeout. Destroying the socket resets it now.
      (conn as unknown as { stream?: { destroy?: () => void } }).stream?.destroy?.();
      return Promise.resolve("lost");
    },
  };
}
