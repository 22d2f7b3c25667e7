import type { Engine } from "tempest-db-js";
import { insert, op, select } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueue, work } from "../src/index.js";
import { countBy, freshQueue } from "./support/fresh-queue.js";
import type { OutboundModel } from "./support/models.js";
import { forkWorker } from "./support/run-worker.js";
import { engineFor, MESSAGES, targets } from "./support/targets.js";

// The fused cycle is PostgreSQL's (the other dialects refuse it: settle-and-claim.test.ts).
const postgres = targets.filter((t) => t.name === "PostgreSQL");

describe.each(postgres)("fused worker processes on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 8);
  });
  afterAll(async () => {
    await engine.close();
  });

  /** A worker in this process, fused, with a 1 s lease: it sends what is left and reclaims dead claims. */
  async function survive(Outbound: OutboundModel, Delivery: { tablename: string } & any, total: number) {
    const left = () => engine.execute(select(Outbound, ["id"]).where({ status: op.in(["queued", "sending"]) })).all();
    const controller = new AbortController();
    if ((await left()).length === 0) controller.abort();
    const guard = setTimeout(() => controller.abort(), 100_000);
    const totals = await work(
      engine,
      Outbound,
      async (message) => {
        await engine.execute(insert(Delivery).values({ messageId: message.id, worker: "survivor" })).rowsAffected();
      },
      {
        fused: true,
        batchSize: 10,
        leaseSeconds: 1,
        pollIntervalMs: 100,
        signal: controller.signal,
        onProgress: async () => {
          if ((await left()).length === 0) controller.abort();
        },
      },
    );
    clearTimeout(guard);
    const rows = await engine.execute(select(Outbound, ["status"])).all();
    expect(countBy(rows, (r) => r.status)).toEqual({ sent: total });
    return totals;
  }

  /** Each message delivered at least once; twice only if a killed worker delivered it. */
  async function expectAtLeastOnce(Delivery: any, total: number, killed: readonly number[]) {
    const all = (await engine.execute(select(Delivery, ["messageId", "worker"])).all()) as { messageId: string; worker: string }[];
    const perMessage = countBy(all, (d) => d.messageId);
    expect(Object.keys(perMessage)).toHaveLength(total);
    const byKilled = new Set(all.filter((d) => killed.some((pid) => d.worker === `pid-${pid}`)).map((d) => d.messageId));
    for (const [id, n] of Object.entries(perMessage)) {
      if (n > 1) expect(byKilled.has(id)).toBe(true);
      expect(n).toBeLessThanOrEqual(2);
    }
    return { perMessage, byKilled };
  }

  it("4 processes × 2 lanes drain thousands of messages fused, each delivered exactly once", async () => {
    const { Outbound, Delivery } = await freshQueue(engine, "fused_proc_once");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: MESSAGES }, (_, i) => ({ consumer: `c${i % 3}`, idempotencyKey: `k${i}` })),
    );
    const workers = Array.from({ length: 4 }, () =>
      forkWorker(target, { table: Outbound.tablename, deliveries: Delivery.tablename, batchSize: 20, concurrency: 2, fused: true }),
    );
    const codes = await Promise.all(workers.map((w) => w.exited));
    expect(codes).toEqual([0, 0, 0, 0]);
    const results = workers.map((w) => w.messages.find((m) => m.result)?.result);
    expect(results.reduce((sum, r) => sum + (r?.sent ?? 0), 0)).toBe(MESSAGES);
    expect(results.every((r) => r?.stale === 0 && r.failed === 0)).toBe(true);
    expect(results.filter((r) => (r?.sent ?? 0) > 0).length).toBeGreaterThan(1);
    const deliveries = await engine.execute(select(Delivery, ["messageId"])).all();
    expect(deliveries).toHaveLength(MESSAGES);
    expect(new Set(deliveries.map((d) => d.messageId)).size).toBe(MESSAGES);
    expect(countBy(await engine.execute(select(Outbound, ["status"])).all(), (r) => r.status)).toEqual({ sent: MESSAGES });
  });

  it("a worker killed mid-cycle: the batch its last statement settled stays sent, the batch it claimed is reclaimed", async () => {
    const { Outbound, Delivery } = await freshQueue(engine, "fused_proc_kill");
    const total = 60;
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: total }, () => ({ consumer: "k" })),
    );
    // Batches of 20, hanging at the 30th delivery: inside the second batch, which the statement that
    // settled the first one claimed.
    const victim = forkWorker(target, {
      table: Outbound.tablename,
      deliveries: Delivery.tablename,
      batchSize: 20,
      concurrency: 1,
      hangAfter: 30,
      fused: true,
    });
    expect((await victim.next()).hanging).toBe(30);
    victim.child.kill("SIGKILL");
    await victim.exited;
    const statuses = countBy(await engine.execute(select(Outbound, ["status"])).all(), (r) => r.status);
    expect(statuses).toEqual({ sent: 20, sending: 20, queued: 20 });
    const totals = await survive(Outbound, Delivery, total);
    expect(totals).toMatchObject({ failed: 0, stale: 0, reclaimed: 20 });
    const { byKilled } = await expectAtLeastOnce(Delivery, total, [victim.child.pid as number]);
    // What the victim delivered of its first batch was settled by its fused statement: never again.
    expect(byKilled.size).toBeGreaterThanOrEqual(30);
  });

  it("workers killed at random moments of their cycles lose nothing, and only their deliveries repeat", async () => {
    const { Outbound, Delivery } = await freshQueue(engine, "fused_proc_random");
    const total = 600;
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: total }, (_, i) => ({ consumer: `c${i % 7}` })),
    );
    const config = {
      table: Outbound.tablename,
      deliveries: Delivery.tablename,
      batchSize: 10,
      concurrency: 2,
      // Long enough that no live worker's claim expires on a loaded machine: what repeats is then
      // only what the killed ones delivered (survive() reclaims their claims with a 1 s lease).
      leaseSeconds: 30,
      fused: true,
    };
    const workers = Array.from({ length: 4 }, () => forkWorker(target, config));
    // Two of them die while the others drain: at some point of a claim, a delivery or a settlement.
    const killed: number[] = [];
    for (const w of workers.slice(0, 2)) {
      // Once it is working (its first delivery is in), at a random moment of its cycle.
      const worker = `pid-${w.child.pid}`;
      while ((await engine.execute(select(Delivery, ["id"]).where({ worker }).limit(1)).all()).length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 400));
      w.child.kill("SIGKILL");
      killed.push(w.child.pid as number);
    }
    const codes = await Promise.all(workers.map((w) => w.exited));
    expect(codes.slice(2)).toEqual([0, 0]);
    await survive(Outbound, Delivery, total);
    await expectAtLeastOnce(Delivery, total, killed);
    // The survivors' own settlements never went stale (nobody else held their claims).
    for (const w of workers.slice(2)) expect(w.messages.find((m) => m.result)?.result?.stale).toBe(0);
  }, 150_000);
});
