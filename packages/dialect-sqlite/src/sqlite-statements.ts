import type Database from "better-sqlite3";

type Statement = Database.Statement<unknown[], unknown>;

/** A prepared statement with what each run asks of it, read from plain fields rather than the native object. */
export interface CachedStatement {
  readonly statement: Statement;
  /** Whether it returns rows (better-sqlite3's `reader`). */
  readonly reader: boolean;
  /** The safe-integer (1) and raw-row (2) modes it was last set to; -1 before its first run. */
  mode: number;
}

/**
 * The prepared statements of one connection by SQL text, at most `capacity`, least recently used
 * dropped first. A statement run again and again (the row-at-a-time loop) is found without reordering.
 */
export class SqliteStatements {
  readonly capacity: number;
  /** Insertion order is recency order: a hit moves its entry to the end. */
  readonly #entries = new Map<string, CachedStatement>();
  /** The most recently used entry: already last in #entries, so a repeat needs no lookup at all. */
  #lastSql: string | undefined;
  #last: CachedStatement | undefined;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The cached statement for `sql`, prepared on `db` when new; undefined when `sql` holds several statements. */
  get(db: Database.Database, sql: string): CachedStatement | undefined {
    if (sql === this.#lastSql) return this.#last;
    const cached = this.#entries.get(sql);
    if (cached) {
      this.#entries.delete(sql);
      this.#entries.set(sql, cached);
      this.#lastSql = sql;
      this.#last = cached;
      return cached;
    }
    let statement: Statement;
    try {
      statement = db.prepare<unknown[], unknown>(sql);
    } catch (error) {
      if (error instanceof RangeError && /more than one statement/i.test(error.message)) return undefined;
      throw error;
    }
    const entry: CachedStatement = { statement, reader: statement.reader, mode: -1 };
    this.#entries.set(sql, entry);
    this.#lastSql = sql;
    this.#last = entry;
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    return entry;
  }

  clear(): void {
    this.#entries.clear();
    this.#lastSql = undefined;
    this.#last = undefined;
  }
}

/**
 * Sets the statement's safe-integer mode and, for one that returns rows, its raw-row (array) mode.
 * Each switch is a native call, so it is made only when the statement last ran in another mode.
 */
export function setModes(entry: CachedStatement, safeIntegers: boolean, rawRows: boolean): void {
  const raw = rawRows && entry.reader;
  const mode = (safeIntegers ? 1 : 0) | (raw ? 2 : 0);
  if (entry.mode === mode) return;
  entry.statement.safeIntegers(safeIntegers);
  if (entry.reader) entry.statement.raw(raw);
  entry.mode = mode;
}
