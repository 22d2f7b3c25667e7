// A worker process of the long-delivery chaos run: the recipes' own work() loop with the heartbeat,
// over a table with a claim token, where every delivery takes longer than the lease can last
// without renewal. Each delivery writes a "start" line to this worker's journal before it begins and
// an "end" line (aborted or not) when it stops, one write(2) each, so a SIGKILL cannot lose a line
// that happened. Deliveries stop as soon as their signal aborts, as a well-behaved one does.

import { closeSync, openSync, writeSync } from "node:fs";
import { work } from "@tempest-db-js/queue-recipes";
import { createEngine } from "tempest-db-js";
import type { LeaseWorkerConfig } from "./lease-config.js";
import { leaseJobModel } from "./lease-config.js";

const config = JSON.parse(process.env.LEASE_WORKER ?? "null") as LeaseWorkerConfig | null;
if (!config) throw new Error("LEASE_WORKER is not set: this script is started by the lease chaos supervisor");
await import(config.dialectPackage);

const Job = leaseJobModel(config.table);
const engine = createEngine(config.url, { poolSize: config.lanes + 2 });
const journal = openSync(config.journal, "a");
const now = () => performance.timeOrigin + performance.now();
const record = (entry: object) => writeSync(journal, `${JSON.stringify(entry)}\n`);
const stop = new AbortController();
process.on("SIGTERM", () => stop.abort());
process.on("message", (m) => m === "stop" && stop.abort());

process.send?.({ ready: process.pid });
await work(
  engine,
  Job,
  async (job, { signal }) => {
    record({ t: "start", job: job.id, token: job.claimToken, at: now() });
    const ms = config.minDeliveryMs + Math.random() * (config.maxDeliveryMs - config.minDeliveryMs);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener(
        "abort",
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    record({ t: "end", job: job.id, token: job.claimToken, at: now(), aborted: signal.aborted });
    if (signal.aborted) throw signal.reason;
  },
  {
    batchSize: config.batchSize,
    concurrency: config.lanes,
    leaseSeconds: config.leaseSeconds,
    deliveryTimeoutMs: config.maxDeliveryMs * 4,
    maxAttempts: 3,
    backoff: { baseSeconds: 0.05, maxSeconds: 0.2 },
    pollIntervalMs: 50,
    stopTimeoutMs: 200,
    signal: stop.signal,
    onError: (error) => record({ t: "error", message: String(error), at: now() }),
  },
);
await engine.close();
closeSync(journal);
process.disconnect?.();
