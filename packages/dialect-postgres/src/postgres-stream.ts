import type pg from "pg";
import type { DriverQuery, DriverRowStream, DriverStreamOptions } from "tempest-db-js/dialect";

let cursorCounter = 0;

/**
 * A select read through a server-side cursor: DECLARE once, then FETCH FORWARD batchSize at a time.
 * The cursor lives in a transaction: the caller's, where statements issued between fetches run
 * between them on the same connection, or, outside one, a transaction of its own (BEGIN before the
 * DECLARE, COMMIT after the last row, ROLLBACK on an early exit or an error).
 */
export function postgresRowStream(client: pg.PoolClient, query: DriverQuery, options: DriverStreamOptions): DriverRowStream {
  const name = `tempest_cursor_${++cursorCounter}`;
  const asArrays = query.rowMode === "array";
  const fetchSql = `FETCH FORWARD ${options.batchSize} FROM "${name}"`;
  let state: "new" | "open" | "exhausted" | "failed" | "closed" = "new";
  let began = false;

  const open = async (): Promise<void> => {
    if (!options.inTransaction) {
      await client.query("BEGIN");
      began = true;
    }
    await client.query({ text: `DECLARE "${name}" NO SCROLL CURSOR FOR ${query.sql}`, values: query.params as unknown[] });
    state = "open";
  };

  return {
    async next(): Promise<readonly unknown[] | undefined> {
      if (state === "exhausted" || state === "closed") return undefined;
      try {
        if (state === "new") await open();
        const result: pg.QueryResult | pg.QueryArrayResult = asArrays
          ? await client.query({ text: fetchSql, rowMode: "array" })
          : await client.query(fetchSql);
        const rows: readonly unknown[] = result.rows;
        // A short batch is the last: no extra round trip to learn that the cursor is done.
        if (rows.length < options.batchSize) state = "exhausted";
        return rows.length === 0 ? undefined : rows;
      } catch (error) {
        // The transaction is aborted now: only a ROLLBACK (ours, or the caller's) is accepted.
        state = "failed";
        throw error;
      }
    },
    async close(): Promise<"closed"> {
      const was = state;
      state = "closed";
      if (began) await client.query(was === "exhausted" ? "COMMIT" : "ROLLBACK");
      // In the caller's transaction the cursor would live until its end: free it now, unless the
      // transaction has failed (it accepts nothing but ROLLBACK, which closes the cursor too).
      else if (was === "open" || was === "exhausted") await client.query(`CLOSE "${name}"`);
      return "closed";
    },
  };
}
