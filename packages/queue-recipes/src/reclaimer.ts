import type { Executor, ModelClass } from "tempest-db-js";
import type { ReclaimOptions } from "./reclaim-expired.js";
import { reclaimExpired } from "./reclaim-expired.js";

/**
 * Runs `reclaimExpired` for a drain: at once when asked, otherwise at most every half lease, and
 * never twice at the same time when several lanes ask together.
 */
export class Reclaimer {
  readonly #db: Executor;
  readonly #model: ModelClass<any>;
  readonly #options: ReclaimOptions;
  readonly #intervalMs: number;
  #lastRun = Number.NEGATIVE_INFINITY;
  #running: Promise<number> | undefined;

  constructor(db: Executor, model: ModelClass<any>, options: ReclaimOptions) {
    this.#db = db;
    this.#model = model;
    this.#options = options;
    this.#intervalMs = Math.max(100, (options.leaseSeconds * 1000) / 2);
  }

  whenDue(): Promise<number> {
    return performance.now() - this.#lastRun >= this.#intervalMs ? this.now() : Promise.resolve(0);
  }

  now(): Promise<number> {
    if (this.#running) return this.#running.then(() => 0);
    this.#lastRun = performance.now();
    this.#running = reclaimExpired(this.#db, this.#model, this.#options).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }
}
