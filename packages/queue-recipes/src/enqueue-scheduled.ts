import type { Executor, ModelClass } from "tempest-db-js";
import { insert, isTransaction, op, select, sql, update, ValidationError } from "tempest-db-js";
import { claimPlan } from "./claim-batch.js";
import { enqueue } from "./enqueue.js";
import { nextTick, planTicks } from "./plan-ticks.js";
import type { QueueOptions } from "./queue-options.js";
import type { QueueTable } from "./queue-table.js";
import { queueTable } from "./queue-table.js";
import { retryStatement } from "./retry-statement.js";
import { runClaimTransaction } from "./run-claim-transaction.js";
import type { CompiledSchedule, Schedule } from "./schedule.js";
import { compileSchedules } from "./schedule.js";
import type { ScheduleStateModel, ScheduleTableOptions } from "./schedule-table.js";
import { scheduleModel } from "./schedule-table.js";

export interface ScheduleOptions extends QueueOptions, ScheduleTableOptions {
  /**
   * The clock ticks are measured against. Default: the database's, read once per pass in the
   * statement that locks the schedules' rows, so a worker's own clock never matters. Tests set it.
   */
  readonly clock?: () => Date;
  /**
   * Called in each pass once the clock is read and the due ticks are known, before they are
   * enqueued, inside the pass's transaction (what it throws rolls the pass back).
   */
  readonly onDue?: (due: readonly DueTick[]) => void | Promise<void>;
}

export interface DueTick {
  readonly schedule: string;
  readonly tick: Date;
}

export interface ScheduledTick extends DueTick {
  /** The queue row's id (for a duplicate: the row that already held the tick's key). */
  readonly id: unknown;
}

export interface SchedulePassResult {
  /** The clock the pass measured against; null when another process was running every schedule's pass. */
  readonly now: Date | null;
  readonly enqueued: readonly ScheduledTick[];
  /** Ticks whose key was already in the queue (enqueued by hand, or the state row was reset). */
  readonly duplicates: readonly ScheduledTick[];
  /** The earliest next tick of any schedule after `now`; null if none runs again or `now` is null. */
  readonly nextTickAt: Date | null;
  /** A schedule has more missed ticks than one pass enqueues (`missed: "all"`): pass again at once. */
  readonly more: boolean;
}

/**
 * One scheduling pass: enqueues every tick of `schedules` that is due and not yet handled, by each
 * schedule's missed-tick policy, exactly once across all processes running it. In one transaction:
 * lock the schedules' state rows (rows another process holds are skipped where the database can
 * skip locks, else waited for; SQLite serializes the transaction), read the database's clock in the
 * same statement, enqueue each due tick under the idempotency key `schedule:<name>:<ISO tick>`, and
 * record how far each schedule got. A process that dies inside the pass rolls all of it back, and
 * the next pass anywhere enqueues the same ticks; two passes that race enqueue a tick once, because
 * the queue's unique (consumer, idempotencyKey) index arbitrates even without the lock.
 */
export async function enqueueScheduled<M extends ModelClass<any>>(
  db: Executor,
  model: M,
  schedules: readonly Schedule<M>[],
  options: ScheduleOptions = {},
): Promise<SchedulePassResult> {
  const list = compileSchedules(schedules);
  const q = queueTable(model, options);
  if (options.clock !== undefined && typeof options.clock !== "function")
    throw new ValidationError("schedules: clock must be a function returning a Date");
  if (list.length === 0) return { now: null, enqueued: [], duplicates: [], nextTickAt: null, more: false };
  const lock = claimPlan(db).lock; // refuses a database that can neither lock rows nor serialize writers
  const State = scheduleModel(model, options);
  await ensureStateRows(db, State, list);
  return runClaimTransaction(db, async (tx) => {
    const names = list.map((s) => s.name);
    const read = select(State)
      .columns((c) => ({ name: "name", lastTickAt: "lastTickAt", now: c.cast(sql.now(), "datetime") }))
      .where({ name: op.in(names) })
      .orderBy("name");
    const rows = await tx.execute(lock ? read.forUpdate(lock) : read).all();
    if (rows.length === 0) return { now: null, enqueued: [], duplicates: [], nextTickAt: null, more: false };
    const now = options.clock ? checkedClock(options.clock) : (rows[0]?.now as Date);
    const byName = new Map(list.map((s) => [s.name, s]));
    const due: DueTick[] = [];
    const messages: Record<string, unknown>[] = [];
    const advanced: { name: string; through: Date }[] = [];
    let more = false;
    for (const row of rows) {
      const schedule = byName.get(row.name) as CompiledSchedule;
      const plan = planTicks(schedule, row.lastTickAt, now);
      more ||= plan.more;
      // A pass that finds nothing due leaves the row as it is: the next one plans from the same
      // point and reaches the same ticks, and an idle schedule costs no write per pass.
      if (row.lastTickAt === null || plan.ticks.length > 0) advanced.push({ name: row.name, through: plan.through });
      for (const tick of plan.ticks) {
        due.push({ schedule: schedule.name, tick });
        messages.push(tickMessage(q, schedule, tick));
      }
    }
    await options.onDue?.(due);
    const result = messages.length > 0 ? await enqueue(tx, model, messages as never, options) : { inserted: [], duplicates: [] };
    for (const { name, through } of advanced) {
      await tx.execute(update(State).set({ lastTickAt: through, updatedAt: sql.now() }).where({ name })).rowsAffected();
    }
    const at = (entry: { index: number; id: unknown }): ScheduledTick => ({ ...(due[entry.index] as DueTick), id: entry.id });
    return {
      now,
      enqueued: result.inserted.map(at),
      duplicates: result.duplicates.map(at),
      nextTickAt: earliest(list.map((s) => nextTick(s, now))),
      more,
    };
  });
}

/** The queue row for one tick: the schedule's message, its key, and due at the tick unless it says otherwise. */
function tickMessage(q: QueueTable, schedule: CompiledSchedule, tick: Date): Record<string, unknown> {
  const message = { ...schedule.message(tick) };
  if (message[q.f.idempotencyKey] !== undefined) {
    throw new ValidationError(
      `schedule "${schedule.name}": the message may not set ${q.f.idempotencyKey}; each tick's key is set by the schedule`,
    );
  }
  if (message[q.f.consumer] === undefined || message[q.f.consumer] === null) {
    throw new ValidationError(`schedule "${schedule.name}": the message needs a ${q.f.consumer}`);
  }
  message[q.f.idempotencyKey] = `schedule:${schedule.name}:${tick.toISOString()}`;
  message[q.f.nextAttemptAt] ??= tick;
  return message;
}

function checkedClock(clock: () => Date): Date {
  const now = clock();
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new ValidationError("schedules: clock() must return a valid Date");
  return now;
}

function earliest(dates: readonly (Date | null)[]): Date | null {
  let min: Date | null = null;
  for (const d of dates) if (d !== null && (min === null || d.getTime() < min.getTime())) min = d;
  return min;
}

/** Schedule names this process has seen a state row for, per engine and table. */
const known = new WeakMap<object, Map<string, Set<string>>>();

/**
 * Inserts the state row of each schedule this process has not seen yet, skipping the ones that
 * exist. Outside the pass's transaction: a row another process holds locked must not be waited for.
 */
async function ensureStateRows(db: Executor, State: ScheduleStateModel, list: readonly CompiledSchedule[]): Promise<void> {
  const owner = db.engineKey;
  let tables = known.get(owner);
  if (!tables) known.set(owner, (tables = new Map()));
  let names = tables.get(State.tablename);
  if (!names) tables.set(State.tablename, (names = new Set()));
  const missing = list.filter((s) => !names.has(s.name)).map((s) => ({ name: s.name, lastTickAt: null, updatedAt: sql.now() }));
  if (missing.length === 0) return;
  const caps = db.capabilities;
  const base = insert(State).values(missing);
  const statement = caps.conflictTarget
    ? base.onConflictDoNothing(["name"])
    : caps.onDuplicateKey
      ? base.onDuplicateKeyUpdate({ name: sql.ref("name") })
      : base.ignoreDuplicates();
  await retryStatement(db, () => db.execute(statement).rowsAffected());
  // Inside a caller's transaction the rows exist only if it commits: look again next time.
  if (isTransaction(db)) return;
  for (const row of missing) names.add(row.name);
}
