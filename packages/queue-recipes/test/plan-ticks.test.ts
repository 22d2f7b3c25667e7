import { ValidationError } from "tempest-db-js";
import { describe, expect, it } from "vitest";
import { planTicks } from "../src/plan-ticks.js";
import type { Schedule } from "../src/schedule.js";
import { compileSchedules } from "../src/schedule.js";

function compiled(schedule: Omit<Schedule, "name" | "message"> & { name?: string }) {
  return compileSchedules([{ name: "s", message: { consumer: "c" }, ...schedule }])[0]!;
}

const iso = (dates: readonly Date[]) => dates.map((d) => d.toISOString());
const at = (text: string) => new Date(text);

/** Every tick of the schedule in (from, to], by planning a pass every 7 minutes: what a running scheduler sees. */
function ticksOverTime(schedule: ReturnType<typeof compiled>, from: string, to: string, stepMs = 7 * 60_000): string[] {
  let last: Date | null = at(from);
  const out: string[] = [];
  const end = at(to).getTime();
  for (let t = at(from).getTime() + stepMs; t < end + stepMs; t += stepMs) {
    const plan = planTicks(schedule, last, new Date(Math.min(t, end)));
    out.push(...iso(plan.ticks));
    last = plan.through;
  }
  return out;
}

describe("planTicks: missed-tick policies", () => {
  const start = at("2026-01-05T10:00:30Z");

  it("a schedule seen for the first time starts at the clock: no tick from before it runs", () => {
    const plan = planTicks(compiled({ cron: "* * * * *", missed: "all" }), null, start);
    expect(plan).toEqual({ ticks: [], through: start, more: false });
  });

  it("on time, every policy enqueues the one due tick, a tick exactly at the clock included", () => {
    for (const missed of ["latest", "all", "skip", { last: 3 }] as const) {
      const s = compiled({ cron: "* * * * *", missed });
      expect(iso(planTicks(s, start, at("2026-01-05T10:01:00.000Z")).ticks), JSON.stringify(missed)).toEqual(["2026-01-05T10:01:00.000Z"]);
      expect(planTicks(s, at("2026-01-05T10:01:00.000Z"), at("2026-01-05T10:01:59.999Z")).ticks).toEqual([]);
    }
  });

  it("after an outage: latest takes the newest, all every one, { last: n } the n newest, skip none older than the grace", () => {
    const later = at("2026-01-05T10:05:20Z"); // ticks 10:01 ... 10:05 are due
    expect(iso(planTicks(compiled({ cron: "* * * * *", missed: "latest" }), start, later).ticks)).toEqual(["2026-01-05T10:05:00.000Z"]);
    expect(iso(planTicks(compiled({ cron: "* * * * *", missed: "all" }), start, later).ticks)).toEqual([
      "2026-01-05T10:01:00.000Z",
      "2026-01-05T10:02:00.000Z",
      "2026-01-05T10:03:00.000Z",
      "2026-01-05T10:04:00.000Z",
      "2026-01-05T10:05:00.000Z",
    ]);
    expect(iso(planTicks(compiled({ cron: "* * * * *", missed: { last: 2 } }), start, later).ticks)).toEqual([
      "2026-01-05T10:04:00.000Z",
      "2026-01-05T10:05:00.000Z",
    ]);
    expect(iso(planTicks(compiled({ cron: "* * * * *", missed: "skip", graceSeconds: 90 }), start, later).ticks)).toEqual([
      "2026-01-05T10:04:00.000Z",
      "2026-01-05T10:05:00.000Z",
    ]);
    expect(
      planTicks(compiled({ cron: "0 10 * * *", missed: "skip" }), at("2026-01-05T09:00:00Z"), at("2026-01-05T10:01:01Z")).ticks,
    ).toEqual([]);
    for (const missed of ["latest", "all", "skip", { last: 2 }] as const) {
      expect(planTicks(compiled({ cron: "* * * * *", missed }), start, later).through).toEqual(later);
    }
  });

  it("all after a long outage goes 1,000 ticks a pass and says there is more", () => {
    const s = compiled({ cron: "* * * * *", missed: "all" });
    const first = planTicks(s, at("2026-01-01T00:00:00Z"), at("2026-01-02T00:00:00Z"));
    expect(first.ticks).toHaveLength(1000);
    expect(first.more).toBe(true);
    expect(first.through).toEqual(first.ticks[999]);
    const second = planTicks(s, first.through, at("2026-01-02T00:00:00Z"));
    expect(second.ticks).toHaveLength(1440 - 1000);
    expect(second.ticks[0]!.getTime() - first.through.getTime()).toBe(60_000);
    expect(second.more).toBe(false);
  });

  it("a database clock that went back enqueues nothing and keeps the state", () => {
    const s = compiled({ cron: "* * * * *" });
    expect(planTicks(s, start, at("2026-01-05T09:00:00Z"))).toEqual({ ticks: [], through: start, more: false });
  });
});

describe("planTicks: daylight saving time", () => {
  // Europe/Amsterdam: 2024-03-31 02:00 CET -> 03:00 CEST (01:00 UTC); 2024-10-27 03:00 CEST -> 02:00 CET (01:00 UTC).
  it("Amsterdam spring forward: a fixed time in the skipped hour runs when the clock has jumped; an interval skips the hour", () => {
    const daily = compiled({ cron: "30 2 * * *", timeZone: "Europe/Amsterdam" });
    expect(ticksOverTime(daily, "2024-03-30T12:00:00Z", "2024-04-01T12:00:00Z")).toEqual([
      "2024-03-31T01:00:00.000Z", // 03:00 CEST, the first minute after the gap
      "2024-04-01T00:30:00.000Z", // 02:30 CEST
    ]);
    const twice = compiled({ cron: "0 2,14 * * *", timeZone: "Europe/Amsterdam" });
    expect(ticksOverTime(twice, "2024-03-30T12:00:00Z", "2024-03-31T13:00:00Z")).toEqual([
      "2024-03-30T13:00:00.000Z",
      "2024-03-31T01:00:00.000Z", // a list of fixed times is fixed-time too
      "2024-03-31T12:00:00.000Z",
    ]);
    const halfHourly = compiled({ cron: "*/30 * * * *", timeZone: "Europe/Amsterdam" });
    expect(ticksOverTime(halfHourly, "2024-03-31T00:00:00Z", "2024-03-31T02:00:00Z")).toEqual([
      "2024-03-31T00:30:00.000Z", // 01:30 CET
      "2024-03-31T01:00:00.000Z", // 03:00 CEST: 02:00 and 02:30 never happened
      "2024-03-31T01:30:00.000Z",
      "2024-03-31T02:00:00.000Z",
    ]);
  });

  it("Amsterdam fall back: a fixed time in the repeated hour runs once, at its first occurrence; an interval runs in both", () => {
    const daily = compiled({ cron: "30 2 * * *", timeZone: "Europe/Amsterdam" });
    expect(ticksOverTime(daily, "2024-10-26T12:00:00Z", "2024-10-28T12:00:00Z")).toEqual([
      "2024-10-27T00:30:00.000Z", // 02:30 CEST; not again at 02:30 CET (01:30 UTC)
      "2024-10-28T01:30:00.000Z", // 02:30 CET
    ]);
    const halfHourly = compiled({ cron: "*/30 * * * *", timeZone: "Europe/Amsterdam" });
    expect(ticksOverTime(halfHourly, "2024-10-26T23:45:00Z", "2024-10-27T01:45:00Z")).toEqual([
      "2024-10-27T00:00:00.000Z", // 02:00 CEST
      "2024-10-27T00:30:00.000Z", // 02:30 CEST
      "2024-10-27T01:00:00.000Z", // 02:00 CET
      "2024-10-27T01:30:00.000Z", // 02:30 CET
    ]);
  });

  // America/Sao_Paulo (DST until 2019), changing at midnight: 2018-11-04 00:00 -> 01:00; 2019-02-17 00:00 -> 2019-02-16 23:00.
  it("Sao Paulo spring forward at midnight: a midnight job runs at 01:00, the first minute of that day", () => {
    const midnight = compiled({ cron: "0 0 * * *", timeZone: "America/Sao_Paulo" });
    expect(ticksOverTime(midnight, "2018-11-02T12:00:00Z", "2018-11-05T12:00:00Z")).toEqual([
      "2018-11-03T03:00:00.000Z", // 00:00 -03
      "2018-11-04T03:00:00.000Z", // 01:00 -02: midnight did not exist
      "2018-11-05T02:00:00.000Z", // 00:00 -02
    ]);
  });

  it("Sao Paulo fall back: 23:30 on 16 February 2019 happened twice and runs once", () => {
    const late = compiled({ cron: "30 23 * * *", timeZone: "America/Sao_Paulo" });
    expect(ticksOverTime(late, "2019-02-15T12:00:00Z", "2019-02-18T12:00:00Z")).toEqual([
      "2019-02-16T01:30:00.000Z", // 15 Feb 23:30 -02
      "2019-02-17T01:30:00.000Z", // 16 Feb 23:30 -02, the first occurrence; not 02:30 UTC
      "2019-02-18T02:30:00.000Z", // 17 Feb 23:30 -03
    ]);
  });

  it("latest after an outage across a transition picks the same tick a running scheduler would have last", () => {
    for (const [cron, timeZone, from, to] of [
      ["30 2 * * *", "Europe/Amsterdam", "2024-03-30T12:00:00Z", "2024-03-31T05:00:00Z"],
      ["*/30 * * * *", "Europe/Amsterdam", "2024-10-26T23:45:00Z", "2024-10-27T01:45:00Z"],
      ["30 23 * * *", "America/Sao_Paulo", "2019-02-16T12:00:00Z", "2019-02-17T02:00:00Z"],
    ] as const) {
      const all = ticksOverTime(compiled({ cron, timeZone, missed: "all" }), from, to);
      const latest = planTicks(compiled({ cron, timeZone, missed: "latest" }), at(from), at(to));
      expect(iso(latest.ticks), `${cron} ${timeZone}`).toEqual([all.at(-1)]);
    }
  });
});

describe("schedules are checked before anything runs", () => {
  it.each([
    [{ name: "", cron: "* * * * *" }, /name must be a text/],
    [{ name: "x", cron: "61 * * * *" }, /cron expression not understood/],
    [{ name: "x", cron: "* * * * *", timeZone: "Mars/Olympus" }, /unknown time zone/],
    [{ name: "x", cron: "* * * * *", missed: "sometimes" }, /missed must be/],
    [{ name: "x", cron: "* * * * *", missed: { last: 0 } }, /missed must be/],
    [{ name: "x", cron: "* * * * *", graceSeconds: -1 }, /graceSeconds/],
    [{ name: "x", cron: "0 0 30 2 *" }, /never runs/],
  ])("%j", (schedule, message) => {
    const error = (() => {
      try {
        compileSchedules([{ message: { consumer: "c" }, ...schedule } as Schedule]);
      } catch (e) {
        return e;
      }
    })();
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(message);
  });

  it("two schedules with one name", () => {
    const s = { name: "dup", cron: "* * * * *", message: { consumer: "c" } };
    expect(() => compileSchedules([s, { ...s }])).toThrow(/used twice/);
  });
});
