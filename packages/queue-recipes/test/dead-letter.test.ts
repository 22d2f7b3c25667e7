import type { Engine } from "tempest-db-js";
import { dropTable, select, sql, update, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../src/index.js";
import {
  claimBatch,
  drain,
  enqueue,
  ensureQueueSchema,
  HISTORY_LENGTH,
  markSent,
  reclaimExpired,
  retryFailed,
  verifyQueueSchema,
  withQueueFeatures,
} from "../src/index.js";
import { freshDeadLetterQueue, freshQueue, freshTokenQueue } from "./support/fresh-queue.js";
import { outboundModel } from "./support/models.js";
import { engineFor, targets } from "./support/targets.js";

describe.each(targets)("dead-letter on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 4);
  });
  afterAll(async () => {
    await engine.close();
  });

  it("a message that fails maxAttempts times is dead with its last error and the history of its attempts", async () => {
    const { Outbound } = await freshDeadLetterQueue(engine, "dl_history");
    await enqueue(engine, Outbound, [{ consumer: "mail" }, { consumer: "mail" }]);
    let calls = 0;
    const options = { maxAttempts: 3, backoff: { baseSeconds: 0, jitter: 0 } };
    // Two messages in a batch fail on every delivery, each with its own error.
    for (let round = 0; round < 3; round++) {
      await drain(
        engine,
        Outbound,
        (message) => {
          calls++;
          throw new Error(`refused #${calls} (${message.id.slice(0, 8)})`);
        },
        options,
      );
    }
    expect(calls).toBe(6);
    const rows = await engine.execute(select(Outbound)).all();
    for (const row of rows) {
      expect([row.status, row.deadReason, row.attempts, row.reclaims]).toEqual(["failed", "failed", 3, 0]);
      const history = row.attemptHistory as unknown as AttemptRecord[];
      expect(history.map((h) => h.attempt)).toEqual([1, 2, 3]);
      // Each record is the attempt's own error; the last one is also the row's lastError.
      for (const h of history) expect(h.error).toMatch(new RegExp(`^Error: refused #\\d \\(${row.id.slice(0, 8)}\\)$`));
      expect(history[2]?.error).toBe(row.lastError);
      // The claim's time, on the database clock, in order.
      const times = history.map((h) => Date.parse(h.at ?? ""));
      expect(times.every((t, i) => Number.isFinite(t) && (i === 0 || t >= (times[i - 1] as number)))).toBe(true);
      expect(history.every((h) => h.reclaims === 0)).toBe(true);
    }
  });

  it("keeps only the last HISTORY_LENGTH attempts, each error shortened", async () => {
    const { Outbound } = await freshDeadLetterQueue(engine, "dl_cap");
    await enqueue(engine, Outbound, { consumer: "c" });
    const long = "x".repeat(5000);
    // Due again at once after each failure: one drain runs every attempt.
    await drain(
      engine,
      Outbound,
      () => {
        throw new Error(long);
      },
      { maxAttempts: HISTORY_LENGTH + 2, backoff: { baseSeconds: 0, jitter: 0 } },
    );
    const row = await engine.execute(select(Outbound)).one();
    const history = row.attemptHistory as unknown as AttemptRecord[];
    expect(history.map((h) => h.attempt)).toEqual(Array.from({ length: HISTORY_LENGTH }, (_, i) => i + 3));
    expect(history.every((h) => (h.error ?? "").length === 300)).toBe(true);
  });

  it("counts lease expiries apart from failures and dead-letters a message after maxReclaims of them", async () => {
    const { Outbound } = await freshDeadLetterQueue(engine, "dl_poison");
    await enqueue(engine, Outbound, { consumer: "p" });
    const expire = () =>
      engine
        .execute(
          update(Outbound)
            .set({ updatedAt: sql.nowPlusSeconds(-600) })
            .allRows(),
        )
        .rowsAffected();
    const [first] = await claimBatch(engine, Outbound, { size: 1 });
    await expire();
    expect(await reclaimExpired(engine, Outbound, { leaseSeconds: 300, maxReclaims: 2 })).toBe(1);
    let row = await engine.execute(select(Outbound)).one();
    expect([row.status, row.reclaims, row.attempts, row.deadReason]).toEqual(["queued", 1, 0, null]);

    const [second] = await claimBatch(engine, Outbound, { size: 1 });
    await expire();
    expect(await reclaimExpired(engine, Outbound, { leaseSeconds: 300, maxReclaims: 2 })).toBe(1);
    row = await engine.execute(select(Outbound)).one();
    expect([row.status, row.reclaims, row.attempts, row.deadReason]).toEqual(["failed", 2, 0, "reclaims"]);
    expect(row.lastError).toBe("lease expired 2 times without a settlement: the delivery crashed or hung every worker that took it");
    expect(row.lastErrorAt).toBeInstanceOf(Date);
    // Not claimable, and the late worker's settlements are turned away by the fence.
    expect(await claimBatch(engine, Outbound, { size: 1 })).toEqual([]);
    expect(await markSent(engine, Outbound, [first!, second!])).toEqual({ applied: 0, stale: 2 });
    // A retry gives it a fresh budget of reclaims.
    expect((await retryFailed(engine, Outbound)).count).toBe(1);
    row = await engine.execute(select(Outbound)).one();
    expect([row.status, row.reclaims, row.deadReason]).toEqual(["queued", 0, null]);
  });

  it("maxReclaims needs the reclaims column", async () => {
    const { Outbound } = await freshTokenQueue(engine, "dl_no_column");
    await expect(reclaimExpired(engine, Outbound, { leaseSeconds: 300, maxReclaims: 2 })).rejects.toThrow(ValidationError);
    await expect(drain(engine, Outbound, () => undefined, { maxReclaims: 2 })).rejects.toThrow(/maxReclaims needs the reclaims column/);
  });

  it("verifyQueueSchema reports the dead-letter feature off for the guide's table, and withQueueFeatures adds its columns", async () => {
    const { Outbound } = await freshQueue(engine, "dl_schema");
    const report = await verifyQueueSchema(engine, Outbound);
    expect(report.features).toEqual({ claimToken: false, lastError: false, priority: false, deadLetter: false });
    expect(report.problems.filter((p) => ["reclaims", "dead_reason", "attempt_history"].includes(p.name)).map((p) => p.required)).toEqual([
      false,
      false,
      false,
    ]);
    for (const problem of report.problems) for (const ddl of problem.ddl) await engine.execute(sql.raw(ddl)).rowsAffected();
    const Full = withQueueFeatures(Outbound);
    // With the priority column the full model also wants its priority index (an index, not a feature).
    const full = await verifyQueueSchema(engine, Full);
    expect(full.problems.map((p) => p.kind)).toEqual(["index"]);
    for (const problem of full.problems) for (const ddl of problem.ddl) await engine.execute(sql.raw(ddl)).rowsAffected();
    const after = await verifyQueueSchema(engine, Full);
    expect(after.features).toEqual({ claimToken: true, lastError: true, priority: true, deadLetter: true });
    expect(after.problems).toEqual([]);
    // The guide's model still works on the migrated table.
    await enqueue(engine, Outbound, { consumer: "g" });
    expect(await claimBatch(engine, Outbound, { size: 1 })).toHaveLength(1);
  });

  it("a table created from withQueueFeatures has every feature on", async () => {
    const Full = withQueueFeatures(outboundModel("qr_dl_full"));
    await engine.execute(dropTable(Full, { ifExists: true })).rowsAffected();
    const report = await ensureQueueSchema(engine, Full);
    expect(report.features).toEqual({ claimToken: true, lastError: true, priority: true, deadLetter: true });
  });
});
