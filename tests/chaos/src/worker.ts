// A chaos worker process: claim → deliver → settle with the queue recipes, recording every claim and
// settlement in the transaction that makes it, and every delivery in an append-only journal file.
// The supervisor SIGKILLs workers at random; a worker asked to stop (IPC "stop" or SIGTERM) finishes
// the batches in hand and exits 0.

import { randomUUID } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { claimBatch, markFailed, markSent, reclaimExpired, requeue } from "@tempest-db-js/queue-recipes";
import type { InferModel, TransactionHandle } from "tempest-db-js";
import { createEngine, insert, select, sql } from "tempest-db-js";
import { chaosModels } from "./models.js";
import type { JournalEntry, WorkerConfig } from "./worker-config.js";
import { POISON_CONSUMER } from "./worker-config.js";

const config = JSON.parse(process.env.CHAOS_WORKER ?? "null") as WorkerConfig | null;
if (!config) throw new Error("CHAOS_WORKER is not set: this script is started by the chaos supervisor");
await import(config.dialectPackage);

const { Job, Claim, Settlement, Reclaim, Anomaly } = chaosModels(config.prefix);
type JobRow = InferModel<typeof Job>;
type Outcome = "sent" | "requeued" | "failed";

const worker = config.workerId;
const engine = createEngine(config.url, { poolSize: config.lanes + 1 });
const journal = openSync(config.journal, "a");
const retry = { retryOnDeadlock: 8 } as const;
const backoff = { baseSeconds: 0.05, factor: 2, maxSeconds: 0.5, jitter: 0.5 };
let stopping = false;

process.on("message", (message) => {
  if (message === "stop") stopping = true;
});
process.on("SIGTERM", () => {
  stopping = true;
});

/**
 * write(2) on an O_APPEND descriptor, synchronously, before the caller goes on: once it returns the
 * line is in the kernel's page cache and survives a SIGKILL of this process (not a power loss, which
 * is not what this test simulates). A kill can at worst cut the line being written, which the reader
 * treats as not written — and then the caller had not gone on either.
 */
function record(entry: JournalEntry): void {
  writeSync(journal, `${JSON.stringify(entry)}\n`);
}

/** The simulated side effect. Resolves true when delivered; false for a failure (poison or transient). */
async function deliver(job: JobRow): Promise<boolean> {
  // Some asynchrony so that the deliveries of a batch interleave and a kill lands mid-batch.
  if (config!.deliveryMs > 0) await sleep(Math.floor(Math.random() * 2 * config!.deliveryMs));
  else if (Math.random() < 0.3) await sleep(Math.floor(Math.random() * 3));
  if (job.consumer === POISON_CONSUMER || Math.random() < config!.failureRate) return false;
  record({ t: "delivered", job: job.id, attempt: job.attempts, at: Date.now() });
  return true;
}

async function claim(): Promise<JobRow[]> {
  const batchId = randomUUID();
  return engine.transaction(async (tx) => {
    const rows = await claimBatch(tx, Job, { size: config!.batchSize });
    if (rows.length === 0) return rows;
    const logged = rows.map((row) => {
      if (!(row.updatedAt instanceof Date)) throw new Error(`claimBatch returned ${row.id} without updatedAt`);
      return {
        id: randomUUID(),
        jobId: row.id,
        attempt: row.attempts,
        worker,
        batchId,
        batchSize: config!.batchSize,
        claimedAt: row.updatedAt,
        leaseUntil: new Date(row.updatedAt.getTime() + config!.leaseSeconds * 1000),
      };
    });
    await tx.execute(insert(Claim).values(logged)).rowsAffected();
    return rows;
  }, retry);
}

const settleWith = { sent: markSent, requeued: requeue, failed: markFailed } as const;
const target = { sent: "sent", requeued: "queued", failed: "failed" } as const;

/**
 * Settles claims with the recipe, in a transaction that also records, for each claim, whether the
 * fenced update applied. Which rows are still ours is read (and locked, where rows can be) before
 * the recipe runs, and checked after: the recipe's own count must agree with the rows.
 */
async function settle(outcome: Outcome, claims: JobRow[]): Promise<void> {
  if (claims.length === 0) return;
  await engine.transaction(async (tx) => {
    const ids = claims.map((c) => c.id);
    const token = new Map(claims.map((c) => [c.id, c.attempts]));
    const read = select(Job, ["id", "status", "attempts"])
      .where({ id: { in: ids } })
      .orderBy("id");
    const before = await tx.execute(tx.capabilities.rowLocks ? read.forUpdate() : read).all();
    const ours = new Set(before.filter((r) => r.status === "sending" && r.attempts === token.get(r.id)).map((r) => r.id));
    const result = await settleWith[outcome](tx, Job, claims, outcome === "requeued" ? { backoff } : {});
    const after = new Map((await tx.execute(read).all()).map((r) => [r.id, r]));
    const wrong: string[] = [];
    if (result.applied !== ours.size || result.stale !== claims.length - ours.size) {
      wrong.push(`recipe reported ${result.applied} applied / ${result.stale} stale, the rows said ${ours.size} were still this claim's`);
    }
    for (const row of before) {
      const now = after.get(row.id);
      const expected = ours.has(row.id) ? { status: target[outcome], attempts: row.attempts } : row;
      if (now?.status !== expected.status || now?.attempts !== expected.attempts) {
        wrong.push(
          `${row.id}: ${row.status}/${row.attempts} became ${now?.status}/${now?.attempts}, expected ${expected.status}/${expected.attempts}`,
        );
      }
    }
    if (wrong.length > 0) await anomaly(tx, `fence:${outcome}`, wrong.join("; "));
    await tx
      .execute(
        insert(Settlement).values(
          claims.map((c) => ({
            id: randomUUID(),
            jobId: c.id,
            attempt: c.attempts,
            worker,
            outcome,
            applied: ours.has(c.id),
            settledAt: sql.now(),
          })),
        ),
      )
      .rowsAffected();
  }, retry);
}

async function anomaly(tx: TransactionHandle, kind: string, detail: string): Promise<void> {
  await tx.execute(insert(Anomaly).values({ id: randomUUID(), worker, kind, detail: detail.slice(0, 4000) })).rowsAffected();
}

let lastReclaim = Number.NEGATIVE_INFINITY;
let reclaiming: Promise<number> | undefined;

/** reclaimExpired in a transaction that records how many rows it moved; at most one at a time per process. */
function reclaim(force: boolean): Promise<number> {
  if (reclaiming) return reclaiming.then(() => 0);
  if (!force && performance.now() - lastReclaim < (config!.leaseSeconds * 1000) / 2) return Promise.resolve(0);
  lastReclaim = performance.now();
  reclaiming = engine
    .transaction(async (tx) => {
      const moved = await reclaimExpired(tx, Job, { leaseSeconds: config!.leaseSeconds });
      if (moved > 0) {
        await tx.execute(insert(Reclaim).values({ id: randomUUID(), worker, rowCount: moved, reclaimedAt: sql.now() })).rowsAffected();
      }
      return moved;
    }, retry)
    .finally(() => {
      reclaiming = undefined;
    });
  return reclaiming;
}

/** Delivers a claimed batch concurrently and settles it like the recipes' drain: sent, requeued or failed. */
async function work(batch: JobRow[]): Promise<void> {
  const sent: JobRow[] = [];
  const retried: JobRow[] = [];
  const failed: JobRow[] = [];
  await Promise.all(
    batch.map(async (job) => {
      // Its previous holder died on the last allowed attempt: not tried again (the recipes' policy).
      if (job.attempts > config!.maxAttempts) return void failed.push(job);
      if (await deliver(job)) sent.push(job);
      else (job.attempts >= config!.maxAttempts ? failed : retried).push(job);
    }),
  );
  const groups = [
    ["sent", sent],
    ["requeued", retried],
    ["failed", failed],
  ] as const;
  for (const [i, [outcome, claims]] of groups.entries()) {
    for (let attempt = 1; ; attempt++) {
      try {
        await settle(outcome, claims);
        break;
      } catch (error) {
        if (attempt >= 5) {
          // Given up: these claims (and the ones not settled yet) are left to their lease, and this
          // worker no longer holds them.
          for (const [, left] of groups.slice(i)) {
            for (const c of left) record({ t: "abandoned", job: c.id, attempt: c.attempts, at: Date.now() });
          }
          throw error;
        }
        await sleep(20 * attempt);
      }
    }
  }
}

async function lane(): Promise<void> {
  while (!stopping) {
    try {
      await reclaim(false);
      const batch = await claim();
      if (batch.length > 0) {
        await work(batch);
        continue;
      }
      if ((await reclaim(true)) === 0) await sleep(config!.pollMs);
    } catch (error) {
      record({ t: "error", message: error instanceof Error ? `${error.name}: ${error.message}` : String(error), at: Date.now() });
      await sleep(50 + Math.random() * 100);
    }
  }
}

process.send?.({ ready: worker });
await Promise.all(Array.from({ length: config.lanes }, lane));
await engine.close();
closeSync(journal);
process.disconnect?.();
