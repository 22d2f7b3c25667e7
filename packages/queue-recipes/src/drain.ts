import type { Executor, InferModel, ModelClass } from "tempest-db-js";
import { ValidationError } from "tempest-db-js";
import type { Backoff } from "./backoff.js";
import type { ClaimOptions } from "./claim-batch.js";
import { claimBatch } from "./claim-batch.js";
import { markFailed } from "./mark-failed.js";
import { markSent } from "./mark-sent.js";
import type { QueueOptions } from "./queue-options.js";
import { queueTable } from "./queue-table.js";
import { Reclaimer } from "./reclaimer.js";
import { requeue } from "./requeue.js";

export interface DeliveryContext {
  /** 1 on the first attempt. */
  readonly attempt: number;
  /** Aborted when the caller stops the drain. Deliveries in flight are still awaited and settled. */
  readonly signal: AbortSignal | undefined;
  /**
   * Aborted when `deliveryTimeoutMs` runs out (undefined without one). The message is then retried,
   * so a delivery that cannot stop in time may happen twice: stop the work when this fires.
   */
  readonly timeout: AbortSignal | undefined;
}

/** Sends one message. Resolving means delivered; throwing means retry later (or fail after maxAttempts). */
export type Deliver<M extends ModelClass<any>> = (message: InferModel<M>, context: DeliveryContext) => unknown;

export interface DrainOptions<M extends ModelClass<any> = ModelClass<any>> extends QueueOptions {
  /** Messages per claim (default 10). */
  readonly batchSize?: number;
  /** Claims worked on at once by this call; deliveries in flight ≤ batchSize × concurrency (default 1). */
  readonly concurrency?: number;
  /** Attempts before a message is marked `failed` (default 10). */
  readonly maxAttempts?: number;
  /** Delay before a failed message is tried again (default: exponential from 1 s, capped at 1 h, 50% jitter). */
  readonly backoff?: Backoff;
  /** Seconds a claim may stay in `sending` before it is presumed dead and reclaimed (default 300). Longer than your slowest delivery. */
  readonly leaseSeconds?: number;
  /** Only work on these consumers' messages. */
  readonly consumer?: string | readonly string[];
  /** Stop claiming; batches in flight are finished. */
  readonly signal?: AbortSignal;
  /**
   * A delivery still pending after this many milliseconds counts as failed (and is retried). The
   * call itself cannot be cancelled: if it completes later, the message may be delivered twice.
   * Default: no timeout — then keep `deliver` bounded yourself, or a hung call holds its batch.
   */
  readonly deliveryTimeoutMs?: number;
  /** Called for each failed delivery (the message is retried or failed either way). */
  readonly onDeliveryError?: (error: unknown, message: InferModel<M>) => void;
}

export interface DrainResult {
  readonly sent: number;
  /** Deliveries that failed and were queued again. */
  readonly retried: number;
  /** Messages marked `failed` after maxAttempts. */
  readonly failed: number;
  /** Settlements that did not apply because the claim had been reclaimed meanwhile. */
  readonly stale: number;
  /** Expired claims this call put back in the queue. */
  readonly reclaimed: number;
}

/**
 * Claims and delivers messages until nothing is due, then returns the counts. Successes are marked
 * `sent` in one statement per batch; failures are queued again with backoff, or marked `failed`
 * once `maxAttempts` is reached. Every settlement is fenced by the claim's attempts value.
 */
export async function drain<M extends ModelClass<any>>(
  db: Executor,
  model: M,
  deliver: Deliver<M>,
  options: DrainOptions<M> = {},
): Promise<DrainResult> {
  const batchSize = positive(options.batchSize ?? 10, "batchSize");
  const concurrency = positive(options.concurrency ?? 1, "concurrency");
  const maxAttempts = positive(options.maxAttempts ?? 10, "maxAttempts");
  const leaseSeconds = options.leaseSeconds ?? 300;
  if (typeof deliver !== "function") throw new ValidationError("drain: deliver must be a function");
  queueTable(model, options);
  const totals = { sent: 0, retried: 0, failed: 0, stale: 0, reclaimed: 0 };
  const reclaimer = new Reclaimer(db, model, { ...options, leaseSeconds });
  // A lane that fails stops the others from claiming; they finish their batches before drain rejects,
  // so that no batch is left half-settled behind a caller that has moved on.
  const failure = new AbortController();
  let firstError: unknown;

  // Made once per drain, not per batch.
  const claimOptions: ClaimOptions = { ...options, size: batchSize };
  const settleOptions = { ...(options as DrainOptions<any>), maxAttempts };

  async function lane(): Promise<void> {
    while (!options.signal?.aborted && !failure.signal.aborted) {
      totals.reclaimed += await reclaimer.whenDue();
      const batch = (await claimBatch(db, model, claimOptions)) as Record<string, unknown>[];
      if (batch.length === 0) {
        // Before concluding that nothing is due, give crashed workers' claims a chance.
        const reclaimed = await reclaimer.now();
        totals.reclaimed += reclaimed;
        if (reclaimed > 0) continue;
        return;
      }
      const result = await settleBatch(db, model, deliver, batch, settleOptions);
      totals.sent += result.sent;
      totals.retried += result.retried;
      totals.failed += result.failed;
      totals.stale += result.stale;
    }
  }

  await Promise.all(
    Array.from({ length: concurrency }, () =>
      lane().catch((error: unknown) => {
        if (!failure.signal.aborted) firstError = error;
        failure.abort();
      }),
    ),
  );
  if (failure.signal.aborted) throw firstError;
  return totals;
}

/** Delivers a claimed batch concurrently and settles it: sent, requeued or failed, each in one fenced statement. */
async function settleBatch(
  db: Executor,
  model: ModelClass<any>,
  deliver: Deliver<any>,
  batch: readonly Record<string, unknown>[],
  options: DrainOptions<any> & { maxAttempts: number },
): Promise<Omit<DrainResult, "reclaimed">> {
  const q = queueTable(model, options);
  const sent: Record<string, unknown>[] = [];
  const retry: Record<string, unknown>[] = [];
  const failed: Record<string, unknown>[] = [];
  const failedDelivery = (message: Record<string, unknown>, attempt: number, error: unknown) => {
    options.onDeliveryError?.(error, message as never);
    (attempt >= options.maxAttempts ? failed : retry).push(message);
  };
  // Deliveries start together; a synchronous deliver settles at once, without a promise of its own.
  const pending: Promise<void>[] = [];
  for (const message of batch) {
    const attempt = Number(message[q.f.attempts]);
    // A claim past maxAttempts is one whose last attempt's worker died: it is not tried again.
    if (attempt > options.maxAttempts) {
      failed.push(message);
      continue;
    }
    const timeout = options.deliveryTimeoutMs === undefined ? undefined : new AbortController();
    let outcome: unknown;
    try {
      outcome = deliver(message as never, { attempt, signal: options.signal, timeout: timeout?.signal });
    } catch (error) {
      failedDelivery(message, attempt, error);
      continue;
    }
    if (!isThenable(outcome) && timeout === undefined) {
      sent.push(message);
      continue;
    }
    pending.push(
      withTimeout(Promise.resolve(outcome), options.deliveryTimeoutMs, timeout).then(
        () => void sent.push(message),
        (error: unknown) => failedDelivery(message, attempt, error),
      ),
    );
  }
  if (pending.length > 0) await Promise.all(pending);
  const s = sent.length > 0 ? await markSent(db, model, sent, options) : { applied: 0, stale: 0 };
  const r = retry.length > 0 ? await requeue(db, model, retry, options) : { applied: 0, stale: 0 };
  const f = failed.length > 0 ? await markFailed(db, model, failed, options) : { applied: 0, stale: 0 };
  return { sent: s.applied, retried: r.applied, failed: f.applied, stale: s.stale + r.stale + f.stale };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === "function"
  );
}

function positive(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new ValidationError(`drain: ${name} must be a positive integer, got ${String(value)}`);
  return value;
}

function withTimeout<T>(promise: Promise<T>, ms: number | undefined, controller: AbortController | undefined): Promise<T> {
  if (ms === undefined) return promise;
  let timer: NodeJS.Timeout | undefined;
  let timedOut: Error | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = new Error(`delivery timed out after ${ms} ms`);
      reject(timedOut);
      // A delivery that settles when told to stop has still timed out: the flag decides, not the race.
      controller?.abort(timedOut);
    }, ms);
  });
  return Promise.race([promise, timeout])
    .then((value) => {
      if (timedOut) throw timedOut;
      return value;
    })
    .finally(() => clearTimeout(timer));
}
