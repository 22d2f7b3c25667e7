import type { Engine } from "tempest-db-js";
import { insert, select } from "tempest-db-js";
import { expect } from "vitest";
import type { DrainResult } from "../../src/index.js";
import { enqueue, work } from "../../src/index.js";
import { countBy, freshQueue } from "./fresh-queue.js";
import { LOADED_LEASE_SECONDS } from "./loaded-lease.js";
import type { OutboundModel } from "./models.js";
import { forkWorker } from "./run-worker.js";
import type { Target } from "./targets.js";
import { MESSAGES } from "./targets.js";

type Queue = Awaited<ReturnType<typeof freshQueue>>;

/**
 * MESSAGES messages drained by 4 worker processes of 2 lanes each: every message delivered exactly
 * once, every row sent, and more than one process did some of the work. Returns their reports.
 */
export async function drainByFourProcesses(engine: Engine, target: Target, name: string, fused = false) {
  const { Outbound, Delivery } = await freshQueue(engine, name);
  await enqueue(
    engine,
    Outbound,
    Array.from({ length: MESSAGES }, (_, i) => ({ consumer: `c${i % 3}`, idempotencyKey: `k${i}` })),
  );
  const workers = Array.from({ length: 4 }, () =>
    forkWorker(target, {
      table: Outbound.tablename,
      deliveries: Delivery.tablename,
      batchSize: 20,
      concurrency: 2,
      barrier: true,
      ...(fused ? { fused } : {}),
    }),
  );
  // All four start draining at once: on a loaded machine one process may take seconds longer to
  // start than another, and the first could drain the whole queue before the last one began.
  await Promise.all(workers.map(async (w) => expect((await w.next()).ready).toBe(true)));
  for (const w of workers) w.go();
  const codes = await Promise.all(workers.map((w) => w.exited));
  expect(codes).toEqual([0, 0, 0, 0]);
  const results = workers.map((w) => w.messages.find((m) => m.result)?.result);
  expect(results.reduce((sum, r) => sum + (r?.sent ?? 0), 0)).toBe(MESSAGES);
  // Several processes really shared the work.
  expect(results.filter((r) => (r?.sent ?? 0) > 0).length).toBeGreaterThan(1);
  const deliveries = await engine.execute(select(Delivery, ["messageId"])).all();
  expect(deliveries).toHaveLength(MESSAGES);
  expect(new Set(deliveries.map((d) => d.messageId)).size).toBe(MESSAGES);
  expect(countBy(await engine.execute(select(Outbound, ["status"])).all(), (r) => r.status)).toEqual({ sent: MESSAGES });
  return results;
}

/**
 * 60 messages and one worker process (batches of 20, one lane) killed with SIGKILL while its
 * `hangAfter`th delivery hangs. Returns the queue, the dead worker's process and the message count.
 */
export async function killMidBatch(engine: Engine, target: Target, name: string, hangAfter: number, fused = false) {
  const queue = await freshQueue(engine, name);
  const total = 60;
  await enqueue(
    engine,
    queue.Outbound,
    Array.from({ length: total }, () => ({ consumer: "k" })),
  );
  const victim = forkWorker(target, {
    table: queue.Outbound.tablename,
    deliveries: queue.Delivery.tablename,
    batchSize: 20,
    concurrency: 1,
    hangAfter,
    ...(fused ? { fused } : {}),
  });
  expect((await victim.next()).hanging).toBe(hangAfter);
  victim.child.kill("SIGKILL");
  await victim.exited;
  return { ...queue, victim: victim.child, total };
}

/**
 * A worker in this process, recording its deliveries as "survivor": it sends what the processes left
 * and reclaims their dead claims once the lease ran out, until `done` says so (or `guardMs` passed).
 * Its lease is the one a loaded machine cannot run out by stalling it (support/loaded-lease.ts): the
 * survivor's own claims are never reclaimed, so what it reclaims is exactly what the dead left.
 */
export async function survive(
  engine: Engine,
  { Outbound, Delivery }: { Outbound: OutboundModel; Delivery: Queue["Delivery"] },
  options: { fused?: boolean; guardMs: number; done: (totals: DrainResult) => boolean | Promise<boolean> },
): Promise<DrainResult> {
  const controller = new AbortController();
  // Nothing may be left to do at all: then no progress would ever ask.
  if (await options.done({ sent: 0, retried: 0, failed: 0, stale: 0, reclaimed: 0 })) controller.abort();
  const guard = setTimeout(() => controller.abort(), options.guardMs);
  try {
    return await work(
      engine,
      Outbound,
      async (message) => {
        await engine.execute(insert(Delivery).values({ messageId: message.id, worker: "survivor" })).rowsAffected();
      },
      {
        ...(options.fused ? { fused: true } : {}),
        batchSize: 10,
        leaseSeconds: LOADED_LEASE_SECONDS,
        pollIntervalMs: 100,
        signal: controller.signal,
        onProgress: (_round, sofar) => {
          // A plain answer stops the loop before its next claim; a promised one when it comes.
          const finished = options.done(sofar);
          if (finished === true) controller.abort();
          else if (finished !== false) void finished.then((yes) => yes && controller.abort());
        },
      },
    );
  } finally {
    clearTimeout(guard);
  }
}
