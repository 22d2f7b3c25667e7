import type { Executor, ModelClass } from "tempest-db-js";
import type { BatchResult, BatchSettings } from "./deliver-batch.js";
import type { SettleResult } from "./fenced-update.js";
import { markFailed } from "./mark-failed.js";
import { markSent } from "./mark-sent.js";
import { requeue } from "./requeue.js";
import type { Serial } from "./serial.js";

type Claim = Record<string, unknown>;

/**
 * The outcomes of one claimed batch, waiting to be written: sent, to retry, failed, given back.
 * `flush()` settles what has been decided so far, one fenced statement per kind, through the
 * batch's `Serial` (so never at the same time as a lease renewal of the same rows). Normally a
 * batch is flushed once, when all of its deliveries are decided; once some overrun their timeout
 * the others are flushed as they finish, instead of waiting for the slowest.
 *
 * A claim is *held* — its lease renewed by the heartbeat — until it is settled here or given up.
 */
export class BatchSettler {
  readonly #db: Executor;
  readonly #model: ModelClass<any>;
  readonly #settings: BatchSettings;
  readonly #serial: Serial;
  readonly #sent: Claim[] = [];
  readonly #retry: Claim[] = [];
  readonly #failed: Claim[] = [];
  readonly #released: Claim[] = [];
  readonly #errors = new Map<object, unknown>();
  /** Claims settled or given up: no longer this worker's to renew. */
  readonly #done = new Set<object>();
  #applied = { sent: 0, retried: 0, failed: 0, stale: 0 };

  constructor(db: Executor, model: ModelClass<any>, settings: BatchSettings, serial: Serial) {
    this.#db = db;
    this.#model = model;
    this.#settings = settings;
    this.#serial = serial;
  }

  sent(claim: Claim): void {
    this.#sent.push(claim);
  }

  /** A failed delivery: queued again, or marked failed on its last attempt. */
  failed(claim: Claim, attempt: number, error: unknown): void {
    this.#settings.onDeliveryError?.(error, claim as never);
    this.#errors.set(claim, error);
    (attempt >= this.#settings.maxAttempts ? this.#failed : this.#retry).push(claim);
  }

  /** A claim past maxAttempts without a claim token: its last attempt's worker died; not tried again. */
  exhausted(claim: Claim): void {
    this.#failed.push(claim);
  }

  /** Given back without counting a failure (the worker is stopping). */
  release(claim: Claim): void {
    this.#released.push(claim);
  }

  /** The claim is someone else's now: nothing to write, counted stale. */
  lost(claim: Claim): void {
    this.#done.add(claim);
    this.#applied.stale++;
  }

  held(claim: object): boolean {
    return !this.#done.has(claim);
  }

  /**
   * Settles what is decided so far. A kind whose statement fails stays pending (the next flush
   * tries it again) and the error is rethrown; kinds already written stay written. `holdSent`
   * leaves the successes pending, for `takeSent()`.
   */
  flush(holdSent = false): Promise<void> {
    return this.#serial.run(async () => {
      const errorOf = this.#errors.size > 0 ? (claim: object) => this.#errors.get(claim) : undefined;
      const { db, model, settings } = { db: this.#db, model: this.#model, settings: this.#settings };
      if (!holdSent) await this.#write(this.#sent, "sent", (claims) => markSent(db, model, claims, settings));
      await this.#write(this.#retry, "retried", (claims) => requeue(db, model, claims, { ...settings, errorOf }));
      await this.#write(this.#failed, "failed", (claims) => markFailed(db, model, claims, { ...settings, errorOf }));
      await this.#write(this.#released, "retried", (claims) => requeue(db, model, claims, { ...settings, release: true }));
    });
  }

  /**
   * The successes not written yet, handed over to be marked sent by the caller (a fused cycle marks
   * them in the statement that claims the next batch). They are no longer held: not renewed.
   */
  takeSent(): Claim[] {
    const claims = this.#sent.splice(0);
    for (const claim of claims) this.#done.add(claim);
    return claims;
  }

  result(): BatchResult {
    return { ...this.#applied };
  }

  async #write(list: Claim[], kind: "sent" | "retried" | "failed", run: (claims: Claim[]) => Promise<SettleResult>): Promise<void> {
    if (list.length === 0) return;
    const claims = list.splice(0);
    let result: SettleResult;
    try {
      result = await run(claims);
    } catch (error) {
      list.unshift(...claims);
      throw error;
    }
    for (const claim of claims) this.#done.add(claim);
    this.#applied[kind] += result.applied;
    this.#applied.stale += result.stale;
  }
}
