import type { Executor, ModelClass } from "tempest-db-js";
import type { Backoff } from "./backoff.js";
import type { Deliver } from "./delivery.js";
import { Delivery, DeliveryAbortError } from "./delivery.js";
import { LeaseKeeper } from "./lease-keeper.js";
import { markFailed } from "./mark-failed.js";
import { markSent } from "./mark-sent.js";
import type { QueueOptions } from "./queue-options.js";
import type { QueueTable } from "./queue-table.js";
import { requeue } from "./requeue.js";

/** How a drain delivers and settles each batch (resolved from its options once per drain). */
export interface BatchSettings extends QueueOptions {
  readonly maxAttempts: number;
  readonly leaseMs: number;
  readonly heartbeat: boolean;
  /** Infinity for none. */
  readonly deliveryTimeoutMs: number;
  readonly stopTimeoutMs: number;
  readonly signal: AbortSignal | undefined;
  readonly backoff: Backoff | undefined;
  readonly onDeliveryError: ((error: unknown, message: never) => void) | undefined;
  readonly onHeartbeatError: ((error: unknown) => void) | undefined;
}

export interface BatchResult {
  readonly sent: number;
  readonly retried: number;
  readonly failed: number;
  readonly stale: number;
}

const NONE = { applied: 0, stale: 0 };

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === "function"
  );
}

/**
 * Delivers a claimed batch concurrently and settles it: sent, requeued or failed, each in one fenced
 * statement. While deliveries are pending their lease is renewed (`LeaseKeeper`), one timer bounds
 * them all (`deliveryTimeoutMs`: they start together) and, once the caller's signal aborts, another
 * bounds how long they are waited for (`stopTimeoutMs`). A delivery cut off by a lost lease is not
 * settled (stale: the row is someone else's); one cut off by the stop grace is given back, due at
 * once, without counting a failure. `claimedAt` is when the claim statement was sent.
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
  const sent: Record<string, unknown>[] = [];
  const retry: Record<string, unknown>[] = [];
  const failed: Record<string, unknown>[] = [];
  const errors = new Map<object, unknown>();
  const failedDelivery = (message: Record<string, unknown>, attempt: number, error: unknown) => {
    settings.onDeliveryError?.(error, message as never);
    errors.set(message, error);
    (attempt >= settings.maxAttempts ? failed : retry).push(message);
  };
  const token = q.has.claimToken;
  let pending: Delivery[] | undefined;
  for (const message of batch) {
    // With a claim token `attempts` counts failures; without, the claim has just counted this attempt.
    const attempt = Number(message[q.f.attempts]) + (token ? 1 : 0);
    // Without a token, a claim past maxAttempts is one whose last attempt's worker died: not tried again.
    if (!token && attempt > settings.maxAttempts) {
      failed.push(message);
      continue;
    }
    const delivery = new Delivery(message, attempt, settings.signal);
    let outcome: unknown;
    try {
      outcome = deliver(message as never, delivery);
    } catch (error) {
      failedDelivery(message, attempt, error);
      continue;
    }
    // A synchronous deliver settles at once, without a promise of its own.
    if (!isThenable(outcome)) {
      if (outcome instanceof Error) failedDelivery(message, attempt, outcome);
      else sent.push(message);
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
  function decide(delivery: Delivery, outcome: Delivery["outcome"], error: unknown): void {
    if (delivery.outcome !== 0) return;
    delivery.outcome = outcome;
    delivery.error = error;
    if (--open === 0) wake?.();
  }

  let lost: Delivery[] | undefined;
  let abandoned: Delivery[] | undefined;
  if (pending && open > 0) {
    const inFlight = pending;
    const cutOff = (outcome: "failed" | "lost" | "abandoned", reason: DeliveryAbortError, which: (d: Delivery) => boolean) => {
      for (const d of inFlight) {
        if (d.outcome !== 0 || !which(d)) continue;
        d.abort(reason);
        decide(d, outcome, reason);
      }
    };
    const timers: NodeJS.Timeout[] = [];
    if (Number.isFinite(settings.deliveryTimeoutMs)) {
      const ms = settings.deliveryTimeoutMs;
      timers.push(
        setTimeout(() => cutOff("failed", new DeliveryAbortError("timeout", `delivery timed out after ${ms} ms`), () => true), ms),
      );
    }
    const keeper = settings.heartbeat
      ? new LeaseKeeper(
          db,
          model,
          settings,
          settings.leaseMs,
          claimedAt,
          () => inFlight.filter((d) => d.outcome === 0).map((d) => d.message),
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
    for (const d of inFlight) {
      if (d.outcome === "sent") sent.push(d.message);
      else if (d.outcome === "failed") failedDelivery(d.message, d.attempt, d.error);
      else if (d.outcome === "lost") (lost ??= []).push(d);
      else if (d.outcome === "abandoned") (abandoned ??= []).push(d);
    }
  }

  const errorOf = errors.size > 0 ? (claim: object) => errors.get(claim) : undefined;
  const s = sent.length > 0 ? await markSent(db, model, sent, settings) : NONE;
  const r = retry.length > 0 ? await requeue(db, model, retry, { ...settings, errorOf }) : NONE;
  const f = failed.length > 0 ? await markFailed(db, model, failed, { ...settings, errorOf }) : NONE;
  const a = abandoned
    ? await requeue(
        db,
        model,
        abandoned.map((d) => d.message),
        { ...settings, release: true },
      )
    : NONE;
  return {
    sent: s.applied,
    retried: r.applied + a.applied,
    failed: f.applied,
    stale: s.stale + r.stale + f.stale + a.stale + (lost?.length ?? 0),
  };
}
