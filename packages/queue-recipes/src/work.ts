import type { Executor, ModelClass } from "tempest-db-js";
import { UnsupportedFeatureError, ValidationError } from "tempest-db-js";
import type { WorkScheduleOptions } from "./background-scheduler.js";
import { startScheduler } from "./background-scheduler.js";
import type { Deliver } from "./delivery.js";
import type { DrainOptions, DrainResult } from "./drain.js";
import { drainRound } from "./drain.js";
import { queueTable } from "./queue-table.js";
import { Reclaimer } from "./reclaimer.js";
import type { RetentionOptions } from "./retention.js";
import { RetentionRunner } from "./retention.js";
import { interruptibleSleep } from "./sleep.js";

export interface WorkOptions<M extends ModelClass<any> = ModelClass<any>> extends DrainOptions<M>, WorkScheduleOptions<M> {
  /** Wait between polls when nothing is due (default 1000 ms). With LISTEN/NOTIFY this is only the fallback. */
  readonly pollIntervalMs?: number;
  /** Wake on notifications where the dialect has them (default true). */
  readonly listen?: boolean;
  /** First wait after a database error; doubles on each further error (default 250 ms). */
  readonly errorBackoffMs?: number;
  /** Longest wait after database errors (default 30 000 ms). */
  readonly maxErrorBackoffMs?: number;
  /** Called on each database error before backing off; the loop carries on. */
  readonly onError?: (error: unknown) => void;
  /**
   * Retention beside the loop: every `everySeconds` (default 60) a `purgeSettled` of the settled
   * messages older than `olderThanSeconds` runs in the background, in short batches, at most one at
   * a time; stopping the loop ends it between two batches. Off by default.
   */
  readonly retention?: RetentionOptions;
  /** Called after each drain round that did something. */
  readonly onProgress?: (round: DrainResult, totals: DrainResult) => void;
}

/** An executor that may subscribe to notifications: the engine (sessions and transactions cannot). */
interface Listener {
  listen(channel: string, onMessage: (payload: string) => void, onError?: (error: unknown) => void): Promise<() => Promise<void>>;
}

function canListen(db: Executor): db is Executor & Listener {
  return db.capabilities.listenNotify && typeof (db as Partial<Listener>).listen === "function";
}

/**
 * A worker loop: drain, then sleep until a notification (where the dialect has LISTEN/NOTIFY) or
 * the poll interval, and again — until the signal aborts. On abort it stops claiming, lets the
 * deliveries in flight finish and be settled, and resolves with the totals. Database errors do not
 * end it: it backs off, doubling the wait up to a cap, and resumes; claims it held are settled by
 * their lease. Configuration errors (ValidationError, UnsupportedFeatureError) reject at once.
 */
export async function work<M extends ModelClass<any>>(
  db: Executor,
  model: M,
  deliver: Deliver<M>,
  options: WorkOptions<M> = {},
): Promise<DrainResult> {
  const q = queueTable(model, options);
  const { signal } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const errorBackoffMs = options.errorBackoffMs ?? 250;
  const maxErrorBackoffMs = options.maxErrorBackoffMs ?? 30_000;
  const totals = { sent: 0, retried: 0, failed: 0, stale: 0, reclaimed: 0 };
  let woken = false;
  let sleeper: { wake: () => void } | undefined;
  const onNotify = () => {
    woken = true;
    sleeper?.wake();
  };
  let unlisten: (() => Promise<void>) | undefined;
  let listenBroken = false;
  let wantsListen = (options.listen ?? true) && canListen(db);
  let errors = 0;
  // One reclaimer for every round: expired claims are looked for every half lease, not per wake-up.
  const reclaimer = new Reclaimer(db, model, { ...options, leaseSeconds: options.leaseSeconds ?? 300 });
  // Recurring enqueues (`schedules`) run beside the drain, and end with it.
  const scheduler = await startScheduler(db, model, options, onNotify);
  const retention = options.retention
    ? new RetentionRunner(
        db,
        model,
        { fields: options.fields, statuses: options.statuses, channel: options.channel, ...options.retention },
        options.onError,
      )
    : undefined;

  try {
    while (!signal?.aborted) {
      if (scheduler?.failure() !== undefined) throw scheduler.failure();
      if (wantsListen && (!unlisten || listenBroken)) {
        // (Re)subscribe before draining, so that nothing enqueued after this drain goes unnoticed.
        await unlisten?.().catch(() => {});
        unlisten = undefined;
        listenBroken = false;
        unlisten = await (db as Executor & Listener)
          .listen(q.channel, onNotify, () => {
            listenBroken = true;
            sleeper?.wake();
          })
          .catch((error: unknown) => {
            if (UnsupportedFeatureError.isInstance(error)) {
              // LISTEN cannot work here (a transaction-mode pooler): say so once, and poll.
              wantsListen = false;
              process.emitWarning(
                `work(): LISTEN is not possible on this connection, polling every ${pollIntervalMs} ms instead: ${(error as Error).message}`,
                { code: "TEMPEST_QUEUE_NO_LISTEN" },
              );
            }
            options.onError?.(error);
            return undefined;
          });
      }
      let waitMs = pollIntervalMs;
      try {
        woken = false;
        retention?.poke();
        // Listening, a short batch needs no claim after it: what is enqueued from now on notifies.
        const round = await drainRound(db, model, deliver, options, reclaimer, unlisten !== undefined && !listenBroken);
        errors = 0;
        for (const key of Object.keys(totals) as (keyof DrainResult)[]) totals[key] += round[key];
        if (round.sent + round.retried + round.failed + round.stale + round.reclaimed > 0) options.onProgress?.(round, { ...totals });
      } catch (error) {
        // A mistake in the setup (a field the model lacks, a dialect that cannot claim safely) does
        // not heal with time: fail loudly instead of retrying it forever.
        if (ValidationError.isInstance(error) || UnsupportedFeatureError.isInstance(error)) throw error;
        options.onError?.(error);
        waitMs = Math.min(maxErrorBackoffMs, errorBackoffMs * 2 ** Math.min(errors, 20));
        waitMs *= 0.5 + Math.random() / 2;
        errors++;
      }
      if (signal?.aborted) break;
      if (woken && errors === 0) continue;
      const sleep = interruptibleSleep(waitMs, signal);
      sleeper = errors === 0 ? sleep : undefined;
      await sleep.promise;
      sleeper = undefined;
    }
  } finally {
    await scheduler?.stop();
    await retention?.stop();
    await unlisten?.().catch(() => {});
  }
  return totals;
}
