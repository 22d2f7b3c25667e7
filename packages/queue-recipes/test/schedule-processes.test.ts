import type { ChildProcess } from "node:child_process";
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Engine } from "tempest-db-js";
import { dropTable, select } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueScheduled, ensureScheduleSchema, scheduleModel } from "../src/index.js";
import { freshQueue } from "./support/fresh-queue.js";
import type { Target } from "./support/targets.js";
import { engineFor, targets } from "./support/targets.js";
import { workerEnv } from "./support/worker-env.js";

interface SchedulerMessage {
  readonly result?: { passes: number; enqueued: number };
  /** The process's own Date.now() when it reported. */
  readonly ownClock?: number;
  readonly due?: string[];
  readonly pass?: { now: string | null; enqueued: string[] };
}

const script = fileURLToPath(new URL("./fixtures/scheduler.mjs", import.meta.url));

/** Quick in CI; QUEUE_SCHEDULE_PROCESSES=8 QUEUE_SCHEDULE_SECONDS=30 for a longer run. */
const PROCESSES = Number(process.env.QUEUE_SCHEDULE_PROCESSES ?? 4);
const SECONDS = Number(process.env.QUEUE_SCHEDULE_SECONDS ?? 3);

/** Forks tests/fixtures/scheduler.mjs (the built packages, as in production). */
function forkScheduler(target: Target, config: Record<string, unknown>) {
  const child: ChildProcess = fork(script, [], {
    execArgv: [],
    env: workerEnv({ QUEUE_SCHEDULER: JSON.stringify({ ...config, url: target.url, dialectPackage: target.dialectPackage }) }),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const messages: SchedulerMessage[] = [];
  const waiters: ((m: SchedulerMessage) => void)[] = [];
  child.on("message", (m) => {
    messages.push(m as SchedulerMessage);
    waiters.shift()?.(m as SchedulerMessage);
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const next = () => new Promise<SchedulerMessage>((resolve) => waiters.push(resolve));
  return { child, messages, exited, next };
}

describe.each(targets)("scheduler processes on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 4);
  });
  afterAll(async () => {
    await engine.close();
  });

  async function freshScheduled(name: string) {
    const { Outbound } = await freshQueue(engine, name);
    await engine.execute(dropTable(scheduleModel(Outbound), { ifExists: true })).rowsAffected();
    await ensureScheduleSchema(engine, Outbound);
    return Outbound;
  }

  it(`${PROCESSES} processes with clocks hours apart run a per-second schedule for ${SECONDS} s of real time: every second's tick is enqueued, each once`, async () => {
    const Outbound = await freshScheduled("sched_procs");
    const schedules = [{ name: "second", cron: "* * * * * *", missed: "all" }];
    // Their own clocks disagree by hours: the ticks still follow the database's.
    const skews = [0, 3 * 3600_000, -2 * 3600_000, 17 * 60_000];
    const started = Date.now();
    const procs = Array.from({ length: PROCESSES }, (_, i) =>
      forkScheduler(target, {
        table: Outbound.tablename,
        schedules,
        mode: "loop",
        durationMs: SECONDS * 1000,
        skewMs: skews[i % skews.length],
      }),
    );
    expect(await Promise.all(procs.map((p) => p.exited))).toEqual(procs.map(() => 0));
    const results = procs.map((p) => p.messages.find((m) => m.result)?.result);
    for (const r of results) expect(r?.passes).toBeGreaterThan(0);
    procs.forEach((p, i) => {
      const skew = (p.messages.find((m) => m.result)?.ownClock ?? 0) - Date.now();
      expect(Math.abs(skew - (skews[i % skews.length] as number))).toBeLessThan(60_000); // the fake clock was in force
    });
    const rows = await engine.execute(select(Outbound, ["idempotencyKey", "nextAttemptAt"]).orderBy("nextAttemptAt")).all();
    // Each process counts only what it inserted itself: the counts add up to the rows, so no tick was enqueued twice.
    expect(results.reduce((n, r) => n + (r?.enqueued ?? 0), 0)).toBe(rows.length);
    expect(rows.length).toBeGreaterThanOrEqual(Math.max(2, SECONDS - 2));
    if (process.env.QUEUE_SCHEDULE_SECONDS) {
      const by = results.map((r) => r?.enqueued ?? 0);
      console.log(
        `${target.name}: ${PROCESSES} processes, ${SECONDS} s: ${rows.length} ticks, each once; enqueued per process ${by.join(", ")}`,
      );
    }
    const ticks = rows.map((r) => r.nextAttemptAt.getTime());
    // Within the run by this (unskewed) process's clock, give or take the database host's offset.
    expect(ticks[0]).toBeGreaterThan(started - 5000);
    expect(ticks.at(-1)).toBeLessThan(Date.now() + 5000);
    // No second missing between the first tick and the last.
    expect(ticks.slice(1).map((t, i) => t - (ticks[i] as number))).toEqual(ticks.slice(1).map(() => 1000));
    expect(rows.map((r) => r.idempotencyKey)).toEqual(rows.map((r) => `schedule:second:${r.nextAttemptAt.toISOString()}`));
  });

  it("a process killed by SIGKILL between reading the clock and enqueuing: another process enqueues the tick, once", async () => {
    const Outbound = await freshScheduled("sched_kill");
    const schedules = [{ name: "hourly", cron: "0 * * * *" }];
    await enqueueScheduled(
      engine,
      Outbound,
      schedules.map((s) => ({ ...s, message: { consumer: s.name } })),
      {
        clock: () => new Date("2026-01-05T09:30:00Z"),
      },
    );
    const config = { table: Outbound.tablename, schedules, clock: "2026-01-05T10:00:07Z" };
    const victim = forkScheduler(target, { ...config, mode: "hang" });
    expect((await victim.next()).due).toEqual(["2026-01-05T10:00:00.000Z"]);
    victim.child.kill("SIGKILL");
    await victim.exited;
    expect(await engine.execute(select(Outbound, ["id"])).all()).toEqual([]);

    const survivor = forkScheduler(target, { ...config, mode: "pass" });
    const { pass } = await survivor.next();
    expect(await survivor.exited).toBe(0);
    expect(pass).toEqual({ now: "2026-01-05T10:00:07.000Z", enqueued: ["2026-01-05T10:00:00.000Z"] });
    const rows = await engine.execute(select(Outbound, ["idempotencyKey", "status"])).all();
    expect(rows).toEqual([{ idempotencyKey: "schedule:hourly:2026-01-05T10:00:00.000Z", status: "queued" }]);
  });
});
