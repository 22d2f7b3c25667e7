import type { ChildProcess } from "node:child_process";
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Engine } from "tempest-db-js";
import { select } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueue } from "../src/index.js";
import { countBy, freshDeadLetterQueue } from "./support/fresh-queue.js";
import { LOADED_LEASE_SECONDS } from "./support/loaded-lease.js";
import type { Target } from "./support/targets.js";
import { engineFor, targets } from "./support/targets.js";
import { workerEnv } from "./support/worker-env.js";

const script = fileURLToPath(new URL("./fixtures/poison-worker.mjs", import.meta.url));
const MAX_RECLAIMS = 3;
const LEASE = LOADED_LEASE_SECONDS;

interface Worker {
  readonly child: ChildProcess;
  /** Resolves once its signal handlers are in place (a SIGTERM before that would just kill it). */
  readonly ready: Promise<void>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function forkPoisonWorker(target: Target, config: Record<string, unknown>): Worker {
  const child = fork(script, [], {
    execArgv: [],
    env: workerEnv({ QUEUE_POISON: JSON.stringify({ ...config, url: target.url, dialectPackage: target.dialectPackage }) }),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<void>((resolve) => child.once("message", () => resolve()));
  return { child, ready, exited };
}

describe.each(targets)("a poison message on $name, with worker processes", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 4);
  });
  afterAll(async () => {
    await engine.close();
  });

  it(`kills ${MAX_RECLAIMS} workers, then is dead-lettered; every other message is delivered`, {
    timeout: 10 * LEASE * 1000 + 60_000,
  }, async () => {
    const { Outbound, Delivery } = await freshDeadLetterQueue(engine, "poison_proc");
    const good = 24;
    await enqueue(engine, Outbound, [
      ...Array.from({ length: good / 2 }, (_, i) => ({ consumer: "mail", idempotencyKey: `a${i}` })),
      { consumer: "poison", idempotencyKey: "p" },
      ...Array.from({ length: good / 2 }, (_, i) => ({ consumer: "mail", idempotencyKey: `b${i}` })),
    ]);
    // The lease of support/loaded-lease.ts: only the poison's crashes, not a live worker stalled by a
    // loaded machine, make a claim expire (a 1 s lease let one stall of 667 ms reclaim a good message).
    const config = {
      table: Outbound.tablename,
      deliveries: Delivery.tablename,
      batchSize: 4,
      leaseSeconds: LEASE,
      maxReclaims: MAX_RECLAIMS,
    };

    // Two workers at all times: one that dies is replaced, as a supervisor would.
    const killed: number[] = [];
    const live = new Set<Worker>();
    let stopping = false;
    const start = () => {
      const worker = forkPoisonWorker(target, config);
      live.add(worker);
      void worker.exited.then(({ signal }) => {
        live.delete(worker);
        if (signal === "SIGKILL") killed.push(worker.child.pid ?? 0);
        if (!stopping) start();
      });
    };
    start();
    start();

    // Each crash is found once the lease ran out (at most 1.5 leases, the reclaimer looks every half
    // lease) and a replacement worker started: ten leases for the three leave room for slow starts.
    const deadline = Date.now() + 10 * LEASE * 1000 + 30_000;
    let rows = await engine.execute(select(Outbound)).all();
    while (Date.now() < deadline) {
      rows = await engine.execute(select(Outbound)).all();
      const statuses = countBy(rows, (r) => r.status);
      if (statuses.sent === good && statuses.failed === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    stopping = true;
    const exits = await Promise.all(
      [...live].map(async (w) => {
        await w.ready;
        w.child.kill("SIGTERM");
        return w.exited;
      }),
    );
    expect(exits).toEqual(exits.map(() => ({ code: 0, signal: null })));

    const poison = rows.find((r) => r.consumer === "poison");
    expect([poison?.status, poison?.deadReason, poison?.reclaims, poison?.attempts]).toEqual(["failed", "reclaims", MAX_RECLAIMS, 0]);
    expect(poison?.lastError).toMatch(/^lease expired 3 times without a settlement/);
    // It killed exactly one worker per reclaim, and was delivered (and died) no more than that.
    expect(killed).toHaveLength(MAX_RECLAIMS);
    const deliveries = await engine.execute(select(Delivery, ["messageId"])).all();
    expect(deliveries.filter((d) => d.messageId === poison?.id)).toHaveLength(MAX_RECLAIMS);

    // Every other message was delivered and settled. A batch-mate of the poison's first crash may have
    // been reclaimed once (delivered beside it before anyone suspected); after that a suspect goes alone.
    const others = rows.filter((r) => r.consumer !== "poison");
    expect(countBy(others, (r) => r.status)).toEqual({ sent: good });
    expect(Math.max(...others.map((r) => r.reclaims))).toBeLessThanOrEqual(1);
    const delivered = new Set(deliveries.map((d) => d.messageId));
    for (const r of others) expect(delivered.has(r.id)).toBe(true);
  });
});
