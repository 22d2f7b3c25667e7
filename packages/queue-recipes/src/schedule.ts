import { Cron } from "croner";
import type { ModelClass } from "tempest-db-js";
import { ValidationError } from "tempest-db-js";
import type { EnqueueMessage } from "./enqueue.js";
import { valueKind } from "./value-kind.js";

/**
 * What a pass does with ticks that fell due while no scheduler ran (all workers down, a long pause):
 * - `"latest"` (default): only the most recent due tick is enqueued, the older ones are dropped;
 * - `"all"`: every missed tick is enqueued, oldest first (at most 1,000 per schedule and pass; the
 *   next pass goes on where this one stopped);
 * - `{ last: n }`: the `n` most recent due ticks, the older ones dropped (a bounded catch-up);
 * - `"skip"`: only ticks at most `graceSeconds` old are enqueued; a tick missed by longer is dropped.
 */
export type MissedTicks = "latest" | "all" | "skip" | { readonly last: number };

/** A recurring enqueue: the message that `cron` asks for at each tick, once per tick across every process. */
export interface Schedule<M extends ModelClass<any> = ModelClass<any>> {
  /** Unique per queue table; part of each tick's idempotency key, and the key of the schedule's state row. */
  readonly name: string;
  /**
   * Five fields (minute hour day-of-month month day-of-week) or six (seconds first), parsed by
   * croner: ranges, steps, lists, names (`MON`, `JAN`), `L`, `W` and `#`, and nicknames (`@daily`).
   */
  readonly cron: string;
  /** The IANA time zone the cron fields are read in (default `"UTC"`); see `docs/queue-recipes.md#schedules` for DST. */
  readonly timeZone?: string;
  /**
   * The message to enqueue (its consumer is required), or a function of the tick's time returning
   * it. The recipe sets the idempotency key (`schedule:<name>:<tick as ISO-8601>`) and, unless the
   * message has one, `nextAttemptAt` to the tick.
   */
  readonly message: EnqueueMessage<M> | ((tick: Date) => EnqueueMessage<M>);
  /** Missed-tick policy (default `"latest"`). */
  readonly missed?: MissedTicks;
  /** With `missed: "skip"`: how late a tick may still be enqueued (default 60 s). */
  readonly graceSeconds?: number;
}

/** A schedule checked and parsed once. */
export interface CompiledSchedule {
  readonly name: string;
  readonly cron: Cron;
  readonly missed: MissedTicks;
  readonly graceMs: number;
  readonly message: (tick: Date) => Record<string, unknown>;
}

/** Schedule names are stored in a varchar(191) key (MySQL's utf8mb4 index limit of 767 bytes). */
export const MAX_NAME_LENGTH = 191;

const compiled = new WeakMap<readonly Schedule<any>[], readonly CompiledSchedule[]>();

/**
 * Checks every schedule and parses its cron expression: a bad name, expression, time zone or policy
 * is a ValidationError naming the schedule, before anything runs. Cached per array.
 */
export function compileSchedules(schedules: readonly Schedule<any>[]): readonly CompiledSchedule[] {
  const cached = compiled.get(schedules);
  if (cached) return cached;
  if (!Array.isArray(schedules)) throw new ValidationError(`schedules: expects an array of schedules, got ${valueKind(schedules)}`);
  const names = new Set<string>();
  const out = schedules.map((schedule, i) => {
    const one = compileSchedule(schedule, i);
    if (names.has(one.name)) throw new ValidationError(`schedules: the name "${one.name}" is used twice`);
    names.add(one.name);
    return one;
  });
  const frozen = Object.freeze(out);
  compiled.set(schedules, frozen);
  return frozen;
}

function compileSchedule(schedule: Schedule<any>, i: number): CompiledSchedule {
  if (typeof schedule !== "object" || schedule === null)
    throw new ValidationError(`schedules[${i}]: expects a schedule object, got ${valueKind(schedule)}`);
  const { name, cron, timeZone = "UTC", message, missed = "latest", graceSeconds = 60 } = schedule;
  if (typeof name !== "string" || name.length === 0 || name.length > MAX_NAME_LENGTH) {
    throw new ValidationError(`schedules[${i}]: name must be a text of 1 to ${MAX_NAME_LENGTH} characters`);
  }
  const at = `schedule "${name}"`;
  if (typeof cron !== "string") throw new ValidationError(`${at}: cron must be a string, got ${valueKind(cron)}`);
  if (typeof timeZone !== "string" || !isTimeZone(timeZone))
    throw new ValidationError(`${at}: unknown time zone (an IANA name such as "Europe/Amsterdam")`);
  if (!isPolicy(missed))
    throw new ValidationError(`${at}: missed must be "latest", "all", "skip" or { last: n } with n a positive integer`);
  if (typeof graceSeconds !== "number" || !(graceSeconds >= 0) || !Number.isFinite(graceSeconds)) {
    throw new ValidationError(`${at}: graceSeconds must be a finite number ≥ 0, got ${valueKind(graceSeconds)}`);
  }
  if (typeof message !== "function" && (typeof message !== "object" || message === null || Array.isArray(message))) {
    throw new ValidationError(`${at}: message must be an object or a function of the tick, got ${valueKind(message)}`);
  }
  let parsed: Cron;
  try {
    // "no-wildcard": a list or range of fixed times (`0 2,14 * * *`) is fixed-time for DST, as in Vixie cron.
    parsed = new Cron(cron, { timezone: timeZone, mode: "5-or-6-parts", fixedTimeRule: "no-wildcard" });
  } catch (error) {
    throw new ValidationError(`${at}: cron expression not understood: ${(error as Error).message}`, { cause: error });
  }
  if (parsed.nextRun(new Date(0)) === null) throw new ValidationError(`${at}: the cron expression never runs`);
  const make = typeof message === "function" ? message : () => message;
  return Object.freeze({
    name,
    cron: parsed,
    missed,
    graceMs: graceSeconds * 1000,
    message: (tick: Date) => {
      const made = make(tick) as unknown;
      if (typeof made !== "object" || made === null || Array.isArray(made)) {
        throw new ValidationError(`${at}: message() must return an object, got ${valueKind(made)}`);
      }
      return made as Record<string, unknown>;
    },
  });
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function isPolicy(missed: unknown): missed is MissedTicks {
  if (missed === "latest" || missed === "all" || missed === "skip") return true;
  if (typeof missed !== "object" || missed === null) return false;
  const last = (missed as { last?: unknown }).last;
  return typeof last === "number" && Number.isSafeInteger(last) && last > 0;
}
