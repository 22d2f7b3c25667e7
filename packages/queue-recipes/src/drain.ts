import type { Executor, InferModel, ModelClass } from "tempest-db-js";
import { ValidationError } from "tempest-db-js";
import type { Backoff } from "./backoff.js";
import type { ClaimOptions } from "./claim-batch.js";
import { claimBatch } from "./claim-batch.js";
import type { BatchResult, BatchSettings } from "./deliver-batch.js";
import { deliverBatch } from "./deliver-batch.js";
import type { Deliver, DeliveryAbortError } from "./delivery.js";
import type { SettleResult } from "./fenced-update.js";
import { isolateSuspect } from "./isolate-suspect.js";
import { markSent } from "./mark-sent.js";
import type { QueueEvent } from "./queue-event.js";
import { emitEvent } from "./queue-event.js";
import type { QueueOptions } from "./queue-options.js";
import { queueTable } from "./queue-table.js";
import { Reclaimer } from "./reclaimer.js";
import { Serial } from "./serial.js";
import { checkFusable, settleAndClaim } from "./settle-and-claim.js";
import { valueKind } from "./value-kind.js";

export interface DrainOptions<M extends ModelClass<any> = ModelClass<any>> extends QueueOptions {
  /** Messages per claim (default 10). */
  readonly batchSize?: number;
  /** Claims worked on at once by this call; deliveries in flight ≤ batchSize × concurrency (default 1). */
  readonly concurrency?: number;
  /** Attempts before a message is marked `failed` (default 10). */
  readonly maxAttempts?: number;
  /** Delay before a failed message is tried again (default: exponential from 1 s, capped at 1 h, 50% jitter). */
  readonly backoff?: Backoff;
  /**
   * Seconds a claim stays leased (default 300). While a delivery runs its lease is renewed every
   * third of this (the heartbeat); a claim whose lease ran out — its worker crashed, hung or lost its
   * connection — is reclaimed by the next drain that looks.
   */
  readonly leaseSeconds?: number;
  /**
   * Renew the lease of deliveries in flight every `leaseSeconds / 3` (default true). A renewal that
   * finds the claim gone, or none succeeding for two thirds of the lease, aborts the delivery's
   * `signal` and skips its settlement (counted `stale`). Off, nothing keeps a claim past its lease: a
   * delivery still running when the lease runs out may overlap the next delivery of its message, and
   * by default it is given up then (`deliveryHardTimeoutMs`).
   */
  readonly heartbeat?: boolean;
  /**
   * With the `reclaims` column (the dead-letter feature): lease expiries after which a message goes
   * to the dead-letter state instead of back to the queue (default 5). See `reclaimExpired`.
   */
  readonly maxReclaims?: number;
  /** Only work on these consumers' messages. */
  readonly consumer?: string | readonly string[];
  /** Fair claims across consumers (see ClaimOptions.perConsumer): every consumer's first message before any's second. */
  readonly perConsumer?: number;
  /**
   * The fused cycle (PostgreSQL): a batch's successes are marked sent by the statement that claims
   * the next batch — one round trip per batch instead of two (see `settleAndClaim`). Failures are
   * still requeued / failed first, with their backoff and error. Refused by name on a dialect
   * without data-modifying CTEs (MySQL/MariaDB, SQLite), and with `perConsumer` or a priority
   * column, whose claims are several statements. Default false.
   */
  readonly fused?: boolean;
  /** Stop claiming; deliveries in flight get `stopTimeoutMs` to finish, and are settled. */
  readonly signal?: AbortSignal;
  /**
   * How long deliveries in flight are waited for once `signal` aborts (default 10 000 ms). Then
   * their `context.signal` aborts (reason `stopping`), their messages are given back to the queue,
   * due at once, without counting a failure, and the drain returns without waiting any longer.
   */
  readonly stopTimeoutMs?: number;
  /**
   * How long a delivery may take before it is told to stop: its `context.signal` aborts (reason
   * `timeout`), `onDeliveryTimeout` is called and the error is written to `lastError` where the table
   * has it. Default: two thirds of the lease (200 s for the default lease), so that even without the
   * heartbeat a delivery is told to stop before its lease can run out. `Infinity` for none.
   *
   * JavaScript cannot stop the handler, so the timeout does not decide the outcome: the claim stays
   * held (the heartbeat renews it) until the handler returns, and what it returns decides — resolving
   * marks the message `sent` (it was delivered; retrying it would deliver it twice), rejecting is a
   * failure like any other. Only `deliveryHardTimeoutMs` gives a delivery up.
   */
  readonly deliveryTimeoutMs?: number;
  /**
   * A delivery still running this many milliseconds after it started is given up: counted as a
   * failure (retried with backoff, or marked `failed` on its last attempt, with the error in
   * `lastError`), its lease no longer renewed, and whatever it returns later is ignored — from then
   * on another worker may take the message while it still runs. At least `deliveryTimeoutMs`.
   * Default: `deliveryTimeoutMs` plus one hour with the heartbeat (as River's stuck-job rescue);
   * without it, the lease (nothing keeps the claim longer), or `deliveryTimeoutMs` if that is longer.
   */
  readonly deliveryHardTimeoutMs?: number;
  /** Called for each failed delivery (the message is retried or failed either way). */
  readonly onDeliveryError?: (error: unknown, message: InferModel<M>) => void;
  /**
   * Called when a delivery's `deliveryTimeoutMs` runs out while it is still running, with the
   * `DeliveryAbortError` its signal aborted with. It may still succeed; errors thrown here are ignored.
   */
  readonly onDeliveryTimeout?: (error: DeliveryAbortError, message: InferModel<M>) => void;
  /** Called when a lease renewal fails (it is tried again; the delivery stops if none succeeds in time). */
  readonly onHeartbeatError?: (error: unknown) => void;
  /**
   * Called for each claim, reclaim and settled batch, with its counts and duration: the hook for
   * metrics and traces (see `QueueEvent`). Runs inline on the worker's path, so keep it cheap; what
   * it throws is ignored.
   */
  readonly onEvent?: (event: QueueEvent) => void;
}

export interface DrainResult {
  readonly sent: number;
  /** Deliveries that failed and were queued again (or were given back on stop, see `stopTimeoutMs`). */
  readonly retried: number;
  /** Messages marked `failed` after maxAttempts. */
  readonly failed: number;
  /** Claims that were no longer this worker's when settled, or whose lease was lost mid-delivery. */
  readonly stale: number;
  /** Expired claims this call put back in the queue. */
  readonly reclaimed: number;
}

/**
 * Claims and delivers messages until nothing is due, then returns the counts. Successes are marked
 * `sent` in one statement per batch; failures are queued again with backoff, or marked `failed`
 * once `maxAttempts` is reached. Every settlement and lease renewal is fenced by the claim's token.
 */
export function drain<M extends ModelClass<any>>(
  db: Executor,
  model: M,
  deliver: Deliver<M>,
  options: DrainOptions<M> = {},
): Promise<DrainResult> {
  return drainRound(db, model, deliver, options, undefined, false);
}

/**
 * `drain`, with the reclaimer of a loop that drains again and again (`work`): expired claims are
 * then looked for when its interval (half a lease) is due, not at the start and the end of every
 * round — a round per wake-up would otherwise put a reclaim transaction in front of every claim,
 * and in the enqueue → deliver latency.
 *
 * `shortBatchEnds`: the caller is woken by a notification for anything enqueued from now on (`work`
 * while it listens), so a batch shorter than `batchSize` — nothing else was due when it was claimed —
 * ends the lane once settled, without the claim that would find nothing: one statement fewer per
 * wake-up, which a notification arriving meanwhile would otherwise wait behind. A fused lane settles
 * such a batch with a plain markSent. Plain claims only (no `perConsumer`, no priority column).
 */
export async function drainRound<M extends ModelClass<any>>(
  db: Executor,
  model: M,
  deliver: Deliver<M>,
  options: DrainOptions<M>,
  loopReclaimer: Reclaimer | undefined,
  shortBatchEnds: boolean,
): Promise<DrainResult> {
  const batchSize = positive(options.batchSize ?? 10, "batchSize");
  const concurrency = positive(options.concurrency ?? 1, "concurrency");
  const maxAttempts = positive(options.maxAttempts ?? 10, "maxAttempts");
  const leaseSeconds = options.leaseSeconds ?? 300;
  if (typeof leaseSeconds !== "number" || !(leaseSeconds > 0) || !Number.isFinite(leaseSeconds))
    throw new ValidationError(`drain: leaseSeconds must be a positive number, got ${valueKind(leaseSeconds)}`);
  const leaseMs = leaseSeconds * 1000;
  const deliveryTimeoutMs = options.deliveryTimeoutMs ?? (leaseMs * 2) / 3;
  if (typeof deliveryTimeoutMs !== "number" || !(deliveryTimeoutMs > 0))
    throw new ValidationError(`drain: deliveryTimeoutMs must be a positive number or Infinity, got ${valueKind(deliveryTimeoutMs)}`);
  const heartbeat = options.heartbeat ?? true;
  const deliveryHardTimeoutMs =
    options.deliveryHardTimeoutMs ?? (heartbeat ? deliveryTimeoutMs + 3_600_000 : Math.max(deliveryTimeoutMs, leaseMs));
  if (typeof deliveryHardTimeoutMs !== "number" || !(deliveryHardTimeoutMs >= deliveryTimeoutMs))
    throw new ValidationError(`drain: deliveryHardTimeoutMs must be a number ≥ deliveryTimeoutMs, got ${valueKind(deliveryHardTimeoutMs)}`);
  const stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
  if (typeof stopTimeoutMs !== "number" || !(stopTimeoutMs >= 0) || !Number.isFinite(stopTimeoutMs))
    throw new ValidationError(`drain: stopTimeoutMs must be a number ≥ 0, got ${valueKind(stopTimeoutMs)}`);
  if (typeof deliver !== "function") throw new ValidationError("drain: deliver must be a function");
  const q = queueTable(model, options);
  const totals = { sent: 0, retried: 0, failed: 0, stale: 0, reclaimed: 0 };
  const reclaimer = loopReclaimer ?? new Reclaimer(db, model, { ...options, leaseSeconds });
  // A lane that fails stops the others from claiming; they finish their batches before drain rejects,
  // so that no batch is left half-settled behind a caller that has moved on.
  const failure = new AbortController();
  let firstError: unknown;

  // Made once per drain, not per batch.
  const claimOptions: ClaimOptions = { ...options, size: batchSize };
  // Where the database takes one writer at a time (SQLite: one connection per engine), the lanes
  // take turns for their claims and settlements instead of queueing for the connection: a lane's
  // statement issued while another lane's claim transaction is open would wait for the connection
  // (a pooled acquire, and the engine's look for a statement inside its own transaction callback),
  // where its turn finds the connection idle and runs at once. Nothing runs less in parallel: the
  // database ran these one at a time anyway. Deliveries still overlap.
  const turn = db.capabilities.serializedWrites && !db.capabilities.rowLocks ? new Serial() : undefined;
  const fused = options.fused === true;
  if (fused) checkFusable(db, q, claimOptions, "drain");
  // Only the plain claim takes every due message up to the size: a fair or priority claim may leave some.
  const endsShort = shortBatchEnds && options.perConsumer === undefined && !q.has.priority;
  const settings: BatchSettings = {
    ...(options as QueueOptions),
    maxAttempts,
    leaseMs,
    heartbeat,
    deliveryTimeoutMs,
    deliveryHardTimeoutMs,
    stopTimeoutMs,
    signal: options.signal,
    backoff: options.backoff,
    onDeliveryError: options.onDeliveryError as BatchSettings["onDeliveryError"],
    onDeliveryTimeout: options.onDeliveryTimeout as BatchSettings["onDeliveryTimeout"],
    onHeartbeatError: options.onHeartbeatError,
    holdSent: fused,
    turn,
  };

  const { onEvent } = options;
  async function reclaim(due: boolean): Promise<number> {
    const startedAt = performance.now();
    const count = await (due ? reclaimer.whenDue() : reclaimer.now());
    totals.reclaimed += count;
    if (count > 0) emitEvent(onEvent, { kind: "reclaim", count, durationMs: performance.now() - startedAt });
    return count;
  }

  async function lane(): Promise<void> {
    // The batch the last fused statement claimed, and when that statement was sent.
    let next: Record<string, unknown>[] | undefined;
    let nextAt = 0;
    while (!options.signal?.aborted && !failure.signal.aborted) {
      await reclaim(true);
      let claimedAt = nextAt;
      let batch = next;
      next = undefined;
      if (batch === undefined) {
        const claim = () => {
          // When the statement is sent (after waiting for the turn): the lease runs from here.
          claimedAt = performance.now();
          return claimBatch(db, model, claimOptions) as Promise<Record<string, unknown>[]>;
        };
        batch = await (turn ? turn.run(claim) : claim());
        emitEvent(onEvent, { kind: "claim", count: batch.length, durationMs: performance.now() - claimedAt });
      }
      if (batch.length === 0) {
        // Before concluding that nothing is due, give crashed workers' claims a chance.
        if ((await reclaim(loopReclaimer !== undefined)) > 0) continue;
        return;
      }
      const last = endsShort && batch.length < batchSize;
      let result = await deliverBatch(db, model, q, deliver, await isolateSuspect(db, model, q, batch, options), settings, claimedAt);
      if (result.held !== undefined) ({ result, next, nextAt } = await settleHeld(result, result.held, last));
      totals.sent += result.sent;
      totals.retried += result.retried;
      totals.failed += result.failed;
      totals.stale += result.stale;
      if (onEvent !== undefined) emitEvent(onEvent, { kind: "settle", ...result, durationMs: performance.now() - claimedAt });
      if (last) return;
    }
  }

  /** Fused: marks the held successes sent, claiming the next batch in the same statement unless stopping (or `last`). */
  async function settleHeld(result: BatchResult, held: readonly Record<string, unknown>[], last: boolean) {
    const stopping = last || options.signal?.aborted === true || failure.signal.aborted;
    const at = performance.now();
    let settled: SettleResult;
    let next: Record<string, unknown>[] | undefined;
    if (stopping) settled = held.length > 0 ? await markSent(db, model, held, options) : { applied: 0, stale: 0 };
    else {
      const cycle = await settleAndClaim(db, model, held, claimOptions);
      settled = cycle.settled;
      next = cycle.claimed as Record<string, unknown>[];
      emitEvent(onEvent, { kind: "claim", count: next.length, durationMs: performance.now() - at });
    }
    const { held: _, ...counts } = result;
    return { result: { ...counts, sent: counts.sent + settled.applied, stale: counts.stale + settled.stale }, next, nextAt: at };
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

function positive(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new ValidationError(`drain: ${name} must be a positive integer, got ${valueKind(value)}`);
  return value;
}
