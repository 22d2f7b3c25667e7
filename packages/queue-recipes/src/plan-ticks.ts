import type { CompiledSchedule } from "./schedule.js";

/** Most ticks one schedule enqueues in one pass (`missed: "all"` after a long outage goes on next pass). */
export const MAX_TICKS_PER_PASS = 1000;

export interface TickPlan {
  /** The ticks to enqueue now, oldest first. */
  readonly ticks: readonly Date[];
  /** What the schedule's state records as handled (when there are ticks): every tick up to it was enqueued or dropped. */
  readonly through: Date;
  /** More ticks are due than one pass enqueues (`"all"`): run another pass at once. */
  readonly more: boolean;
}

/**
 * The ticks of a schedule due at `now` that follow `last` (the state the previous pass recorded),
 * by its missed-tick policy. Pure: `now` is the database clock the pass read, never this process's.
 *
 * - No state yet (`last` null): the schedule starts now. No tick from before it was first seen runs.
 * - `last` later than `now` (the database clock went back): nothing, and the state stays.
 */
export function planTicks(schedule: CompiledSchedule, last: Date | null, now: Date): TickPlan {
  if (last === null) return { ticks: [], through: now, more: false };
  if (last.getTime() >= now.getTime()) return { ticks: [], through: last, more: false };
  const policy = schedule.missed;
  if (policy === "all") {
    const ticks: Date[] = [];
    let t: Date | null = last;
    for (;;) {
      t = schedule.cron.nextRun(t);
      if (t === null || t.getTime() > now.getTime()) return { ticks, through: now, more: false };
      ticks.push(t);
      if (ticks.length === MAX_TICKS_PER_PASS) return { ticks, through: t, more: true };
    }
  }
  if (policy === "skip") {
    const from = new Date(Math.max(last.getTime(), now.getTime() - schedule.graceMs));
    const ticks: Date[] = [];
    let t: Date | null = from;
    for (;;) {
      t = schedule.cron.nextRun(t);
      if (t === null || t.getTime() > now.getTime()) return { ticks, through: now, more: false };
      if (t.getTime() > from.getTime()) ticks.push(t);
      if (ticks.length === MAX_TICKS_PER_PASS) return { ticks, through: t, more: true };
    }
  }
  const count = policy === "latest" ? 1 : Math.min(policy.last, MAX_TICKS_PER_PASS);
  // previousRuns counts a run earlier in the reference's own second, not one at the reference
  // itself: one millisecond later makes a tick exactly at `now` count as due.
  const recent = schedule.cron
    .previousRuns(count, new Date(now.getTime() + 1))
    .filter((t) => t.getTime() > last.getTime() && t.getTime() <= now.getTime())
    .reverse();
  return { ticks: recent, through: now, more: false };
}

/** The schedule's first tick after `now`, for the loop's sleep; null when it never runs again. */
export function nextTick(schedule: CompiledSchedule, now: Date): Date | null {
  return schedule.cron.nextRun(now);
}
