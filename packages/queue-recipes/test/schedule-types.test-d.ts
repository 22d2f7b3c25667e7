import { describe, expectTypeOf, it } from "vitest";
import type { MissedTicks, Schedule, SchedulePassResult } from "../src/index.js";
import { enqueueScheduled, runSchedules, work } from "../src/index.js";
import type { OutboundModel } from "./support/models.js";

declare const Outbound: OutboundModel;
declare const engine: Parameters<typeof enqueueScheduled>[0];

describe("schedule types", () => {
  it("a schedule's message is the model's insert shape, or a function of the tick returning it", () => {
    const digest: Schedule<OutboundModel> = { name: "digest", cron: "0 3 * * *", message: { consumer: "mail" } };
    const perTick: Schedule<OutboundModel> = { name: "t", cron: "* * * * *", message: (tick) => ({ consumer: tick.toISOString() }) };
    expectTypeOf(enqueueScheduled(engine, Outbound, [digest, perTick])).resolves.toEqualTypeOf<SchedulePassResult>();
    // @ts-expect-error the model has no field "colour"
    const wrongField: Schedule<OutboundModel> = { name: "x", cron: "* * * * *", message: { consumer: "c", colour: "red" } };
    // @ts-expect-error consumer is text, not a number
    const wrongType: Schedule<OutboundModel> = { name: "x", cron: "* * * * *", message: { consumer: 7 } };
    void wrongField;
    void wrongType;
  });

  it("the missed-tick policy is one of four", () => {
    expectTypeOf<"latest">().toExtend<MissedTicks>();
    expectTypeOf<{ last: 3 }>().toExtend<MissedTicks>();
    // @ts-expect-error not a policy
    const sometimes: MissedTicks = "sometimes";
    void sometimes;
  });

  it("work and runSchedules take the schedules of their model", () => {
    const s: Schedule<OutboundModel> = { name: "s", cron: "* * * * *", message: { consumer: "c" } };
    expectTypeOf(runSchedules(engine, Outbound, [s], { maxWaitMs: 1000 })).resolves.toEqualTypeOf<{
      readonly passes: number;
      readonly enqueued: number;
    }>();
    void work(engine, Outbound, () => undefined, { schedules: [s], scheduleOptions: { maxWaitMs: 5000 } });
  });
});
