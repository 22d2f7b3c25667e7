import { claimBatch, markSent } from "@tempest-db-js/queue-recipes";
import type { Engine } from "tempest-db-js";
import type { QueueModel } from "./models.js";

/**
 * Workers that drain a queue table at full speed (claim a batch, mark it sent, claim again) and
 * record when each claim returned, so that a caller can ask for the longest gap between two
 * successive claims (of any worker) over a window: how long the queue stood still.
 */
export class ClaimGapRecorder {
  readonly #claims: number[] = [];
  readonly #stop = new AbortController();
  #lanes: Promise<void>[] = [];
  #errors: unknown[] = [];
  /** Claims that found no due row. */
  emptyClaims = 0;
  /** Settles that failed (see #lane). */
  settleErrors = 0;

  constructor(
    private readonly engine: Engine,
    private readonly Job: QueueModel,
    private readonly workers: number,
    private readonly batch: number,
  ) {}

  start(): void {
    this.#lanes = Array.from({ length: this.workers }, () => this.#lane());
  }

  async #lane(): Promise<void> {
    while (!this.#stop.signal.aborted) {
      try {
        const rows = await claimBatch(this.engine, this.Job, { size: this.batch });
        this.#claims.push(performance.now());
        // An empty claim still takes the table's ROW EXCLUSIVE lock, so it still shows whether a
        // migration blocks claims; it is counted (a small quick-mode queue can run dry).
        if (rows.length === 0) {
          this.emptyClaims++;
          continue;
        }
        // A settle the migration broke (the model's old column type against the new one) is counted,
        // not fatal: what the bench measures is whether claims go on.
        await markSent(this.engine, this.Job, rows).catch(() => {
          this.settleErrors++;
        });
      } catch (error) {
        this.#errors.push(error);
        return;
      }
    }
  }

  /** Claims that returned so far. */
  get claims(): number {
    return this.#claims.length;
  }

  /**
   * The longest time, in ms, in [from, to] during which no claim returned: between two successive
   * claims, or from `from` to the first claim, or from the last claim to `to`.
   */
  longestGap(from: number, to: number): number {
    let previous = from;
    let longest = 0;
    for (const at of this.#claims) {
      if (at < from) continue;
      if (at > to) break;
      longest = Math.max(longest, at - previous);
      previous = at;
    }
    return Math.max(longest, to - previous);
  }

  /** How many times in [from, to] no claim returned for longer than `ms` (between successive claims). */
  gapsOver(from: number, to: number, ms: number): number {
    let previous = from;
    let count = 0;
    for (const at of this.#claims) {
      if (at < from) continue;
      if (at > to) break;
      if (at - previous > ms) count++;
      previous = at;
    }
    return count + (to - previous > ms ? 1 : 0);
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await Promise.all(this.#lanes);
    if (this.#errors.length > 0) throw this.#errors[0];
  }
}
