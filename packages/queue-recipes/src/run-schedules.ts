import type { Executor, ModelClass } from "tempest-db-js";
import { UnsupportedFeatureError, ValidationError } from "tempest-db-js";
import type { ScheduleOptions, SchedulePassResult } from "./enqueue-scheduled.js";
import { enqueueScheduled } from "./enqueue-scheduled.js";
import { queueTable } from "./queue-table.js";
import type { Schedule } from "./schedule.js";
import { compileSchedules } from "./schedule.js";
import { assertScheduleTable, scheduleModel } from "./schedule-table.js";
import { interruptibleSleep } from "./sleep.js";

export interface RunSchedulesOptions extends ScheduleOptions {
  /** Stops the loop; a pass in progress finishes (or rolls back) first. */
  readonly signal?: AbortSignal;
  /**
   * Longest wait between passes (default 30 000 ms). The loop sleeps until the next tick by the
   * database clock, measured as a duration, so a worker clock that is off does not matter; the cap
   * bounds how late a change of the database's clock, or a pass another process skipped, is noticed.
   */
  readonly maxWaitMs?: number;
  /** First wait after a database error; doubles on each further error up to `maxErrorBackoffMs` (250 / 30 000 ms). */
  readonly errorBackoffMs?: number;
  readonly maxErrorBackoffMs?: number;
  /** Called on each database error; the loop carries on. */
  readonly onError?: (error: unknown) => void;
  /** Called after each pass. */
  readonly onPass?: (result: SchedulePassResult) => void;
}

export interface RunSchedulesResult {
  readonly passes: number;
  /** Ticks this process enqueued. */
  readonly enqueued: number;
}

/**
 * Checks the schedules and that their state table exists: what `runSchedules` (and `work` with
 * `schedules`) refuse before their first pass, as a ValidationError.
 */
export async function prepareSchedules(
  db: Executor,
  model: ModelClass<any>,
  schedules: readonly Schedule<any>[],
  options: ScheduleOptions = {},
) {
  compileSchedules(schedules);
  queueTable(model, options);
  if (schedules.length > 0) await assertScheduleTable(db, scheduleModel(model, options));
}

/**
 * The scheduler on its own: a pass (`enqueueScheduled`), then a sleep until the next tick, until the
 * signal aborts. Run it in as many processes as you like; each tick is enqueued once. Database
 * errors do not end it (`onError`, then a doubling backoff); bad schedules reject at once.
 */
export async function runSchedules<M extends ModelClass<any>>(
  db: Executor,
  model: M,
  schedules: readonly Schedule<M>[],
  options: RunSchedulesOptions = {},
): Promise<RunSchedulesResult> {
  const { signal, maxWaitMs = 30_000, errorBackoffMs = 250, maxErrorBackoffMs = 30_000 } = options;
  for (const [name, value] of Object.entries({ maxWaitMs, errorBackoffMs, maxErrorBackoffMs })) {
    if (typeof value !== "number" || !(value > 0)) throw new ValidationError(`runSchedules: ${name} must be a positive number`);
  }
  await prepareSchedules(db, model, schedules, options);
  let passes = 0;
  let enqueued = 0;
  let errors = 0;
  while (!signal?.aborted) {
    let waitMs = Math.min(1000, maxWaitMs);
    try {
      const result = await enqueueScheduled(db, model, schedules, options);
      passes++;
      errors = 0;
      enqueued += result.enqueued.length;
      options.onPass?.(result);
      if (result.more) continue;
      if (result.now !== null && result.nextTickAt !== null) {
        waitMs = Math.min(maxWaitMs, Math.max(1, result.nextTickAt.getTime() - result.now.getTime()));
      } else if (result.now !== null) {
        waitMs = maxWaitMs;
      }
    } catch (error) {
      if (ValidationError.isInstance(error) || UnsupportedFeatureError.isInstance(error)) throw error;
      options.onError?.(error);
      waitMs = Math.min(maxErrorBackoffMs, errorBackoffMs * 2 ** Math.min(errors, 20)) * (0.5 + Math.random() / 2);
      errors++;
    }
    if (signal?.aborted) break;
    await interruptibleSleep(waitMs, signal).promise;
  }
  return { passes, enqueued };
}
