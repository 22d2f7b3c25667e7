import type { Engine } from "tempest-db-js";
import { createEngine, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, drain, enqueue } from "../src/index.js";
import { freshQueue, rowsOf } from "./support/fresh-queue.js";
import { priorityModel } from "./support/models.js";
import { targets } from "./support/targets.js";

/** Distinct consumers of the many-consumer test: 1,000 in CI, QUEUE_FAIR_CONSUMERS=10000 for the full size. */
const CONSUMERS = Number(process.env.QUEUE_FAIR_CONSUMERS ?? 1_000);

describe.each(targets)("fair claims (perConsumer) on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = createEngine(target.url);
  });
  afterAll(async () => {
    await engine.close();
  });

  it("a small consumer behind another's backlog is in the first claim; FIFO reaches it last", async () => {
    const { Outbound } = await freshQueue(engine, "fair_small");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 300 }, (_, i) => ({
        consumer: "newsletter",
        idempotencyKey: `n${i}`,
        nextAttemptAt: new Date(Date.now() - 600_000 + i),
      })),
    );
    await enqueue(engine, Outbound, { consumer: "password-reset", idempotencyKey: "r" });
    const fifo = await claimBatch(engine, Outbound, { size: 10 });
    expect(fifo.every((r) => r.consumer === "newsletter")).toBe(true);
    const fair = await claimBatch(engine, Outbound, { size: 10, perConsumer: 3 });
    expect(fair.map((r) => r.consumer)).toContain("password-reset");
    // The cap leaves room (two consumers, three each): filled by due time, a whole batch.
    expect(fair).toHaveLength(10);
    // The newsletter's are its oldest still queued, right after the ten FIFO took.
    const taken = new Set([...fifo, ...fair].map((r) => r.idempotencyKey));
    expect([...Array(19).keys()].every((i) => taken.has(`n${i}`))).toBe(true);
  });

  it(`${CONSUMERS.toLocaleString("en-US")} consumers: the first claim takes one message of each of 100 consumers, first messages first; a fair drain delivers all exactly once`, async () => {
    const { Outbound } = await freshQueue(engine, "fair_many");
    const base = Date.now() - 3_600_000;
    // One consumer with a backlog, the others with two messages each, all due.
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 500 }, (_, i) => ({ consumer: "bulk", idempotencyKey: `b${i}`, nextAttemptAt: new Date(base + i) })),
    );
    for (let start = 0; start < CONSUMERS; start += 2000) {
      const messages = [];
      for (let c = start; c < Math.min(CONSUMERS, start + 2000); c++) {
        for (const n of [0, 1])
          messages.push({ consumer: `c${c}`, idempotencyKey: `k${n}`, nextAttemptAt: new Date(base + 1000 + n * 1_000_000 + c) });
      }
      await enqueue(engine, Outbound, messages);
    }
    const total = 500 + 2 * CONSUMERS;

    const first = await claimBatch(engine, Outbound, { size: 100, perConsumer: 1 });
    expect(first).toHaveLength(100);
    expect(new Set(first.map((r) => r.consumer)).size).toBe(100);
    // bulk's oldest is the oldest first message of all; the rest are other consumers' first messages.
    expect(first.filter((r) => r.consumer === "bulk")).toHaveLength(1);
    expect(first.every((r) => r.consumer === "bulk" || r.idempotencyKey === "k0")).toBe(true);

    // Two workers drain the rest fairly, each claim checked.
    const delivered: string[] = [];
    const result = await drain(
      engine,
      Outbound,
      (m) => {
        delivered.push(m.id);
      },
      { batchSize: 200, concurrency: 2, perConsumer: 2 },
    );
    const rows = await rowsOf(engine, Outbound);
    expect(rows.filter((r) => r.status === "sent")).toHaveLength(total - 100);
    expect(rows.filter((r) => r.status === "queued")).toHaveLength(0);
    expect(new Set(delivered).size).toBe(delivered.length);
    expect(result.sent).toBe(total - 100);
  }, 180_000);

  it("refuses a bad perConsumer, and priorities beside it", async () => {
    const { Outbound } = await freshQueue(engine, "fair_bad");
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      await expect(claimBatch(engine, Outbound, { size: 5, perConsumer: bad })).rejects.toThrow(ValidationError);
    }
    await expect(claimBatch(engine, priorityModel("qr_fair_prio"), { size: 5, perConsumer: 1 })).rejects.toThrow(/priority/);
  });
});
