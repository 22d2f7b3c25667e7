/**
 * Drains `n` jobs on PostgreSQL in a process of its own and prints its peak RSS as JSON, so that
 * one size's garbage cannot inflate another's figure. Run by the memory section.
 */
import "@tempest-db-js/dialect-postgres";
import { drain, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import pg from "pg";
import { createEngine, sql } from "tempest-db-js";
import { PG_URL } from "./lib/env.js";
import { queueModel } from "./lib/models.js";
import { DRAIN, loadPostgresJobs } from "./sections/queue-drain-postgres.js";

const n = Number(process.argv[2]);
const table = "bench_memory";
const Job = queueModel(table);
const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
const engine = createEngine(PG_URL, { poolSize: DRAIN.workers });
await engine.execute(sql.raw(`DROP TABLE IF EXISTS "${table}"`)).rowsAffected();
await ensureQueueSchema(engine, Job);
await loadPostgresJobs(admin, table, n);

const mib = (bytes: number) => bytes / 2 ** 20;
/** Run with --expose-gc: the heap a full collection leaves tells retained memory from garbage not yet collected. */
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const retainedBefore = process.memoryUsage().heapUsed;
const before = process.memoryUsage();
let peakRss = before.rss;
let peakHeap = before.heapUsed;
const timer = setInterval(() => {
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed);
}, 10);
const started = performance.now();
const result = await drain(engine, Job, () => {}, { batchSize: DRAIN.batch, concurrency: DRAIN.workers });
const ms = performance.now() - started;
clearInterval(timer);
if (result.sent !== n) throw new Error(`drained ${result.sent} of ${n}`);
gc?.();
const retainedAfter = process.memoryUsage().heapUsed;
await Promise.all([engine.close(), admin.end()]);
process.stdout.write(
  `${JSON.stringify({
    n,
    ms,
    rssBeforeMiB: mib(before.rss),
    peakRssMiB: mib(peakRss),
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
    peakHeapMiB: mib(peakHeap),
    retainedBeforeMiB: mib(retainedBefore),
    retainedAfterMiB: mib(retainedAfter),
  })}\n`,
);
