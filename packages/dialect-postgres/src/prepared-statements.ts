import type pg from "pg";

/** Distinct SQL texts remembered as "seen once" before the set is cleared. */
const SEEN_LIMIT = 1000;

/** pg's per-connection record of the statements it has parsed (internal, checked before use). */
interface ParsedStatements {
  parsedStatements?: Record<string, string>;
}

/**
 * Which statements run as named (server-side) prepared statements, and on which connections.
 *
 * - A SQL text gets a name the second time the driver sees it, so one-off statements are never
 *   prepared. Names come from a counter and are never reused for another text.
 * - Each connection keeps at most `perConnection` of them, least recently used dropped first with a
 *   `DEALLOCATE`, so the server's memory per connection stays bounded.
 * - When a prepared statement went stale (a table was dropped and recreated with other types: the
 *   result type changed, or the parameter types it was prepared with no longer fit), the text gets
 *   a new name, so the next run prepares it afresh; outside a transaction the driver also runs the
 *   failed statement once more, unnamed (see PostgresConnection.query).
 */
export class PreparedStatements {
  readonly perConnection: number;
  /** DEALLOCATE the least recently used statement when a connection's cache is full (false: run new texts unnamed). */
  readonly evict: boolean;
  readonly #names = new Map<string, string>();
  readonly #seen = new Set<string>();
  readonly #byClient = new WeakMap<pg.PoolClient, Map<string, true>>();
  #next = 0;

  constructor(perConnection: number, evict = true) {
    this.perConnection = perConnection;
    this.evict = evict;
  }

  /** The name to run `sql` under on `client`, or undefined to run it unnamed. */
  nameFor(client: pg.PoolClient, sql: string): string | undefined {
    let name = this.#names.get(sql);
    if (name === undefined) {
      if (!this.#seen.has(sql)) {
        if (this.#seen.size >= SEEN_LIMIT) this.#seen.clear();
        this.#seen.add(sql);
        return undefined;
      }
      this.#seen.delete(sql);
      name = `tempest_${++this.#next}`;
      // The name table is bounded like the connections' caches; a dropped text gets a new name later.
      if (this.#names.size >= this.perConnection * 4) {
        const oldest = this.#names.keys().next().value;
        if (oldest !== undefined) this.#names.delete(oldest);
      }
      this.#names.set(sql, name);
    }
    let held = this.#byClient.get(client);
    if (!held) {
      held = new Map();
      this.#byClient.set(client, held);
    }
    if (held.has(name)) {
      // Most recently used last.
      held.delete(name);
      held.set(name, true);
      return name;
    }
    const parsed = (client as unknown as { connection?: ParsedStatements }).connection?.parsedStatements;
    if (held.size >= this.perConnection && !this.evict) return undefined;
    if (held.size >= this.perConnection) {
      // Without pg's record of parsed statements an evicted name could not be prepared again: stop naming.
      if (typeof parsed !== "object" || parsed === null) return undefined;
      const oldest = held.keys().next().value as string;
      held.delete(oldest);
      // Queued on the client before the statement that follows, so the server drops it first. pg
      // forgets the name only once the server has: statements queued earlier under it (concurrent
      // ones in a transaction) must not parse it again, nor a parse still in flight record it anew.
      // The callback runs before pg sends the next queued statement.
      client.query(`DEALLOCATE "${oldest}"`, (error) => {
        if (!error) delete parsed[oldest];
      });
    }
    held.set(name, true);
    return name;
  }

  /**
   * The server refused `sql`'s prepared statement (its plan went stale, or the name is not what pg
   * believes): give the text a fresh name, prepared on first use. The old name stays in the
   * connections' caches until it is evicted like any other.
   */
  rename(sql: string): void {
    if (this.#names.delete(sql)) this.#seen.add(sql);
  }
}

/**
 * 26000: no such prepared statement; 42P05: the name already exists (a DEALLOCATE failed). And what
 * parameter types fixed at PREPARE answer once the table's columns have other types: 42804 (datatype
 * mismatch), 42883 (no operator for the old type), 42P18 (indeterminate type).
 */
const STALE_CODES: ReadonlySet<string> = new Set(["26000", "42P05", "42804", "42883", "42P18"]);

/**
 * The server errors of a named statement that mean it must be parsed again, under a new name: the
 * ones above, "cached plan must not change result type" (0A000), and data exceptions (class 22: a
 * value read as the type a parameter was prepared with, `date/time field value out of range: "0"`
 * for an integer bound where a timestamp was). A genuine data error only costs the name.
 */
export function isStalePlan(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  const code = e?.code;
  if (typeof code !== "string") return false;
  if (STALE_CODES.has(code) || code.startsWith("22")) return true;
  return code === "0A000" && typeof e.message === "string" && /cached plan must not change result type/.test(e.message);
}

/**
 * Whether a statement that just failed on `client` may run again: only when the connection is idle
 * outside a transaction ("I"), so the failed statement was its own transaction, rolled back whole,
 * and nothing else was lost with it. In a transaction the server has aborted it ("E"): the caller's
 * rollback decides, and a retry would only fail with 25P02.
 */
export function mayRetry(client: unknown): boolean {
  const status = (client as { getTransactionStatus?: () => unknown }).getTransactionStatus;
  return typeof status === "function" && status.call(client) === "I";
}
