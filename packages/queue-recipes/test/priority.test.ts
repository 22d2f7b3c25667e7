import type { Engine } from "tempest-db-js";
import { column, createEngine, dropTable, select, sql, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, drain, enqueue, ensureQueueSchema, queueIndexes, verifyQueueSchema, withQueueFeatures } from "../src/index.js";
import { freshQueue } from "./support/fresh-queue.js";
import { outboundModel, priorityModel } from "./support/models.js";
import { targets } from "./support/targets.js";

describe.each(targets)("priorities on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = createEngine(target.url);
  });
  afterAll(async () => {
    await engine.close();
  });

  async function freshPriorityQueue(name: string) {
    const Job = priorityModel(`qr_${name}`);
    await engine.execute(dropTable(Job, { ifExists: true })).rowsAffected();
    const report = await ensureQueueSchema(engine, Job);
    expect(report.features.priority).toBe(true);
    return Job;
  }

  it("claims the lowest priority first, skipping a higher one that is not due yet", async () => {
    const Job = await freshPriorityQueue("prio_order");
    // Not due for an hour, at the top priority: must not hold back what is due.
    await enqueue(
      engine,
      Job,
      Array.from({ length: 30 }, (_, i) => ({ consumer: "later", idempotencyKey: `l${i}`, priority: 0 })),
      { delaySeconds: 3600 },
    );
    await enqueue(
      engine,
      Job,
      Array.from({ length: 20 }, (_, i) => ({ consumer: "news", idempotencyKey: `n${i}`, priority: 5 })),
    );
    await enqueue(
      engine,
      Job,
      Array.from({ length: 4 }, (_, i) => ({ consumer: "reset", idempotencyKey: `r${i}`, priority: 1 })),
    );
    const first = await claimBatch(engine, Job, { size: 10 });
    expect(first.map((r) => r.priority)).toEqual([1, 1, 1, 1, 5, 5, 5, 5, 5, 5]);
    expect(new Set(first.slice(0, 4).map((r) => r.consumer))).toEqual(new Set(["reset"]));
    // Within a priority, the message due first: the news rows come in their queue order.
    const news = first.slice(4).map((r) => r.nextAttemptAt.getTime());
    expect(news).toEqual([...news].sort((a, b) => a - b));

    // A priority new to the table, queued through this engine, is claimed at the next claim.
    await enqueue(engine, Job, { consumer: "urgent", idempotencyKey: "u", priority: -3 });
    const next = await claimBatch(engine, Job, { size: 3 });
    expect(next.map((r) => [r.consumer, r.priority])).toEqual([
      ["urgent", -3],
      ["news", 5],
      ["news", 5],
    ]);
    // The hour-later rows are still queued, untouched.
    const later = await engine.execute(select(Job).where({ consumer: "later" })).all();
    expect(later.every((r) => r.status === "queued" && r.attempts === 0)).toBe(true);
  });

  it("drains every priority, each batch in priority order", async () => {
    const Job = await freshPriorityQueue("prio_drain");
    await enqueue(
      engine,
      Job,
      Array.from({ length: 60 }, (_, i) => ({ consumer: "c", idempotencyKey: `k${i}`, priority: i % 3 })),
    );
    const seen: number[] = [];
    const result = await drain(engine, Job, (job) => void seen.push(job.priority), { batchSize: 25, concurrency: 1 });
    expect(result.sent).toBe(60);
    // One worker: all of priority 0, then 1, then 2.
    expect(seen).toEqual([...Array(20).fill(0), ...Array(20).fill(1), ...Array(20).fill(2)]);
  });

  it("the guide's model: priority reported off until the column exists; withQueueFeatures adds it and its index", async () => {
    const { Outbound } = await freshQueue(engine, "prio_guide");
    const report = await verifyQueueSchema(engine, Outbound);
    expect(report.features).toMatchObject({ claimToken: false, lastError: false, priority: false });
    const problem = report.problems.find((p) => p.name === "priority");
    expect(problem).toMatchObject({ kind: "column", required: false });
    expect(problem?.effect).toMatch(/^off: priorities/);
    for (const statement of problem?.ddl ?? []) await engine.execute(sql.raw(statement)).rowsAffected();
    const Full = withQueueFeatures(Outbound);
    expect(queueIndexes(Full).map((i) => i.spec.name)).toContain(`${Outbound.tablename}_priority`);
    const after = await verifyQueueSchema(engine, Full);
    expect(after.features.priority).toBe(true);
    // The index is reported missing (not required) with its DDL, which works as given.
    const index = after.problems.find((p) => p.name === `${Outbound.tablename}_priority`);
    expect(index).toMatchObject({ kind: "index", required: false });
    for (const statement of index?.ddl ?? []) await engine.execute(sql.raw(statement)).rowsAffected();
    expect((await verifyQueueSchema(engine, Full)).problems.some((p) => p.kind === "index")).toBe(false);
    // The guide's model itself still claims by due time only, with its own statement.
    await enqueue(engine, Outbound, { consumer: "g" });
    expect(await claimBatch(engine, Outbound, { size: 5 })).toHaveLength(1);
  });

  it("refuses a nullable or non-integer priority", async () => {
    const Nullable = class extends outboundModel("qr_prio_bad") {
      priority = column.integer();
    };
    await expect(claimBatch(engine, Nullable, { size: 1 })).rejects.toThrow(ValidationError);
    const Text = class extends outboundModel("qr_prio_bad2") {
      priority = column.text().notNull();
    };
    await expect(claimBatch(engine, Text, { size: 1 })).rejects.toThrow(ValidationError);
  });
});
