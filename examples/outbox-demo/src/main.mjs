#!/usr/bin/env node
// The outbox queue end to end. Creates the table from the model, enqueues messages (some with
// repeated idempotency keys), runs worker processes against a consumer that sometimes fails, shows
// progress, and ends with a summary that counts every delivery the consumer received.
//
//   pnpm demo [-- --messages 2000 --workers 4 --failure-rate 0.2]
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test pnpm demo
import { fork } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { enqueue, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import { createEngine, dropTable, redactUrl, sql } from "tempest-db-js";
import { Delivery, Outbound } from "./models.mjs";
import { createProgress } from "./progress.mjs";
import { formatSummary } from "./summary.mjs";

const { values: flags } = parseArgs({
  options: {
    messages: { type: "string", default: "2000" },
    workers: { type: "string", default: "4" },
    "failure-rate": { type: "string", default: "0.2" },
    "duplicate-rate": { type: "string", default: "0.1" },
    "batch-size": { type: "string", default: "20" },
    concurrency: { type: "string", default: "2" },
    "max-attempts": { type: "string", default: "5" },
    help: { type: "boolean", default: false },
  },
});
if (flags.help) {
  console.log(
    "pnpm demo [-- --messages N --workers K --failure-rate 0..1 --duplicate-rate 0..1 --batch-size B --concurrency C --max-attempts A]\nDATABASE_URL picks PostgreSQL or MySQL/MariaDB; without it an SQLite file is used.",
  );
  process.exit(0);
}
const messages = positiveInt(flags.messages, "--messages");
const workers = positiveInt(flags.workers, "--workers");
const batchSize = positiveInt(flags["batch-size"], "--batch-size");
const concurrency = positiveInt(flags.concurrency, "--concurrency");
const maxAttempts = positiveInt(flags["max-attempts"], "--max-attempts");
const failureRate = rate(flags["failure-rate"], "--failure-rate");
const duplicateRate = rate(flags["duplicate-rate"], "--duplicate-rate");

let url = process.env.DATABASE_URL;
if (!url) {
  const dir = join(tmpdir(), "tempest-outbox-demo");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  url = `sqlite://${join(dir, "outbox.db")}`;
}
const engine = createEngine(url);
console.log(`database  ${redactUrl(url)} (${engine.dialectName})`);
console.log(
  `workload  ${messages} messages, ${workers} worker processes × ${concurrency} lanes, batch ${batchSize}, failure rate ${failureRate}, max attempts ${maxAttempts}\n`,
);

// A fresh schema, created from the models (the queue's indexes included).
await engine.execute(dropTable(Outbound, { ifExists: true })).rowsAffected();
await engine.execute(dropTable(Delivery, { ifExists: true })).rowsAffected();
await ensureQueueSchema(engine, Outbound);
await engine.createAll([Delivery]);

// Worker processes first, so that they work while messages arrive.
const workerScript = fileURLToPath(new URL("./worker.mjs", import.meta.url));
const fleet = Array.from({ length: workers }, (_, index) => {
  const child = fork(workerScript, [], {
    env: { ...process.env, OUTBOX_DEMO_WORKER: JSON.stringify({ url, index, failureRate, batchSize, concurrency, maxAttempts }) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const state = { child, totals: { sent: 0, retried: 0, failed: 0 }, errors: 0, ready: undefined, exited: undefined };
  state.ready = new Promise((resolve) => child.on("message", (m) => m.ready && resolve()));
  state.exited = new Promise((resolve) => child.on("exit", resolve));
  child.on("message", (m) => {
    if (m.totals) state.totals = m.totals;
    if (m.error) state.errors++;
  });
  return state;
});
await Promise.all(fleet.map((w) => w.ready));

const progress = createProgress();
const started = performance.now();
let inserted = 0;
let duplicates = 0;
let counts = { sent: 0, failed: 0 };
const retried = () => fleet.reduce((sum, w) => sum + w.totals.retried, 0);
const draw = () =>
  progress.update({
    ...counts,
    target: inserted,
    retried: retried(),
    enqueued: inserted,
    rate: Math.round(counts.sent / ((performance.now() - started) / 1000)),
  });

// Some messages repeat an earlier message's key (a client retrying its request); a few carry no key.
const keys = [];
for (let i = 0; i < messages; i += 200) {
  const chunk = [];
  for (let j = i; j < Math.min(messages, i + 200); j++) {
    const repeat = keys.length > 0 && Math.random() < duplicateRate;
    const key = repeat ? keys[Math.floor(Math.random() * keys.length)] : j % 10 === 9 ? null : `order-${j}`;
    if (key && !repeat) keys.push(key);
    chunk.push({ consumer: "billing", idempotencyKey: key });
  }
  const result = await enqueue(engine, Outbound, chunk);
  inserted += result.inserted.length;
  duplicates += result.duplicates.length;
  counts = await statusCounts();
  draw();
}

while (counts.sent + counts.failed < inserted) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  counts = await statusCounts();
  draw();
}
const seconds = (performance.now() - started) / 1000;
progress.finish();

for (const w of fleet) w.child.send("stop");
await Promise.all(fleet.map((w) => w.exited));

const [deliveryRow] = await engine
  .execute(sql.raw("SELECT COUNT(*) AS deliveries, COUNT(DISTINCT message_id) AS messages FROM outbox_demo_deliveries"))
  .all();
const deliveries = Number(deliveryRow?.deliveries ?? 0);
const delivered = Number(deliveryRow?.messages ?? 0);
const perMessage = counts.sent === 0 ? 0 : deliveries / counts.sent;
await engine.close();

console.log(
  "\n" +
    formatSummary(`outbox demo on ${engine.dialectName}`, [
      ["enqueued (calls)", messages],
      ["inserted", inserted],
      ["deduplicated", duplicates],
      ["sent", counts.sent],
      ["retried (failed attempts)", retried()],
      ["failed (gave up)", counts.failed],
      ["deliveries received", deliveries],
      ["deliveries per sent message", perMessage.toFixed(3)],
      ["throughput (sent/s)", Math.round(counts.sent / seconds)],
      ["elapsed (s)", seconds.toFixed(2)],
    ]),
);

const exactlyOnce = deliveries === counts.sent && delivered === counts.sent;
const accounted = counts.sent + counts.failed === inserted && inserted + duplicates === messages;
if (!exactlyOnce || !accounted) {
  console.error(
    `\nINCONSISTENT: ${deliveries} deliveries for ${counts.sent} sent (${delivered} distinct); ${inserted} inserted vs ${counts.sent} sent + ${counts.failed} failed`,
  );
  process.exit(1);
}
console.log("\nEvery sent message was delivered exactly once.");

async function statusCounts() {
  const rows = await engine.execute(sql.raw("SELECT status, COUNT(*) AS n FROM outbound_messages GROUP BY status")).all();
  const out = { sent: 0, failed: 0 };
  for (const row of rows) if (row.status in out) out[row.status] = Number(row.n);
  return out;
}

function positiveInt(text, name) {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} takes a positive integer, got ${text}`);
  return n;
}

function rate(text, name) {
  const n = Number(text);
  if (!(n >= 0 && n < 1)) throw new Error(`${name} takes a number from 0 up to (not including) 1, got ${text}`);
  return n;
}
