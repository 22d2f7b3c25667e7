import { NoResultError, TooManyResultsError } from "../errors.js";

/** What `await db.execute(query)` resolves to. */
export interface ExecutedQuery<R> {
  /** The rows returned (empty for a statement that returns none). */
  readonly rows: R[];
  /** Rows inserted, updated or deleted (for a select: rows returned). */
  readonly rowsAffected: number;
}

/**
 * What `execute()` returns: awaiting it, or any accessor, runs the statement; it runs once, and
 * every later accessor (or await) reuses that run. Statements on the engine or a session run when
 * first awaited; on a transaction, `execute()` issues the statement at once (see `Transaction`).
 */
export class QueryResult<R> implements PromiseLike<ExecutedQuery<R>> {
  readonly #start: () => Promise<ExecutedQuery<R>> | ExecutedQuery<R>;
  /** The run: its promise, or its result when the statement ran at once (see Executor.runCompiled). */
  #run: Promise<ExecutedQuery<R>> | ExecutedQuery<R> | undefined;

  /** `start` runs the statement: a promise of its result, or the result itself when it ran at once. */
  constructor(start: () => Promise<ExecutedQuery<R>> | ExecutedQuery<R>) {
    this.#start = start;
  }

  /** A result whose statement is already under way (or done, its result given): nothing runs on first use. */
  static issued<R>(run: Promise<ExecutedQuery<R>> | ExecutedQuery<R>): QueryResult<R> {
    const result = new QueryResult<R>(startedElsewhere);
    result.#run = run;
    return result;
  }

  /**
   * `await db.execute(q)`: runs the statement (once) and resolves to its rows and row count. A
   * statement a synchronous driver ran at once still reaches the callbacks asynchronously.
   */
  // biome-ignore lint/suspicious/noThenProperty: a thenable on purpose, so that `await db.execute(q)` runs the statement.
  then<T1 = ExecutedQuery<R>, T2 = never>(
    onfulfilled?: ((value: ExecutedQuery<R>) => T1 | PromiseLike<T1>) | null,
    onrejected?: ((reason: unknown) => T2 | PromiseLike<T2>) | null,
  ): Promise<T1 | T2> {
    const run = this.#result();
    return (run instanceof Promise ? run : Promise.resolve(run)).then(onfulfilled, onrejected);
  }

  /** Runs the statement (once); a failure goes to `onrejected`, as with a promise. */
  catch<T = never>(onrejected?: ((reason: unknown) => T | PromiseLike<T>) | null): Promise<ExecutedQuery<R> | T> {
    return this.then(undefined, onrejected);
  }

  /** Runs the statement (once); `onfinally` runs whether it succeeded or failed, as with a promise. */
  finally(onfinally?: (() => void) | null): Promise<ExecutedQuery<R>> {
    return this.then().finally(onfinally);
  }

  /** The run, started on first use; never throws, a failure is a rejected promise. */
  #result(): Promise<ExecutedQuery<R>> | ExecutedQuery<R> {
    if (this.#run === undefined) {
      try {
        this.#run = this.#start();
      } catch (error) {
        this.#run = Promise.reject(error);
      }
    }
    return this.#run;
  }

  /** Every row. Mapped rather than awaited in an async frame: one promise and tick fewer. */
  all(): Promise<R[]> {
    const run = this.#result();
    return run instanceof Promise ? run.then(rowsOf) : Promise.resolve(run.rows);
  }

  /** The first row, or undefined. */
  first(): Promise<R | undefined> {
    const run = this.#result();
    return run instanceof Promise ? run.then(firstOf) : Promise.resolve(run.rows[0]);
  }

  /** Exactly one row: NoResultError on none, TooManyResultsError on several. */
  async one(): Promise<R> {
    const { rows } = await this.#result();
    if (rows.length === 0) throw new NoResultError("Expected one row, got none");
    if (rows.length > 1) throw new TooManyResultsError(rows.length);
    return rows[0] as R;
  }

  /** One row or null: TooManyResultsError on several. */
  async oneOrNull(): Promise<R | null> {
    const { rows } = await this.#result();
    if (rows.length > 1) throw new TooManyResultsError(rows.length);
    return rows[0] ?? null;
  }

  /** The first column of the first row (undefined when there is no row). */
  async scalar(): Promise<R[keyof R] | undefined> {
    const row = (await this.#result()).rows[0];
    if (row === undefined || row === null) return undefined;
    const values = Object.values(row as object);
    return values[0] as R[keyof R];
  }

  /** The first column of every row. */
  async scalars(): Promise<R[keyof R][]> {
    const { rows } = await this.#result();
    const out = new Array<R[keyof R]>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as Record<string, unknown>;
      let first: unknown;
      for (const key in row) {
        first = row[key];
        break;
      }
      out[i] = first as R[keyof R];
    }
    return out;
  }

  /** Rows inserted, updated or deleted (for a select: rows returned). */
  rowsAffected(): Promise<number> {
    const run = this.#result();
    return run instanceof Promise ? run.then(affectedOf) : resolvedCount(run.rowsAffected);
  }
}

/**
 * The counts a row-at-a-time statement reports, as promises made once: a settled promise cannot
 * change, so every result that ran at once can share one instead of making its own for each row.
 */
const ZERO = Promise.resolve(0);
const ONE = Promise.resolve(1);

function resolvedCount(count: number): Promise<number> {
  return count === 1 ? ONE : count === 0 ? ZERO : Promise.resolve(count);
}

function startedElsewhere(): never {
  throw new Error("unreachable: an issued QueryResult has its run");
}

const rowsOf = <R>(result: ExecutedQuery<R>): R[] => result.rows;
const firstOf = <R>(result: ExecutedQuery<R>): R | undefined => result.rows[0];
const affectedOf = (result: ExecutedQuery<unknown>): number => result.rowsAffected;
