import type { Engine } from "tempest-db-js";
import { dropTable, select } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueue, ensureQueueSchema, work } from "../src/index.js";
import { freshQueue } from "./support/fresh-queue.js";
import { outboundModel } from "./support/models.js";
import { engineFor, targets } from "./support/targets.js";

describe.each(targets)("work on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 4);
  });
  afterAll(async () => {
    await engine.close();
  });

  it("picks up messages enqueued while it idles (LISTEN/NOTIFY where the dialect has it, polling elsewhere)", async () => {
    const { Outbound } = await freshQueue(engine, "work_wake");
    await enqueue(engine, Outbound, { consumer: "first" });
    const controller = new AbortController();
    const seen: string[] = [];
    // With notifications the poll interval is ten minutes: only a wake-up can deliver the second message in time.
    const pollIntervalMs = engine.capabilities.listenNotify ? 600_000 : 50;
    const totals = await work(
      engine,
      Outbound,
      async (message) => {
        seen.push(message.consumer);
        if (message.consumer === "first") {
          // By now the loop is subscribed (it listens before its first drain); this enqueue notifies it.
          setTimeout(() => void enqueue(engine, Outbound, { consumer: "second" }), 50);
        } else {
          controller.abort();
        }
      },
      { pollIntervalMs, signal: controller.signal },
    );
    expect(seen).toEqual(["first", "second"]);
    expect(totals.sent).toBe(2);
  });

  it("stops on abort after finishing and settling the deliveries in flight", async () => {
    const { Outbound } = await freshQueue(engine, "work_abort");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 5 }, (_, i) => ({ consumer: `c${i}` })),
    );
    const controller = new AbortController();
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = 0;
    const running = work(
      engine,
      Outbound,
      async () => {
        started++;
        if (started === 5) {
          controller.abort();
          setTimeout(release, 30);
        }
        await gate;
      },
      { batchSize: 5, pollIntervalMs: 50, signal: controller.signal },
    );
    const totals = await running;
    expect(totals.sent).toBe(5);
    const statuses = (await engine.execute(select(Outbound, ["status"])).all()).map((r) => r.status);
    expect(statuses).toEqual(["sent", "sent", "sent", "sent", "sent"]);
  });

  it("backs off on database errors and resumes when the database is back", async () => {
    const Outbound = outboundModel("qr_work_errors");
    await engine.execute(dropTable(Outbound, { ifExists: true })).rowsAffected();
    const controller = new AbortController();
    const errors: unknown[] = [];
    const totals = await work(
      engine,
      Outbound,
      () => {
        controller.abort();
      },
      {
        pollIntervalMs: 20,
        errorBackoffMs: 10,
        signal: controller.signal,
        onError: (error) => {
          errors.push(error);
          // The table appears after a few failed rounds, as a database coming back would.
          if (errors.length === 3) {
            void ensureQueueSchema(engine, Outbound).then(() => enqueue(engine, Outbound, { consumer: "back" }));
          }
        },
      },
    );
    expect(errors.length).toBeGreaterThanOrEqual(3);
    expect(totals.sent).toBe(1);
  });

  it("rejects at once on a configuration error instead of retrying it", async () => {
    const { Outbound } = await freshQueue(engine, "work_config");
    const errors: unknown[] = [];
    await expect(work(engine, Outbound, () => {}, { batchSize: 0, onError: (error) => errors.push(error) })).rejects.toThrow(
      /batchSize must be a positive integer/,
    );
    expect(errors).toEqual([]);
  });
});
