import { setTimeout as sleep } from "node:timers/promises";
import { claimBatch, work } from "@tempest-db-js/queue-recipes";
import type { Engine, QueryError } from "tempest-db-js";
import { ConnectionError, column, createEngine, insert, Model, select, sql, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobModel } from "./support/queue.js";
import { deliveryProblems, dropQueue, eventually, freshQueue, statusCounts } from "./support/queue.js";
import { serverKits } from "./support/servers.js";

// Backends killed under the library (pg_terminate_backend / KILL): the transaction is rolled back,
// the caller gets a ConnectionError, the pool drops the dead connection and the next statement works.

class Counter extends Model {
  static tablename = `chaos_fault_counters_${process.pid}`;
  id = column.integer().primaryKey();
  value = column.integer().notNull();
}

describe.each(serverKits)("$name: backends killed", (kit) => {
  let engine: Engine;
  let killer: Engine;
  const queues: JobModel[] = [];

  beforeAll(async () => {
    await import(kit.dialectPackage);
    engine = createEngine(kit.url, { poolSize: 4 });
    killer = createEngine(kit.url, { poolSize: 1 });
    await engine.dropAll([Counter]);
    await engine.createAll([Counter]);
  });

  afterAll(async () => {
    await engine.dropAll([Counter]);
    for (const Job of queues) await dropQueue(engine, Job);
    await killer.close();
    await engine.close();
  });

  it("a connection killed mid-transaction rolls back with a ConnectionError, and the pool recovers", async () => {
    await engine.execute(sql.raw(`DELETE FROM ${Counter.tablename}`)).rowsAffected();
    await engine
      .execute(
        insert(Counter).values([
          { id: 1, value: 0 },
          { id: 2, value: 0 },
        ]),
      )
      .rowsAffected();
    const error = await engine
      .transaction(async (tx) => {
        await tx.execute(update(Counter).set({ value: 100 }).where({ id: 1 })).rowsAffected();
        await kit.kill(killer, await kit.backendId(tx));
        await tx.execute(update(Counter).set({ value: 200 }).where({ id: 2 })).rowsAffected();
      })
      .catch((e: unknown) => e);
    expect(ConnectionError.isInstance(error), String(error)).toBe(true);
    expect((error as QueryError).kind).toBe("connection");
    expect((error as QueryError).sql).toContain("UPDATE");
    // Every pooled connection works afterwards, and nothing of the transaction was kept.
    const reads = await Promise.all(Array.from({ length: 8 }, () => engine.execute(select(Counter).orderBy("id")).all()));
    for (const rows of reads)
      expect(rows).toEqual([
        { id: 1, value: 0 },
        { id: 2, value: 0 },
      ]);
  });

  it("a connection killed outside a transaction fails the next statement on it only; the pool replaces it", async () => {
    // Take every pooled connection, kill one of them while it is idle in the pool.
    const ids = await Promise.all(Array.from({ length: 4 }, () => engine.transaction(async (tx) => kit.backendId(tx))));
    await kit.kill(killer, ids[0] as number);
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => engine.execute(sql.raw("SELECT 1 AS ok")).scalar()));
    for (const r of results) {
      if (r.status === "rejected") expect(ConnectionError.isInstance(r.reason), String(r.reason)).toBe(true);
    }
    expect(results.filter((r) => r.status === "fulfilled").length).toBeGreaterThanOrEqual(7);
    expect(await engine.execute(sql.raw("SELECT 1 AS ok")).scalar()).toBe(1);
  });

  it("a claim whose connection is killed before commit is undone: rows queued, attempts unchanged, claimed again by the next claim", async () => {
    const Job = await freshQueue(engine, "killclaim", 10);
    queues.push(Job);
    const error = await engine
      .transaction(async (tx) => {
        const claimed = await claimBatch(tx, Job, { size: 5 });
        expect(claimed).toHaveLength(5);
        await kit.kill(killer, await kit.backendId(tx));
        await tx.execute(sql.raw("SELECT 1 AS ok")).all();
      })
      .catch((e: unknown) => e);
    expect(ConnectionError.isInstance(error), String(error)).toBe(true);
    const rows = await engine.execute(select(Job, ["status", "attempts"])).all();
    expect(rows.every((r) => r.status === "queued" && r.attempts === 0)).toBe(true);
    const again = await claimBatch(engine, Job, { size: 10 });
    expect(again).toHaveLength(10);
    expect(again.every((r) => r.attempts === 1)).toBe(true);
  });

  it("work() keeps delivering while its connections are killed over and over: every job sent, none delivered more often than claimed", async () => {
    const victim = await kit.isolated(killer);
    const workerEngine = createEngine(victim.url, { poolSize: 4 });
    // Enough jobs, and kill rounds often enough, that kills land mid-statement, where they surface as
    // errors: with 2,000 jobs and a round every ~100 ms, the faster claims left a PostgreSQL run with none.
    const JOBS = 4000;
    let Job: JobModel | undefined;
    try {
      Job = await freshQueue(workerEngine, "killwork", JOBS);
      const deliveries = new Map<string, number>();
      const errors: unknown[] = [];
      const stop = new AbortController();
      const guard = setTimeout(() => stop.abort(), 120_000);
      const running = work(
        workerEngine,
        Job,
        async (job) => {
          // Slow enough (≥ 1.25 s for the queue at 40 in flight) that the kill rounds land mid-drain.
          await sleep(25);
          deliveries.set(job.id, (deliveries.get(job.id) ?? 0) + 1);
        },
        {
          batchSize: 20,
          concurrency: 2,
          leaseSeconds: 1,
          pollIntervalMs: 50,
          errorBackoffMs: 20,
          maxErrorBackoffMs: 200,
          signal: stop.signal,
          onError: (error) => errors.push(error),
        },
      );
      // Kill all of the worker's connections every ~50 ms while it has most of the queue to go.
      let killed = 0;
      let rounds = 0;
      while (rounds < 100 && deliveries.size < JOBS * 0.9) {
        await sleep(25 + Math.random() * 50);
        killed += await victim.killAll();
        rounds++;
      }
      // (An idle pooled connection killed in the last round fails the first check that draws it.)
      const sentAll = async () =>
        (await statusCounts(workerEngine, Job as JobModel).catch(() => ({}) as Record<string, number>)).sent === JOBS;
      const done = await eventually(sentAll, 90_000, 200);
      stop.abort();
      clearTimeout(guard);
      await running;
      const redelivered = [...deliveries.values()].filter((n) => n > 1).length;
      console.log(
        `${kit.name}: ${rounds} kill rounds, ${killed} connections killed, ${errors.length} errors, ${redelivered} jobs delivered again`,
      );
      expect(done, JSON.stringify(await statusCounts(workerEngine, Job))).toBe(true);
      expect(rounds).toBeGreaterThanOrEqual(5);
      expect(killed).toBeGreaterThan(0);
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.filter((e) => !ConnectionError.isInstance(e)).map(String)).toEqual([]);
      expect(await deliveryProblems(workerEngine, Job, deliveries)).toEqual([]);
    } finally {
      // The first try may draw a pooled connection killed in the last round; the pool then replaces it.
      await dropQueue(workerEngine, Job)
        .catch(() => dropQueue(workerEngine, Job))
        .catch(() => {});
      await workerEngine.close();
      await victim.cleanup();
    }
  });
});
