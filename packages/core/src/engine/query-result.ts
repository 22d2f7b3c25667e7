import { NoResultError, TooManyResultsError } from "../errors.js";

export interface ExecutedQuery<R> {
  readonly rows: R[];
  readonly rowsAffected: number;
}

/**
 * What `execute()` returns. The statement runs once, when the first accessor is awaited; later
 * accessors reuse that run.
 */
export class QueryResult<R> {
  readonly #start: () => Promise<ExecutedQuery<R>> | ExecutedQuery<R>;
  /** The run: its promise, or its result when the statement ran at once (see Executor.runCompiled). */
  #run: Promise<ExecutedQuery<R>> | ExecutedQuery<R> | undefined;

  /** `start` runs the statement: a promise of its result, or the result itself when it ran at once. */
  constructor(start: () => Promise<ExecutedQuery<R>> | ExecutedQuery<R>) {
    this.#start = start;
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

  /** Rows inserted, updated or deleted (for a select: rows returned). */
  rowsAffected(): Promise<number> {
    const run = this.#result();
    return run instanceof Promise ? run.then(affectedOf) : Promise.resolve(run.rowsAffected);
  }
}

const rowsOf = <R>(result: ExecutedQuery<R>): R[] => result.rows;
const firstOf = <R>(result: ExecutedQuery<R>): R | undefined => result.rows[0];
const affectedOf = (result: ExecutedQuery<unknown>): number => result.rowsAffected;
