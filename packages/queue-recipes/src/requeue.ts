import type { Executor, Expression, ModelClass } from "tempest-db-js";
import { sql } from "tempest-db-js";
import type { Backoff } from "./backoff.js";
import { backoffSeconds } from "./backoff.js";
import { failureSet } from "./failure-set.js";
import type { SettleResult } from "./fenced-update.js";
import { constantSet, fencedUpdate } from "./fenced-update.js";
import { perClaim } from "./per-claim.js";
import type { QueueOptions } from "./queue-options.js";
import type { QueueTable } from "./queue-table.js";
import { queueTable } from "./queue-table.js";

export interface RequeueOptions extends QueueOptions {
  /** How long each message waits before its next attempt (default: exponential from 1 s with jitter). */
  readonly backoff?: Backoff;
  /** The error each claim failed with, recorded in `lastError` / `lastErrorAt` where the table has them. */
  readonly errorOf?: (claim: object) => unknown;
  /**
   * Give the claims back without counting a failure (work not done: a worker stopping), due at
   * once. Default false.
   */
  readonly release?: boolean;
}

/**
 * Puts claimed messages back to `queued` for a later attempt — only those still held by this
 * claim. Each message gets its own jittered delay, yet the batch is one statement: the delays
 * travel in a CASE on the id, each computed from the database clock.
 */
export function requeue(
  db: Executor,
  model: ModelClass<any>,
  claims: readonly object[],
  options: RequeueOptions = {},
): Promise<SettleResult> {
  const q = queueTable(model, options);
  if (options.release) {
    const set = constantSet(q, "releaseSet", () => ({
      [q.f.status]: q.s.queued,
      [q.f.nextAttemptAt]: sql.now(),
      [q.f.updatedAt]: sql.now(),
    }));
    return fencedUpdate(db, q, claims as Record<string, unknown>[], set);
  }
  return fencedUpdate(
    db,
    q,
    claims as Record<string, unknown>[],
    (group) => ({
      [q.f.status]: q.s.queued,
      [q.f.nextAttemptAt]: retryAt(q, group, options.backoff),
      [q.f.updatedAt]: sql.now(),
      ...failureSet(q, group, options.errorOf),
    }),
    undefined,
    // Each message has a history of its own, and a json value cannot be chosen in a CASE.
    q.has.attemptHistory,
  );
}

function retryAt(q: QueueTable, group: readonly Record<string, unknown>[], backoff: Backoff | undefined): Expression<Date> {
  // Failures so far, this one included: with a claim token `attempts` has not counted it yet.
  const extra = q.has.claimToken ? 1 : 0;
  const delays = group.map((claim) => backoffSeconds(Number(claim[q.f.attempts]) + extra, backoff));
  if (delays.every((d) => d === delays[0])) return sql.nowPlusSeconds(delays[0] ?? 0);
  return perClaim(
    q,
    group,
    delays.map((d) => sql.nowPlusSeconds(d)),
    sql.now(),
  );
}
