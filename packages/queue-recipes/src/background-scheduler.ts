import type { Executor, ModelClass } from "tempest-db-js";
import type { QueueOptions } from "./queue-options.js";
import type { RunSchedulesOptions } from "./run-schedules.js";
import { prepareSchedules, runSchedules } from "./run-schedules.js";
import type { Schedule } from "./schedule.js";

/** What `work` takes to run schedules beside its drain. */
export interface WorkScheduleOptions<M extends ModelClass<any>> extends QueueOptions {
  readonly schedules?: readonly Schedule<M>[];
  readonly scheduleOptions?: Omit<RunSchedulesOptions, "signal" | keyof QueueOptions>;
  readonly onError?: (error: unknown) => void;
}

export interface BackgroundScheduler {
  /** The error that ended the scheduler (a bad message from a schedule's function), if one did. */
  readonly failure: () => unknown;
  /** Stops the loop and waits for a pass in progress. */
  readonly stop: () => Promise<void>;
}

/**
 * Starts `runSchedules` beside a work loop, after checking the schedules and their table (so that a
 * mistake rejects `work` at once). `wake` is called when a pass enqueued something, so that a loop
 * that polls drains it without waiting out its interval.
 */
export async function startScheduler<M extends ModelClass<any>>(
  db: Executor,
  model: M,
  options: WorkScheduleOptions<M>,
  wake: () => void,
): Promise<BackgroundScheduler | undefined> {
  const schedules = options.schedules ?? [];
  if (schedules.length === 0) return undefined;
  const { fields, statuses, channel } = options;
  const settings = { fields, statuses, channel, ...options.scheduleOptions };
  await prepareSchedules(db, model, schedules, settings);
  const stop = new AbortController();
  let failure: unknown;
  const running = runSchedules(db, model, schedules, {
    ...settings,
    signal: stop.signal,
    onError: options.scheduleOptions?.onError ?? options.onError,
    onPass: (result) => {
      options.scheduleOptions?.onPass?.(result);
      if (result.enqueued.length > 0) wake();
    },
  }).then(
    () => undefined,
    (error: unknown) => {
      failure = error;
      wake();
    },
  );
  return {
    failure: () => failure,
    stop: async () => {
      stop.abort();
      await running;
    },
  };
}
