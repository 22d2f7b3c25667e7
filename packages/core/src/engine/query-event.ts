import type { QueryError } from "../errors.js";

/** Emitted after every statement, for logging and metrics (`createEngine(url, { onQuery })`). */
export interface QueryEvent {
  readonly sql: string;
  /** The bound parameters, only when the engine was created with `logParams: true`. */
  readonly params: readonly unknown[] | undefined;
  readonly durationMs: number;
  /** Rows returned, or rows affected when none were returned. */
  readonly rowCount: number;
  /** Set when the statement failed. */
  readonly error: QueryError | undefined;
  /** The statement took at least `slowQueryMs`. */
  readonly slow: boolean;
  readonly inTransaction: boolean;
}
