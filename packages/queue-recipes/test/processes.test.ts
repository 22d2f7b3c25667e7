import type { Engine } from "tempest-db-js";
import { insert, select } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueue, work } from "../src/index.js";
import { countBy, freshQueue } from "./support/fresh-queue.js";
import { forkWorker } from "./support/run-worker.js";
import { engineFor, MESSAGES, targets } from "./support/targets.js";

describe.each(targets)("worker processes on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 8);
  });
  afterAll(async () => {
    await engine.close();
  });

  it("4 processes drain thousands of messages, each delivered exactly once", async () => {
    const { Outbound, Delivery } = await freshQueue(engine, "proc_once");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: MESSAGES }, (_, i) => ({ consumer: `c${i % 3}`, idempotencyKey: `k${i}` })),
    );
    const workers = Array.from({ length: 4 }, () =>
      forkWorker(target, { table: Outbound.tablename, deliveries: Delivery.tablename, batchSize: 20, concurrency: 2 }),
    );
    const codes = await Promise.all(workers.map((w) => w.exited));
    expect(codes).toEqual([0, 0, 0, 0]);
    const results = workers.map((w) => w.messages.find((m) => m.result)?.result);
    expect(results.reduce((sum, r) => sum + (r?.sent ?? 0), 0)).toBe(MESSAGES);
    // Several processes really shared the work.
    expect(results.filter((r) => (r?.sent ?? 0) > 0).length).toBeGreaterThan(1);
    const deliveries = await engine.execute(select(Delivery, ["messageId"])).all();
    expect(deliveries).toHaveLength(MESSAGES);
    expect(new Set(deliveries.map((d) => d.messageId)).size).toBe(MESSAGES);
    const statuses = countBy(await engine.execute(select(Outbound, ["status"])).all(), (r) => r.status);
    expect(statuses).toEqual({ sent: MESSAGES });
  });

  it("loses nothing when a worker is killed with SIGKILL mid-batch: its rows are reclaimed after the lease and sent", async () => {
    const { Outbound, Delivery } = await freshQueue(engine, "proc_kill");
    const total = 60;
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: total }, () => ({ consumer: "k" })),
    );
    const victim = forkWorker(target, {
      table: Outbound.tablename,
      deliveries: Delivery.tablename,
      batchSize: 20,
      concurrency: 1,
      hangAfter: 7,
    });
    const hanging = await victim.next();
    expect(hanging.hanging).toBe(7);
    victim.child.kill("SIGKILL");
    await victim.exited;
    // The batch's deliveries run concurrently: at least 7 got through before the kill, maybe more.
    const early = await engine.execute(select(Delivery, ["messageId"]).where({ worker: `pid-${victim.child.pid}` })).all();
    expect(early.length).toBeGreaterThanOrEqual(7);
    const stranded = await engine.execute(select(Outbound, ["id"]).where({ status: "sending" })).all();
    expect(stranded).toHaveLength(20);

    // A surviving worker with a 1 s lease: it sends the untouched rows, then reclaims the dead claim.
    const controller = new AbortController();
    const guard = setTimeout(() => controller.abort(), 30_000);
    const totals = await work(
      engine,
      Outbound,
      async (message) => {
        await engine.execute(insert(Delivery).values({ messageId: message.id, worker: "survivor" })).rowsAffected();
      },
      {
        batchSize: 10,
        leaseSeconds: 1,
        pollIntervalMs: 100,
        signal: controller.signal,
        onProgress: (_round, sofar) => {
          if (sofar.sent === total) controller.abort();
        },
      },
    );
    clearTimeout(guard);
    expect(totals).toMatchObject({ sent: total, failed: 0, stale: 0, reclaimed: 20 });
    const rows = await engine.execute(select(Outbound, ["id", "status", "attempts"])).all();
    expect(rows.every((r) => r.status === "sent")).toBe(true);
    const strandedIds = new Set(stranded.map((r) => r.id));
    expect(rows.filter((r) => strandedIds.has(r.id)).every((r) => r.attempts === 2)).toBe(true);
    // At least once: what the dead worker delivered before it died is delivered again, nothing else twice.
    // Read again now: an INSERT the dead worker had sent may have committed after its death (the
    // server finishes a statement it has received), after the first read above.
    const byVictim = await engine.execute(select(Delivery, ["messageId"]).where({ worker: `pid-${victim.child.pid}` })).all();
    expect(byVictim.length).toBeGreaterThanOrEqual(early.length);
    const perMessage = countBy(await engine.execute(select(Delivery, ["messageId"])).all(), (d) => d.messageId);
    expect(Object.keys(perMessage)).toHaveLength(total);
    expect(
      Object.entries(perMessage)
        .filter(([, n]) => n === 2)
        .map(([id]) => id)
        .sort(),
    ).toEqual(byVictim.map((d) => d.messageId).sort());
    expect(Object.values(perMessage).every((n) => n <= 2)).toBe(true);
  });
});
