import type { Engine } from "tempest-db-js";
import { createEngine, insert, op, select, sql, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backoffSeconds, claimBatch, drain, enqueue, markSent, requeue } from "../src/index.js";
import { freshQueue, rowsOf } from "./support/fresh-queue.js";
import { engineFor, MESSAGES, targets } from "./support/targets.js";

describe.each(targets)("drain on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 8);
  });
  afterAll(async () => {
    await engine.close();
  });

  it("delivers every message exactly once with 8 concurrent connections", async () => {
    const { Outbound, Delivery } = await freshQueue(engine, "drain_once");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: MESSAGES }, (_, i) => ({ consumer: `c${i % 5}`, idempotencyKey: `k${i}` })),
    );
    const result = await drain(
      engine,
      Outbound,
      async (message) => {
        await engine.execute(insert(Delivery).values({ messageId: message.id, worker: "in-process" })).rowsAffected();
      },
      { batchSize: 25, concurrency: 8 },
    );
    expect(result).toMatchObject({ sent: MESSAGES, retried: 0, failed: 0, stale: 0 });
    const deliveries = await engine.execute(select(Delivery, ["messageId"])).all();
    expect(deliveries).toHaveLength(MESSAGES);
    expect(new Set(deliveries.map((d) => d.messageId)).size).toBe(MESSAGES);
    const statuses = await engine.execute(select(Outbound, ["status"]).where({ status: op.ne("sent") })).all();
    expect(statuses).toEqual([]);
  });

  it("retries failures with backoff and marks a message failed after maxAttempts", async () => {
    const { Outbound } = await freshQueue(engine, "drain_fail");
    const { inserted } = await enqueue(engine, Outbound, [{ consumer: "doomed" }, { consumer: "fine" }]);
    const attemptsSeen: number[] = [];
    const errors: unknown[] = [];
    const result = await drain(
      engine,
      Outbound,
      (message, { attempt }) => {
        if (message.consumer === "doomed") {
          attemptsSeen.push(attempt);
          throw new Error("endpoint down");
        }
      },
      { maxAttempts: 3, backoff: () => 0, onDeliveryError: (error) => errors.push(error) },
    );
    expect(result).toMatchObject({ sent: 1, retried: 2, failed: 1, stale: 0 });
    expect(attemptsSeen).toEqual([1, 2, 3]);
    expect(errors).toHaveLength(3);
    const doomed = await engine.execute(select(Outbound).where({ id: inserted[0]?.id as string })).one();
    expect(doomed).toMatchObject({ status: "failed", attempts: 3 });
  });

  it("requeues with a delay counted on the database clock, so a retried message is not due at once", async () => {
    const { Outbound } = await freshQueue(engine, "drain_backoff");
    await enqueue(engine, Outbound, { consumer: "x" });
    const result = await drain(engine, Outbound, () => Promise.reject(new Error("no")), { backoff: { baseSeconds: 600, jitter: 0 } });
    expect(result).toMatchObject({ sent: 0, retried: 1, failed: 0 });
    const row = await engine.execute(select(Outbound)).one();
    expect(row.status).toBe("queued");
    const later = await engine.execute(select(Outbound, ["id"]).where({ nextAttemptAt: op.gt(sql.nowPlusSeconds(590)) })).all();
    expect(later).toHaveLength(1);
    expect(await claimBatch(engine, Outbound, { size: 1 })).toEqual([]);
  });

  it("gives each requeued message its own jittered delay in one statement", async () => {
    const { Outbound } = await freshQueue(engine, "drain_jitter");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 20 }, () => ({ consumer: "j" })),
    );
    const batch = await claimBatch(engine, Outbound, { size: 20 });
    const statements: string[] = [];
    const counting = createEngine(target.url, { onQuery: (event) => statements.push(event.sql) });
    const result = await requeue(counting, Outbound, batch, { backoff: { baseSeconds: 1000, jitter: 1 } });
    await counting.close();
    expect(result).toEqual({ applied: 20, stale: 0 });
    expect(statements.filter((s) => /^UPDATE/i.test(s))).toHaveLength(1);
    const rows = await rowsOf(engine, Outbound);
    const delays = new Set(rows.map((r) => r.nextAttemptAt.getTime()));
    expect(delays.size).toBeGreaterThan(10);
    expect(rows.every((r) => r.status === "queued" && r.attempts === 1)).toBe(true);
  });

  it("computes exponential backoff with bounded jitter", () => {
    expect(backoffSeconds(1, { baseSeconds: 2, jitter: 0 })).toBe(2);
    expect(backoffSeconds(4, { baseSeconds: 2, jitter: 0 })).toBe(16);
    expect(backoffSeconds(30, { baseSeconds: 2, maxSeconds: 60, jitter: 0 })).toBe(60);
    const draws = Array.from({ length: 200 }, () => backoffSeconds(3, { baseSeconds: 1, jitter: 0.5 }));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...draws)).toBeLessThanOrEqual(4);
    expect(() => backoffSeconds(1, () => -1)).toThrow(/seconds/);
  });

  it("after deliveryTimeoutMs the handler still decides: resolving late is sent, rejecting late is retried", async () => {
    const { Outbound } = await freshQueue(engine, "drain_timeout");
    await enqueue(engine, Outbound, [{ consumer: "late-ok" }, { consumer: "late-fail" }]);
    const calls: string[] = [];
    const aborted: unknown[] = [];
    const timedOut: string[] = [];
    const result = await drain(
      engine,
      Outbound,
      (message, { timeout }) => {
        calls.push(message.consumer);
        // First calls settle only when told their time is up; the retry succeeds at once.
        if (calls.length > 2) return undefined;
        return new Promise((resolve, reject) =>
          timeout.addEventListener("abort", () => {
            aborted.push(timeout.reason);
            if (message.consumer === "late-ok") resolve(undefined);
            else reject(timeout.reason);
          }),
        );
      },
      { deliveryTimeoutMs: 50, backoff: () => 0, onDeliveryTimeout: (_error, message) => timedOut.push(message.consumer) },
    );
    expect(result).toMatchObject({ sent: 2, retried: 1, failed: 0, stale: 0 });
    expect(calls.sort()).toEqual(["late-fail", "late-fail", "late-ok"]);
    expect(timedOut.sort()).toEqual(["late-fail", "late-ok"]);
    expect(aborted).toHaveLength(2);
    expect(String(aborted[0])).toContain("timed out after 50 ms");
    const rows = await engine.execute(select(Outbound, ["consumer", "status", "attempts"]).orderBy("consumer")).all();
    expect(rows).toEqual([
      { consumer: "late-fail", status: "sent", attempts: 2 },
      { consumer: "late-ok", status: "sent", attempts: 1 },
    ]);
  });

  it("stops claiming when the signal aborts and still settles the batch in flight", async () => {
    const { Outbound } = await freshQueue(engine, "drain_abort");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 50 }, () => ({ consumer: "a" })),
    );
    const controller = new AbortController();
    const result = await drain(
      engine,
      Outbound,
      async () => {
        controller.abort();
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
      { batchSize: 10, signal: controller.signal },
    );
    expect(result.sent).toBe(10);
    const left = await engine.execute(select(Outbound, ["id"]).where({ status: "queued" })).all();
    expect(left).toHaveLength(40);
    const sending = await engine.execute(select(Outbound, ["id"]).where({ status: "sending" })).all();
    expect(sending).toHaveLength(0);
  });

  it("works with a model whose fields are named differently", async () => {
    const { Model, column, dropTable } = await import("tempest-db-js");
    class Job extends Model {
      static tablename = "qr_mapped_jobs";
      static naming = "snake_case";
      jobId = column.uuid().primaryKey();
      queue = column.text().notNull();
      dedupeKey = column.text();
      state = column.enum("waiting", "running", "done", "dead").notNull();
      tries = column.integer().notNull().default(0);
      runAt = column.datetime().notNull();
      touchedAt = column.datetime();
    }
    const options = {
      fields: {
        id: "jobId",
        consumer: "queue",
        idempotencyKey: "dedupeKey",
        status: "state",
        attempts: "tries",
        nextAttemptAt: "runAt",
        updatedAt: "touchedAt",
      },
      statuses: { queued: "waiting", sending: "running", sent: "done", failed: "dead" },
    };
    const { ensureQueueSchema } = await import("../src/index.js");
    await engine.execute(dropTable(Job, { ifExists: true })).rowsAffected();
    await ensureQueueSchema(engine, Job, options);
    const first = await enqueue(engine, Job, [{ queue: "q", dedupeKey: "a" }, { queue: "q", dedupeKey: "a" }, { queue: "q" }], options);
    expect([first.inserted.length, first.duplicates.length]).toEqual([2, 1]);
    const seen: string[] = [];
    const result = await drain(engine, Job, (job) => void seen.push(job.queue), { ...options, maxAttempts: 2 });
    expect(result).toMatchObject({ sent: 2, failed: 0 });
    const rows = await engine.execute(select(Job)).all();
    expect(rows.every((r) => r.state === "done" && r.tries === 1)).toBe(true);
    await expect(claimBatch(engine, Job, { size: 1 })).rejects.toThrow(/no field "id".*fields/);
  });

  it("fences settlement: markSent applies only to rows this claim still holds", async () => {
    const { Outbound } = await freshQueue(engine, "drain_fence");
    await enqueue(engine, Outbound, [{ consumer: "a" }, { consumer: "b" }]);
    const claimed = await claimBatch(engine, Outbound, { size: 2 });
    // Someone else took the second row over (as a reclaim followed by a new claim would).
    await engine
      .execute(
        update(Outbound)
          .set({ attempts: 2 })
          .where({ id: claimed[1]?.id as string }),
      )
      .rowsAffected();
    expect(await markSent(engine, Outbound, claimed)).toEqual({ applied: 1, stale: 1 });
    const rows = await engine.execute(select(Outbound).where({ id: claimed[1]?.id as string })).one();
    expect(rows).toMatchObject({ status: "sending", attempts: 2 });
  });
});
