/**
 * Where the enqueue → deliver time goes, per message (not a benchmark section: a one-off look).
 * `nice -n -10 node_modules/.bin/tsx src/latency-breakdown.ts [messages] [fused|nohb]`: one work()
 * loop woken by NOTIFY, messages 20 ms apart as in latency-postgres, every statement timed by the
 * engine's onQuery events, the notification's arrival timed by a second LISTEN, GC pauses by a
 * PerformanceObserver. Prints the parts of the median message and the mean parts of the slowest 1%.
 */
import "@tempest-db-js/dialect-postgres";
import { PerformanceObserver } from "node:perf_hooks";
import { enqueue, ensureQueueSchema, work } from "@tempest-db-js/queue-recipes";
import { createEngine, sql } from "tempest-db-js";
import { PG_URL } from "./lib/env.js";
import { queueModel } from "./lib/models.js";
import { LATENCY } from "./sections/latency-postgres.js";

const n = Number(process.argv[2] ?? 300);
const mode = process.argv[3] ?? "plain";
const table = "bench_latency_breakdown";
const Job = queueModel(table);
const statements: { sql: string; start: number; end: number; rows: number }[] = [];
const engine = createEngine(PG_URL, {
  poolSize: 4,
  onQuery: (e) => statements.push({ sql: e.sql, start: performance.now() - e.durationMs, end: performance.now(), rows: e.rowCount }),
});
const gcs: { start: number; end: number }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcs.push({ start: e.startTime, end: e.startTime + e.duration });
}).observe({ entryTypes: ["gc"] });

await engine.execute(sql.raw(`DROP TABLE IF EXISTS "${table}"`)).rowsAffected();
await ensureQueueSchema(engine, Job);
const notes: number[] = [];
const unlisten = await engine.listen(`queue_${table}`, () => notes.push(performance.now()));
const sent = new Map<string, { t0: number; t1: number; delivered: number }>();
let done = () => {};
const all = new Promise<void>((resolve) => (done = resolve));
let count = 0;
const stop = new AbortController();
const worker = work(
  engine,
  Job,
  (message) => {
    const m = sent.get(message.id);
    if (m) m.delivered = performance.now();
    if (++count === n) done();
  },
  { signal: stop.signal, heartbeat: mode !== "nohb", fused: mode === "fused", pollIntervalMs: 10_000, batchSize: 10 },
);
await new Promise((r) => setTimeout(r, 300));
for (let i = 0; i < n; i++) {
  const id = crypto.randomUUID();
  const m = { t0: performance.now(), t1: 0, delivered: 0 };
  sent.set(id, m);
  await enqueue(engine, Job, { id, consumer: "latency" });
  m.t1 = performance.now();
  await new Promise((r) => setTimeout(r, LATENCY.gapMs));
}
await all;
stop.abort();
await worker;
await unlisten();
await engine.close();

const isEnqueue = (s: string) => s.startsWith('WITH "tempest_enqueued"') || s.startsWith("INSERT") || s.startsWith("SELECT pg_notify");
const parts = [...sent.values()].map((m) => {
  const note = notes.find((t) => t >= m.t0) ?? Number.NaN;
  const claim = statements.filter((s) => !isEnqueue(s.sql) && s.rows > 0 && s.end <= m.delivered && s.start >= m.t0).at(-1);
  // Worker statements already running when the notification came (a settle, an empty claim).
  const busy = statements.filter((s) => !isEnqueue(s.sql) && s.start < note && s.end > note);
  return {
    total: m.delivered - m.t0,
    enqueue: m.t1 - m.t0,
    notified: note - m.t0,
    wake: (claim?.start ?? Number.NaN) - note,
    claim: (claim?.end ?? Number.NaN) - (claim?.start ?? Number.NaN),
    toDeliver: m.delivered - (claim?.end ?? Number.NaN),
    busyMs: busy.reduce((a, s) => a + s.end - note, 0),
    gcMs: gcs.filter((g) => g.end > m.t0 && g.start < m.delivered).reduce((a, g) => a + g.end - g.start, 0),
  };
});
parts.sort((a, b) => a.total - b.total);
const mean = (rows: typeof parts) =>
  Object.fromEntries(
    Object.keys(rows[0] ?? {}).map((k) => [k, Number((rows.reduce((a, r) => a + (r as any)[k], 0) / rows.length).toFixed(2))]),
  );
const tail = parts.slice(Math.floor(parts.length * 0.99) - 1);
console.log(`mode ${mode}, ${n} messages; ms from before enqueue(): notified = the notification's arrival`);
console.log("median message:", mean([parts[Math.floor(parts.length / 2)] as (typeof parts)[number]]));
console.log(`slowest 1% (${tail.length}):`, mean(tail));
console.log(
  "slowest 5:",
  parts.slice(-5).map((p) => mean([p])),
);
