import type { Executor, ModelClass } from "tempest-db-js";
import type { Backoff } from "./backoff.js";
import { BatchSettler } from "./batch-settler.js";
import type { Deliver } from "./delivery.js";
import { Delivery, DeliveryAbortError } from "./delivery.js";
import { extendLease } from "./extend-lease.js";
import { LeaseKeeper } from "./lease-keeper.js";
import type { QueueOptions } from "./queue-options.js";
import type { QueueTable } from "./queue-table.js";
import { recordTimeout } from "./record-timeout.js";
import { Serial } from "./serial.js";

/** How a drain delivers and settles each batch (resolved from its options once per drain). */
export interface BatchSettings extends QueueOptions {
  readonly maxAttempts: number;
  readonly leaseMs: number;
  readonly heartbeat: boolean;
  /** Infinity for none. */
  readonly deliveryTimeoutMs: number;
  /** ≥ deliveryTimeoutMs; Infinity for none. */
  readonly deliveryHardTimeoutMs: number;
  readonly stopTimeoutMs: number;
  readonly signal: AbortSignal | undefined;
  readonly backoff: Backoff | undefined;
  readonly onDeliveryError: ((error: unknown, message: never) => void) | undefined;
  readonly onDeliveryTimeout: ((error: DeliveryAbortError, message: never) => void) | undefined;
  readonly onHeartbeatError: ((error: unknown) => void) | undefined;
  /** Leave the successes unwritten and return them in `held` (the fused cycle marks them sent with the next claim). */
  readonly holdSent?: boolean;
  /** The drain's lanes take turns for claims and the final settlement (a database of one writer at a time: see drain). */
  readonly turn?: Serial;
}

export interface BatchResult {
  readonly sent: number;
  readonly retried: number;
  readonly failed: number;
  readonly stale: number;
  /** With `holdSent`: the successful claims, still `sending`, for the caller to mark sent (not counted in `sent`). */
  readonly held?: readonly Record<string, unknown>[];
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === "function"
  );
}

/**
 * Delivers a claimed batch concurrently and settles it: sent, requeued or failed, each in one fenced
 * statement. What a handler returns decides its message's outcome, whenever it returns: while it
 * runs, its claim stays held — the lease renewed (`LeaseKeeper`) — so no other worker can take the
 * message, even once its timeout has passed. The deliveries start together, so one timer per bound
 * serves them all:
 *
 * - `deliveryTimeoutMs`: the signals of the deliveries still running abort (reason `timeout`), the
 *   timeout is reported (`onDeliveryTimeout`, and `lastError` where the table has it), and from then
 *   on each delivery is settled as soon as it is decided, instead of with the whole batch;
 * - `deliveryHardTimeoutMs`: a delivery still running is given up: settled as failed (retried with
 *   backoff, or failed on its last attempt), its lease no longer renewed, its eventual outcome ignored;
 * - once the caller's signal aborts, `stopTimeoutMs`: the ones still running are given back, due at
 *   once, without counting a failure.
 *
 * A delivery cut off by a lost lease is not settled (stale: the row is someone else's). `claimedAt`
 * is when the claim statement was sent.
 */
export async function deliverBatch(
  db: Executor,
  model: ModelClass<any>,
  q: QueueTable,
  deliver: Deliver<any>,
  batch: readonly Record<string, unknown>[],
  settings: BatchSettings,
  claimedAt: number,
): Promise<BatchResult> {
  const serial = new Serial();
  const settle = new BatchSettler(db, model, settings, serial);
  const token = q.has.claimToken;
  let pending: Delivery[] | undefined;
  for (const message of batch) {
    // With a claim token `attempts` counts failures; without, the claim has just counted this attempt.
    const attempt = Number(message[q.f.attempts]) + (token ? 1 : 0);
    // Without a token, a claim past maxAttempts is one whose last attempt's worker died: not tried again.
    if (!token && attempt > settings.maxAttempts) {
      settle.exhausted(message);
      continue;
    }
    const delivery = new Delivery(message, attempt, settings.signal);
    let outcome: unknown;
    try {
      outcome = deliver(message as never, delivery);
    } catch (error) {
      settle.failed(message, attempt, error);
      continue;
    }
    // A synchronous deliver settles at once, without a promise of its own.
    if (!isThenable(outcome)) {
      if (outcome instanceof Error) settle.failed(message, attempt, outcome);
      else settle.sent(message);
      continue;
    }
    (pending ??= []).push(delivery);
    outcome.then(
      (value) => {
        if (value instanceof Error) decide(delivery, "failed", value);
        else decide(delivery, "sent", undefined);
      },
      (error: unknown) => decide(delivery, "failed", error),
    );
  }

  let open = pending?.length ?? 0;
  let wake: (() => void) | undefined;
  // After the timeout, decided deliveries are settled at once rather than kept for the slowest.
  let eager = false;
  function decide(delivery: Delivery, outcome: Exclude<Delivery["outcome"], 0>, error: unknown): void {
    if (delivery.outcome !== 0) return;
    delivery.outcome = outcome;
    if (outcome === "sent") settle.sent(delivery.message);
    else if (outcome === "failed") settle.failed(delivery.message, delivery.attempt, error);
    else if (outcome === "lost") settle.lost(delivery.message);
    else settle.release(delivery.message);
    // A failed early flush leaves its claims pending, held and renewed: the final flush retries them.
    if (eager && outcome !== "lost") settle.flush().catch(() => {});
    if (--open === 0) wake?.();
  }

  const startedAt = performance.now();
  if (pending && open > 0) {
    // Deliveries that finish without waiting on anything slow (the usual no-op or cached outcome) are
    // decided within a few microtasks: let those run before arming the heartbeat and the timeout
    // timers, which such a batch would only start and clear. No macrotask turn is spent on it, and
    // the bounds stay counted from the deliveries' start.
    for (let hop = 0; hop < 4 && open > 0; hop++) await Promise.resolve();
  }
  if (pending && open > 0) {
    const inFlight = pending;
    const left = (ms: number) => Math.max(0, ms - (performance.now() - startedAt));
    const running = () => inFlight.filter((d) => d.outcome === 0);
    const cutOff = (outcome: "failed" | "lost" | "abandoned", reason: DeliveryAbortError, which: (d: Delivery) => boolean) => {
      for (const d of running()) {
        if (!which(d)) continue;
        d.abort(reason);
        decide(d, outcome, reason);
      }
    };
    const timers: NodeJS.Timeout[] = [];
    const softMs = settings.deliveryTimeoutMs;
    if (Number.isFinite(softMs)) {
      timers.push(
        setTimeout(() => {
          const late = running();
          const reason = new DeliveryAbortError("timeout", `delivery timed out after ${Math.round(softMs)} ms`);
          for (const d of late) {
            d.abort(reason);
            try {
              settings.onDeliveryTimeout?.(reason, d.message as never);
            } catch {
              // A reporting callback must not take the batch down with it.
            }
          }
          eager = true;
          serial
            .run(() =>
              recordTimeout(
                db,
                q,
                late.map((d) => d.message),
                reason,
              ),
            )
            .catch((error: unknown) => settings.onHeartbeatError?.(error));
          settle.flush().catch(() => {});
        }, left(softMs)),
      );
    }
    const hardMs = settings.deliveryHardTimeoutMs;
    if (Number.isFinite(hardMs)) {
      timers.push(
        setTimeout(() => {
          const reason = new DeliveryAbortError(
            "timeout",
            `delivery still running ${Math.round(hardMs)} ms after it started (deliveryHardTimeoutMs): given up, its outcome is ignored`,
          );
          cutOff("failed", reason, () => true);
        }, left(hardMs)),
      );
    }
    const keeper = settings.heartbeat
      ? new LeaseKeeper(
          (claims) =>
            serial.run(async () => {
              // Settled since the beat began: no longer ours to renew.
              const held = claims.filter((c) => settle.held(c));
              return held.length > 0 ? (await extendLease(db, model, held, settings)).lost : [];
            }),
          settings.leaseMs,
          claimedAt,
          () => batch.filter((m) => settle.held(m)),
          (claims, why) => {
            const gone = new Set(claims);
            const message =
              why === "lost"
                ? "the claim was lost: the message was reclaimed or settled elsewhere"
                : "the lease could not be renewed in time; another worker may take the message";
            cutOff("lost", new DeliveryAbortError("lease-lost", message), (d) => gone.has(d.message));
          },
          settings.onHeartbeatError,
        )
      : undefined;
    const stop = settings.signal;
    const onStop = () => {
      const ms = settings.stopTimeoutMs;
      timers.push(
        setTimeout(
          () =>
            cutOff(
              "abandoned",
              new DeliveryAbortError("stopping", `the worker is stopping and waited ${ms} ms for this delivery`),
              () => true,
            ),
          ms,
        ),
      );
    };
    if (stop?.aborted) onStop();
    else stop?.addEventListener("abort", onStop, { once: true });
    if (open > 0) await new Promise<void>((resolve) => (wake = resolve));
    stop?.removeEventListener("abort", onStop);
    for (const timer of timers) clearTimeout(timer);
    await keeper?.stop();
  }
  const { turn } = settings;
  await (turn ? turn.run(() => settle.flush(settings.holdSent)) : settle.flush(settings.holdSent));
  return settings.holdSent ? { ...settle.result(), held: settle.takeSent() } : settle.result();
}
