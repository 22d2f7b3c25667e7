// A worker process of the load test: the recipes' runWorker() (work() until SIGTERM) over the outbox
// the order service fills. A delivery is the consumer's own transaction: one Delivery row (so every
// redelivery is visible) and the Receipt, inserted once per message whatever the number of
// deliveries — the consumer's idempotency, which turns at-least-once delivery into one effect. Each
// error the loop reports, and each delivery cut off (its signal aborted), is written to this worker's
// journal with one write(2), so a SIGKILL cannot lose it: a redelivery must be explained by a kill,
// an error or a cut-off its worker saw.

import { randomUUID } from "node:crypto";
import { openSync, writeSync } from "node:fs";
import { runWorker } from "@tempest-db-js/queue-recipes";
import { createEngine, insert } from "tempest-db-js";
import { Delivery, Outbound, Receipt } from "./load-models.js";
import type { LoadWorkerConfig, WorkerJournalEntry } from "./load-worker-config.js";

const config = JSON.parse(process.env.LOAD_WORKER ?? "null") as LoadWorkerConfig | null;
if (!config) throw new Error("LOAD_WORKER is not set: this script is started by the load driver");
await import("@tempest-db-js/dialect-postgres");

const engine = createEngine(config.url, { poolSize: config.lanes + 4, acquireTimeoutMs: 5_000 });
const journal = openSync(config.journal, "a");
const record = (t: WorkerJournalEntry["t"], error: unknown) =>
  writeSync(journal, `${JSON.stringify({ t, at: Date.now(), message: String(error).slice(0, 300) })}\n`);

process.send?.({ ready: process.pid });
await runWorker(
  engine,
  Outbound,
  async (message, { signal }) => {
    const atMs = Date.now();
    // A delivery cut off (lease lost, timeout, stopping) is noted: its message may come again.
    signal.addEventListener("abort", () => record("aborted", `${(signal.reason as { reason?: string })?.reason}: ${signal.reason}`), {
      once: true,
    });
    await engine.transaction(async (tx) => {
      await tx
        .execute(
          insert(Delivery).values({ id: randomUUID(), messageId: message.id, token: message.attempts, worker: config.workerId, atMs }),
        )
        .rowsAffected();
      await tx
        .execute(insert(Receipt).values({ messageId: message.id, worker: config.workerId }).onConflictDoNothing(["messageId"]))
        .rowsAffected();
      // A well-behaved consumer does not commit a delivery it was told to stop.
      if (signal.aborted) throw signal.reason;
    });
  },
  {
    batchSize: config.batchSize,
    concurrency: config.lanes,
    leaseSeconds: config.leaseSeconds,
    maxAttempts: 1000,
    backoff: { baseSeconds: 0.05, maxSeconds: 0.5 },
    pollIntervalMs: 100,
    errorBackoffMs: 100,
    maxErrorBackoffMs: 1000,
    stopTimeoutMs: 2000,
    onError: (error) => record("error", error),
    onDeliveryError: (error) => record("delivery-error", error),
    onHeartbeatError: (error) => record("heartbeat-error", error),
  },
);
