import type { Engine } from "tempest-db-js";
import { dropTable, select, ValidationError } from "tempest-db-js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Schedule } from "../src/index.js";
import { enqueueScheduled, ensureScheduleSchema, runSchedules, scheduleModel, work } from "../src/index.js";
import { freshQueue } from "./support/fresh-queue.js";
import type { OutboundModel } from "./support/models.js";
import { engineFor, targets } from "./support/targets.js";

/** A queue table and its (empty) schedules table. */
async function freshScheduled(engine: Engine, name: string) {
  const { Outbound } = await freshQueue(engine, name);
  await engine.execute(dropTable(scheduleModel(Outbound), { ifExists: true })).rowsAffected();
  await ensureScheduleSchema(engine, Outbound);
  return Outbound;
}

/** The queued rows of a table as (key, due time), in due order. */
async function queued(engine: Engine, Outbound: OutboundModel) {
  const rows = await engine
    .execute(select(Outbound, ["consumer", "idempotencyKey", "nextAttemptAt", "status"]).orderBy("nextAttemptAt").orderBy("idempotencyKey"))
    .all();
  return rows.map((r) => [r.idempotencyKey, r.nextAttemptAt.toISOString()]);
}

const at = (text: string) => () => new Date(text);

describe.each(targets)("schedules on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 10);
  });
  afterAll(async () => {
    await engine.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("enqueues each tick once, under its own key, due at the tick; a schedule starts when first seen", async () => {
    const Outbound = await freshScheduled(engine, "sched_basic");
    const digest: Schedule<OutboundModel> = { name: "digest", cron: "* * * * *", message: { consumer: "mail" } };
    const first = await enqueueScheduled(engine, Outbound, [digest], { clock: at("2026-01-05T10:00:30Z") });
    expect(first).toMatchObject({ enqueued: [], duplicates: [], now: new Date("2026-01-05T10:00:30Z") });
    expect(first.nextTickAt).toEqual(new Date("2026-01-05T10:01:00Z"));

    const second = await enqueueScheduled(engine, Outbound, [digest], { clock: at("2026-01-05T10:01:05Z") });
    expect(second.enqueued.map((t) => [t.schedule, t.tick.toISOString()])).toEqual([["digest", "2026-01-05T10:01:00.000Z"]]);
    // The same clock again, and a later one within the minute: nothing new.
    await enqueueScheduled(engine, Outbound, [digest], { clock: at("2026-01-05T10:01:05Z") });
    await enqueueScheduled(engine, Outbound, [digest], { clock: at("2026-01-05T10:01:59Z") });
    const rows = await engine.execute(select(Outbound)).all();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: second.enqueued[0]?.id,
      consumer: "mail",
      idempotencyKey: "schedule:digest:2026-01-05T10:01:00.000Z",
      status: "queued",
      attempts: 0,
      nextAttemptAt: new Date("2026-01-05T10:01:00Z"),
    });
    const state = await engine.execute(select(scheduleModel(Outbound))).all();
    // Recorded by the pass that enqueued; passes that found nothing due wrote nothing.
    expect(state.map((s) => [s.name, s.lastTickAt?.toISOString()])).toEqual([["digest", "2026-01-05T10:01:05.000Z"]]);
  });

  it("eight passes racing at one clock, on eight connections, enqueue each due tick once", async () => {
    const Outbound = await freshScheduled(engine, "sched_race");
    const every: Schedule<OutboundModel> = {
      name: "every",
      cron: "* * * * *",
      missed: "all",
      message: (tick) => ({ consumer: `c${tick.getUTCMinutes()}` }),
    };
    await enqueueScheduled(engine, Outbound, [every], { clock: at("2026-01-05T10:00:30Z") });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => enqueueScheduled(engine, Outbound, [every], { clock: at("2026-01-05T10:05:10Z") })),
    );
    expect(results.reduce((n, r) => n + r.enqueued.length, 0)).toBe(5);
    expect(await queued(engine, Outbound)).toEqual(
      [1, 2, 3, 4, 5].map((m) => [`schedule:every:2026-01-05T10:0${m}:00.000Z`, `2026-01-05T10:0${m}:00.000Z`]),
    );
    const consumers = await engine.execute(select(Outbound, ["consumer"]).orderBy("consumer")).all();
    expect(consumers.map((r) => r.consumer)).toEqual(["c1", "c2", "c3", "c4", "c5"]);
  });

  it("after an outage, each schedule follows its missed-tick policy", async () => {
    const Outbound = await freshScheduled(engine, "sched_missed");
    const schedules: Schedule<OutboundModel>[] = [
      { name: "latest", cron: "*/10 * * * *", message: { consumer: "latest" } },
      { name: "all", cron: "*/10 * * * *", missed: "all", message: { consumer: "all" } },
      { name: "last2", cron: "*/10 * * * *", missed: { last: 2 }, message: { consumer: "last2" } },
      { name: "skip", cron: "*/10 * * * *", missed: "skip", graceSeconds: 120, message: { consumer: "skip" } },
      { name: "skip-late", cron: "0 * * * *", missed: "skip", graceSeconds: 120, message: { consumer: "skip-late" } },
    ];
    await enqueueScheduled(engine, Outbound, schedules, { clock: at("2026-01-05T09:55:00Z") });
    // Every worker down from 09:55 to 10:41.
    await enqueueScheduled(engine, Outbound, schedules, { clock: at("2026-01-05T10:41:00Z") });
    const rows = await engine.execute(select(Outbound, ["consumer", "nextAttemptAt"]).orderBy("consumer").orderBy("nextAttemptAt")).all();
    const minutes = (consumer: string) =>
      rows.filter((r) => r.consumer === consumer).map((r) => r.nextAttemptAt.toISOString().slice(11, 16));
    expect(minutes("latest")).toEqual(["10:40"]);
    expect(minutes("all")).toEqual(["10:00", "10:10", "10:20", "10:30", "10:40"]);
    expect(minutes("last2")).toEqual(["10:30", "10:40"]);
    expect(minutes("skip")).toEqual(["10:40"]); // one minute late: within the grace
    expect(minutes("skip-late")).toEqual([]); // 10:00 was 41 minutes late
    // Back to normal: each enqueues 10:50 at 10:50:03 (and skip-late 11:00 at 11:00:03).
    await enqueueScheduled(engine, Outbound, schedules, { clock: at("2026-01-05T10:50:03Z") });
    await enqueueScheduled(engine, Outbound, schedules, { clock: at("2026-01-05T11:00:03Z") });
    const after = await engine.execute(select(Outbound, ["consumer"])).all();
    expect(after.length - rows.length).toBe(4 * 2 + 1);
  });

  it("a pass that fails between reading the clock and enqueuing leaves nothing, and the next pass enqueues the tick", async () => {
    const Outbound = await freshScheduled(engine, "sched_abort");
    const s: Schedule<OutboundModel> = { name: "s", cron: "0 * * * *", message: { consumer: "c" } };
    await enqueueScheduled(engine, Outbound, [s], { clock: at("2026-01-05T09:30:00Z") });
    const seen: string[] = [];
    await expect(
      enqueueScheduled(engine, Outbound, [s], {
        clock: at("2026-01-05T10:00:01Z"),
        onDue: (due) => {
          seen.push(...due.map((d) => d.tick.toISOString()));
          throw new Error("crashed mid-tick");
        },
      }),
    ).rejects.toThrow("crashed mid-tick");
    expect(seen).toEqual(["2026-01-05T10:00:00.000Z"]);
    expect(await queued(engine, Outbound)).toEqual([]);
    const next = await enqueueScheduled(engine, Outbound, [s], { clock: at("2026-01-05T10:00:02Z") });
    expect(next.enqueued).toHaveLength(1);
    expect(await queued(engine, Outbound)).toEqual([["schedule:s:2026-01-05T10:00:00.000Z", "2026-01-05T10:00:00.000Z"]]);
  });

  it("a pass inside the caller's transaction commits or rolls back with it", async () => {
    const Outbound = await freshScheduled(engine, "sched_tx");
    const s: Schedule<OutboundModel> = { name: "s", cron: "0 * * * *", message: { consumer: "c" } };
    const rolledBack = await engine
      .transaction(async (tx) => {
        await enqueueScheduled(tx, Outbound, [s], { clock: at("2026-01-05T09:30:00Z") });
        throw new Error("the caller changed its mind");
      })
      .catch((e: unknown) => e);
    expect((rolledBack as Error).message).toBe("the caller changed its mind");
    expect(await engine.execute(select(scheduleModel(Outbound))).all()).toEqual([]);
    // The state row went with the transaction, and the next pass writes it again.
    await enqueueScheduled(engine, Outbound, [s], { clock: at("2026-01-05T09:30:00Z") });
    const inTx = await engine.transaction((tx) => enqueueScheduled(tx, Outbound, [s], { clock: at("2026-01-05T10:00:01Z") }));
    expect(inTx.enqueued.map((t) => t.tick.toISOString())).toEqual(["2026-01-05T10:00:00.000Z"]);
    expect(await queued(engine, Outbound)).toEqual([["schedule:s:2026-01-05T10:00:00.000Z", "2026-01-05T10:00:00.000Z"]]);
  });

  it("ticks follow the database clock, not the worker's: a process clock three hours ahead changes nothing", async () => {
    const Outbound = await freshScheduled(engine, "sched_skew");
    const s: Schedule<OutboundModel> = { name: "s", cron: "* * * * * *", missed: "all", message: { consumer: "c" } };
    const realNow = () => performance.timeOrigin + performance.now();
    vi.useFakeTimers({ toFake: ["Date"], now: realNow() + 3 * 3600_000 });
    expect(Math.abs(Date.now() - realNow() - 3 * 3600_000)).toBeLessThan(1000);
    const first = await enqueueScheduled(engine, Outbound, [s]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const second = await enqueueScheduled(engine, Outbound, [s]);
    const after = realNow();
    vi.useRealTimers();
    expect(Math.abs((first.now as Date).getTime() - realNow())).toBeLessThan(10_000);
    expect(second.enqueued.length).toBeGreaterThanOrEqual(1);
    for (const { tick } of second.enqueued) {
      expect(tick.getTime()).toBeGreaterThan((first.now as Date).getTime());
      expect(tick.getTime()).toBeLessThanOrEqual(after + 1000);
    }
  });

  it("a DST change through the database: Amsterdam's spring forward and fall back, Sao Paulo's midnight gap and repeated hour", async () => {
    /** Passes every 20 minutes of the database clock over a window; the due times enqueued, per schedule. */
    const window = async (table: string, schedules: Schedule<OutboundModel>[], from: string, to: string) => {
      const Outbound = await freshScheduled(engine, table);
      for (let t = new Date(from).getTime(); t <= new Date(to).getTime(); t += 20 * 60_000) {
        await enqueueScheduled(engine, Outbound, schedules, { clock: () => new Date(t) });
      }
      const rows = await engine.execute(select(Outbound, ["consumer", "nextAttemptAt"]).orderBy("nextAttemptAt")).all();
      const out: Record<string, string[]> = {};
      for (const r of rows) (out[r.consumer] ??= []).push(r.nextAttemptAt.toISOString().slice(0, 16));
      return out;
    };
    const amsterdam: Schedule<OutboundModel>[] = [
      { name: "ams-0230", cron: "30 2 * * *", timeZone: "Europe/Amsterdam", message: { consumer: "daily 02:30" } },
      { name: "ams-30min", cron: "*/30 * * * *", timeZone: "Europe/Amsterdam", message: { consumer: "every 30 min" } },
    ];
    // 2024-03-31: 02:00 CET -> 03:00 CEST at 01:00 UTC.
    expect(await window("sched_dst_spring", amsterdam, "2024-03-30T23:50:00Z", "2024-03-31T02:10:00Z")).toEqual({
      "daily 02:30": ["2024-03-31T01:00"], // 03:00 CEST: right after the jump
      "every 30 min": ["2024-03-31T00:00", "2024-03-31T00:30", "2024-03-31T01:00", "2024-03-31T01:30", "2024-03-31T02:00"],
    });
    // 2024-10-27: 03:00 CEST -> 02:00 CET at 01:00 UTC.
    expect(await window("sched_dst_fall", amsterdam, "2024-10-26T23:50:00Z", "2024-10-27T01:50:00Z")).toEqual({
      "daily 02:30": ["2024-10-27T00:30"], // 02:30 CEST only, not 02:30 CET (01:30 UTC)
      "every 30 min": ["2024-10-27T00:00", "2024-10-27T00:30", "2024-10-27T01:00", "2024-10-27T01:30"], // both passes of the hour
    });
    const saoPaulo: Schedule<OutboundModel>[] = [
      { name: "sp-midnight", cron: "0 0 * * *", timeZone: "America/Sao_Paulo", message: { consumer: "midnight" } },
      { name: "sp-2330", cron: "30 23 * * *", timeZone: "America/Sao_Paulo", message: { consumer: "23:30" } },
    ];
    // 2018-11-04: 00:00 -03 -> 01:00 -02 at 03:00 UTC.
    expect(await window("sched_dst_sp_spring", saoPaulo, "2018-11-03T23:50:00Z", "2018-11-04T03:10:00Z")).toEqual({
      midnight: ["2018-11-04T03:00"], // 01:00 -02, the day's first minute
      "23:30": ["2018-11-04T02:30"], // 3 November, 23:30 -03
    });
    // 2019-02-17: 00:00 -02 -> 2019-02-16 23:00 -03 at 02:00 UTC.
    expect(await window("sched_dst_sp_fall", saoPaulo, "2019-02-17T00:50:00Z", "2019-02-17T03:10:00Z")).toEqual({
      "23:30": ["2019-02-17T01:30"], // 23:30 -02; not again at 23:30 -03 (02:30 UTC)
      midnight: ["2019-02-17T03:00"], // 00:00 -03: the clock turned back just before reading 00:00 -02
    });
  });

  it("runSchedules and work run schedules in real time, and refuse a missing schedules table", async () => {
    const Outbound = await freshScheduled(engine, "sched_loop");
    const s: Schedule<OutboundModel> = {
      name: "tick",
      cron: "* * * * * *",
      message: (tick) => ({ consumer: "loop", nextAttemptAt: tick }),
    };
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 1600);
    const loop = await runSchedules(engine, Outbound, [s], { signal: stop.signal });
    expect(loop.enqueued).toBeGreaterThanOrEqual(1);
    const ticks = (await queued(engine, Outbound)).map(([, due]) => new Date(due as string).getTime());
    expect(ticks).toHaveLength(loop.enqueued);
    expect(ticks.slice(1).map((t, i) => t - (ticks[i] as number))).toEqual(ticks.slice(1).map(() => 1000)); // no second missing

    // work() with schedules: the drain delivers what the scheduler beside it enqueues.
    const delivered: string[] = [];
    const stopWork = new AbortController();
    const totals = await work(
      engine,
      Outbound,
      (message) => {
        delivered.push(message.idempotencyKey as string);
        if (delivered.length === ticks.length + 1) stopWork.abort();
      },
      { schedules: [s], signal: stopWork.signal, pollIntervalMs: 50 },
    );
    expect(totals.sent).toBe(delivered.length);
    expect(new Set(delivered).size).toBe(delivered.length);

    const Missing = (await freshQueue(engine, "sched_missing")).Outbound;
    await engine.execute(dropTable(scheduleModel(Missing), { ifExists: true })).rowsAffected();
    const refused = await runSchedules(engine, Missing, [s]).catch((e: unknown) => e);
    expect(ValidationError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toMatch(/qr_sched_missing_schedules does not exist.*ensureScheduleSchema.*CREATE TABLE/s);
    await expect(work(engine, Missing, () => undefined, { schedules: [s] })).rejects.toThrow(/does not exist/);
  });
});
