import type { Engine } from "tempest-db-js";
import { op, select } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueue } from "../src/index.js";
import { countBy, freshQueue } from "./support/fresh-queue.js";
import type { OutboundModel } from "./support/models.js";
import { drainByFourProcesses, killMidBatch, survive } from "./support/process-runs.js";
import { forkWorker } from "./support/run-worker.js";
import { engineFor, targets } from "./support/targets.js";

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

  /** A fused survivor (support/process-runs.ts) until nothing is left: then every message is sent. */
  async function surviveFused(queue: { Outbound: OutboundModel; Delivery: any }, total: number) {
    const left = async () =>
      (await engine.execute(select(queue.Outbound, ["id"]).where({ status: op.in(["queued", "sending"]) })).all()).length;
    const totals = await survive(engine, queue, { fused: true, guardMs: 100_000, done: async () => (await left()) === 0 });
    const rows = await engine.execute(select(queue.Outbound, ["status"])).all();
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
    const results = await drainByFourProcesses(engine, target, "fused_proc_once", true);
    expect(results.every((r) => r?.stale === 0 && r.failed === 0)).toBe(true);
  });

  it("a worker killed mid-cycle: the batch its last statement settled stays sent, the batch it claimed is reclaimed", async () => {
    // Batches of 20, hanging at the 30th delivery: inside the second batch, which the statement that
    // settled the first one claimed.
    const { Outbound, Delivery, victim, total } = await killMidBatch(engine, target, "fused_proc_kill", 30, true);
    const statuses = countBy(await engine.execute(select(Outbound, ["status"])).all(), (r) => r.status);
    expect(statuses).toEqual({ sent: 20, sending: 20, queued: 20 });
    const totals = await surviveFused({ Outbound, Delivery }, total);
    expect(totals).toMatchObject({ failed: 0, stale: 0, reclaimed: 20 });
    const { byKilled } = await expectAtLeastOnce(Delivery, total, [victim.pid as number]);
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
      // only what the killed ones delivered (surviveFused() reclaims their claims once their lease ran out).
      leaseSeconds: 30,
      fused: true,
      // All four start draining together: started one after another, the first ones could drain all
      // 600 before a later one claimed anything (a quiet machine's CI did), and the wait below for
      // that one's first delivery never ended.
      barrier: true,
    };
    const workers = Array.from({ length: 4 }, () => forkWorker(target, config));
    await Promise.all(workers.map(async (w) => expect((await w.next()).ready).toBe(true)));
    for (const w of workers) w.go();
    // Two of them die while the others drain: at some point of a claim, a delivery or a settlement.
    const killed: number[] = [];
    for (const w of workers.slice(0, 2)) {
      // Once it is working (its first delivery is in), at a random moment of its cycle. Each lane's
      // first claim takes 10 of the 600, so every worker delivers something.
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
    await surviveFused({ Outbound, Delivery }, total);
    await expectAtLeastOnce(Delivery, total, killed);
    // The survivors' own settlements never went stale (nobody else held their claims).
    for (const w of workers.slice(2)) expect(w.messages.find((m) => m.result)?.result?.stale).toBe(0);
  }, 150_000);
});
