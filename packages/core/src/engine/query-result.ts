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
  readonly #start: () => Promise<ExecutedQuery<R>>;
  #run: Promise<ExecutedQuery<R>> | undefined;

  constructor(start: () => Promise<ExecutedQuery<R>>) {
    this.#start = start;
  }

  #result(): Promise<ExecutedQuery<R>> {
    this.#run ??= this.#start();
    return this.#run;
  }

  /** Every row. */
  async all(): Promise<R[]> {
    return (await this.#result()).rows;
  }

  /** The first row, or undefined. */
  async first(): Promise<R | undefined> {
    return (await this.#result()).rows[0];
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
  async rowsAffected(): Promise<number> {
    return (await this.#result()).rowsAffected;
  }
}
