import "@tempest-db-js/dialect-postgres";
import { EventEmitter } from "node:events";
import { enqueue, ensureQueueSchema, work } from "@tempest-db-js/queue-recipes";
import type { WorkerEvents } from "graphile-worker";
import { Logger, makeWorkerUtils, run, runMigrations } from "graphile-worker";
import { createEngine, sql } from "tempest-db-js";
import { PG_URL } from "../lib/env.js";
import { queueModel } from "../lib/models.js";
import type { Row, SectionResult } from "../lib/report.js";
import { count } from "../lib/report.js";
import { percentile } from "../lib/stats.js";

/** The measurement: messages enqueued one at a time, 20 ms apart, into an idle queue; LISTEN/NOTIFY wakes the worker. */
export const LATENCY = { messages: 500, gapMs: 20 };
const silent = new Logger(() => () => {});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function rows(name: string, latencies: readonly number[]): Row {
  return {
    name,
    value: percentile(latencies, 50),
    unit: "ms",
    stat: "p50",
    extra: { p99: Number(percentile(latencies, 99).toFixed(2)), n: count(latencies.length) },
  };
}

/** enqueue() → deliver() for each message through a work() loop woken by NOTIFY. */
async function tempestLatency(n: number, heartbeat: boolean, fused = false): Promise<number[]> {
  const table = `bench_latency_${heartbeat ? "hb" : "nohb"}${fused ? "_fused" : ""}`;
  const Job = queueModel(table);
  const engine = createEngine(PG_URL, { poolSize: 4 });
  await engine.execute(sql.raw(`DROP TABLE IF EXISTS "${table}"`)).rowsAffected();
  await ensureQueueSchema(engine, Job);
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const stop = new AbortController();
  let done: () => void = () => {};
  const all = new Promise<void>((resolve) => (done = resolve));
  const worker = work(
    engine,
    Job,
    async (message) => {
      const t0 = sentAt.get(message.id);
      if (t0 !== undefined) latencies.push(performance.now() - t0);
      if (latencies.length === n) done();
    },
    // Polling only as a fallback: a poll that happens to fire first would flatter the figure.
    { signal: stop.signal, heartbeat, fused, pollIntervalMs: 10_000, batchSize: 10 },
  );
  await sleep(300); // subscribed and idle
  for (let i = 0; i < n; i++) {
    const id = crypto.randomUUID();
    sentAt.set(id, performance.now());
    await enqueue(engine, Job, { id, consumer: "latency" });
    await sleep(LATENCY.gapMs);
  }
  await all;
  stop.abort();
  await worker;
  await engine.close();
  return latencies;
}

/** addJob() → task for each job through graphile-worker's run(), which LISTENs too. */
async function graphileLatency(n: number): Promise<number[]> {
  await runMigrations({ connectionString: PG_URL, logger: silent });
  const utils = await makeWorkerUtils({ connectionString: PG_URL, logger: silent });
  const latencies: number[] = [];
  let done: () => void = () => {};
  const all = new Promise<void>((resolve) => (done = resolve));
  const events = new EventEmitter() as WorkerEvents;
  const runner = await run({
    connectionString: PG_URL,
    concurrency: 4,
    noHandleSignals: true,
    logger: silent,
    events,
    pollInterval: 10_000,
    taskList: {
      latency: async (payload) => {
        latencies.push(performance.now() - (payload as { t: number }).t);
        if (latencies.length === n) done();
      },
    },
  });
  await sleep(300);
  for (let i = 0; i < n; i++) {
    await utils.addJob("latency", { t: performance.now() });
    await sleep(LATENCY.gapMs);
  }
  await all;
  await runner.stop();
  await utils.release();
  return latencies;
}

export async function latencyPostgres(quick: boolean): Promise<SectionResult> {
  const n = quick ? 50 : LATENCY.messages;
  // Interleaved runs of each, so that a slow moment of the shared machine does not land on one only.
  const results: Record<string, number[]> = {
    "tempest: work(), heartbeat on": [],
    "tempest: work(), heartbeat off": [],
    "tempest: work({ fused: true }), heartbeat on": [],
    "graphile-worker: run()": [],
  };
  const rounds = quick ? 1 : 4;
  for (let r = 0; r < rounds; r++) {
    // The order alternates between rounds: the first run after a table is made pays warm-up.
    const on = async () => results["tempest: work(), heartbeat on"]?.push(...(await tempestLatency(n / rounds, true)));
    const off = async () => results["tempest: work(), heartbeat off"]?.push(...(await tempestLatency(n / rounds, false)));
    await (r % 2 === 0 ? on : off)();
    const fused = async () =>
      results["tempest: work({ fused: true }), heartbeat on"]?.push(...(await tempestLatency(n / rounds, true, true)));
    if (r % 2 === 1) await fused();
    results["graphile-worker: run()"]?.push(...(await graphileLatency(n / rounds)));
    await (r % 2 === 0 ? off : on)();
    if (r % 2 === 0) await fused();
  }
  return {
    id: "latency-postgres",
    title: `PostgreSQL: enqueue → deliver latency, ${n} messages ${LATENCY.gapMs} ms apart into an idle queue (LISTEN/NOTIFY)`,
    groups: [
      {
        title: "latency per message (lower is better)",
        rows: Object.entries(results).map(([name, latencies]) => rows(name, latencies)),
        baselines: ["graphile-worker: run()"],
        checks: [],
        notes: [
          "Each message is enqueued alone and the next one 20 ms later, so the worker is idle and waiting on LISTEN each time: the figure is wake-up plus claim plus delivery, not throughput.",
          "tempest measures from before enqueue() (INSERT + NOTIFY) to the start of deliver(); graphile-worker from before addJob() to the start of its task.",
        ],
      },
    ],
  };
}
