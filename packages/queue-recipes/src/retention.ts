import type { Executor, ModelClass } from "tempest-db-js";
import { ValidationError } from "tempest-db-js";
import type { PurgeOptions } from "./purge-settled.js";
import { purgeSettled } from "./purge-settled.js";
import { interruptibleSleep } from "./sleep.js";
import { valueKind } from "./value-kind.js";

/** Retention: which settled messages to delete, in what batches, and how often. */
export interface RetentionOptions extends Omit<PurgeOptions, "signal" | "limit"> {
  /** Seconds between two purges (default 60). A purge that is still running is never started twice. */
  readonly everySeconds?: number;
}

export interface RunRetentionOptions extends RetentionOptions {
  /** Stops the loop (between two batches of a purge, or while it waits). */
  readonly signal?: AbortSignal;
  /** Called after each purge with the rows it deleted. */
  readonly onPurge?: (deleted: number) => void;
  /** Called on each database error; the loop waits for its next turn and carries on. */
  readonly onError?: (error: unknown) => void;
}

function intervalMs(options: RetentionOptions): number {
  const every = options.everySeconds ?? 60;
  if (typeof every !== "number" || !(every > 0) || !Number.isFinite(every))
    throw new ValidationError(`retention: everySeconds must be a positive number, got ${valueKind(every)}`);
  return every * 1000;
}

/**
 * Runs `purgeSettled` beside a `work` loop: at most one purge at a time, started at most every
 * `everySeconds`, in the background so that claiming never waits for it. `stop()` ends a purge in
 * progress between two batches.
 */
export class RetentionRunner {
  readonly #db: Executor;
  readonly #model: ModelClass<any>;
  readonly #options: RetentionOptions;
  readonly #intervalMs: number;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #stop = new AbortController();
  #lastRun = Number.NEGATIVE_INFINITY;
  #running: Promise<void> | undefined;
  #fatal: unknown;
  /** Rows deleted by this runner so far. */
  purged = 0;

  constructor(db: Executor, model: ModelClass<any>, options: RetentionOptions, onError?: (error: unknown) => void) {
    this.#db = db;
    this.#model = model;
    this.#options = options;
    this.#intervalMs = intervalMs(options);
    this.#onError = onError;
  }

  /**
   * Starts a purge when one is due and none is running, and returns at once. Throws the
   * configuration error (a ValidationError) of an earlier purge: it does not heal with time.
   */
  poke(): void {
    if (this.#fatal !== undefined) throw this.#fatal;
    if (this.#running || this.#stop.signal.aborted || performance.now() - this.#lastRun < this.#intervalMs) return;
    this.#lastRun = performance.now();
    this.#running = purgeSettled(this.#db, this.#model, { ...this.#options, signal: this.#stop.signal })
      .then(
        (deleted) => {
          this.purged += deleted;
        },
        (error: unknown) => {
          if (ValidationError.isInstance(error)) this.#fatal = error;
          else this.#onError?.(error);
        },
      )
      .finally(() => {
        this.#running = undefined;
      });
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#running;
  }
}

/**
 * Retention on its own, outside any worker: `purgeSettled` every `everySeconds` until `signal`
 * aborts, for a process (or a cron-like job) that does nothing else. Resolves with the rows deleted.
 */
export async function runRetention(db: Executor, model: ModelClass<any>, options: RunRetentionOptions): Promise<number> {
  const every = intervalMs(options);
  const { signal, onPurge, onError, everySeconds: _every, ...purge } = options;
  let total = 0;
  while (!signal?.aborted) {
    try {
      const deleted = await purgeSettled(db, model, { ...purge, signal });
      total += deleted;
      onPurge?.(deleted);
    } catch (error) {
      if (ValidationError.isInstance(error)) throw error;
      onError?.(error);
    }
    if (signal?.aborted) break;
    await interruptibleSleep(every, signal).promise;
  }
  return total;
}
