// One worker process: runs the queue's work() loop against a flaky consumer until the parent
// says stop, reporting its running totals over IPC.

import { work } from "@tempest-db-js/queue-recipes";
import { createEngine, insert } from "tempest-db-js";
import { Delivery, Outbound } from "./models.mjs";

const config = JSON.parse(process.env.OUTBOX_DEMO_WORKER ?? "{}");
const engine = createEngine(config.url, { poolSize: config.concurrency + 1 });
const name = `worker-${config.index + 1}`;
const controller = new AbortController();
process.on("message", (message) => {
  if (message === "stop") controller.abort();
});

// The flaky part: some calls fail before anything is delivered, as a timeout or a 503 would.
async function deliver(message) {
  if (Math.random() < config.failureRate) throw new Error("consumer unavailable");
  await engine.execute(insert(Delivery).values({ messageId: message.id, worker: name })).rowsAffected();
}

process.send?.({ ready: true });
const totals = await work(engine, Outbound, deliver, {
  batchSize: config.batchSize,
  concurrency: config.concurrency,
  maxAttempts: config.maxAttempts,
  backoff: { baseSeconds: 0.05, maxSeconds: 1, jitter: 0.5 },
  pollIntervalMs: 200,
  signal: controller.signal,
  onProgress: (_round, sofar) => process.send?.({ totals: sofar }),
  onError: (error) => process.send?.({ error: String(error?.message ?? error) }),
});
process.send?.({ totals, done: true });
await engine.close();
process.disconnect?.();
