import { claimBatch, work } from "@tempest-db-js/queue-recipes";
import type { Engine, Executable, QueryError } from "tempest-db-js";
import { column, createEngine, insert, Model, QueryError as QueryErrorClass, select, sql, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobModel } from "./support/queue.js";
import { dropQueue, eventually, freshQueue, statusCounts } from "./support/queue.js";
import { serverKits } from "./support/servers.js";

// createEngine(url, { statementTimeoutMs }) on each server dialect: a statement over the limit is
// cancelled by the server with a QueryError of kind "statement-timeout", the connection stays usable,
// and a queue worker whose statement is cancelled carries on.

const sleepSql: Record<string, string> = {
  PostgreSQL: "SELECT pg_sleep(3) AS slept",
  MariaDB: "SELECT SLEEP(3) AS slept",
};

class Counter extends Model {
  static tablename = `chaos_timeout_counters_${process.pid}`;
  id = column.integer().primaryKey();
  value = column.integer().notNull();
}

/** Locks the rows `query` selects in a transaction of its own, held until release() (which waits for its end). */
async function holdLocks(engine: Engine, query: Executable<unknown>): Promise<{ release: () => Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const holder = engine.transaction(async (tx) => {
    await tx.execute(query).all();
    locked();
    await released;
  });
  // A transaction that fails before it holds the lock fails the test here instead of leaving it waiting.
  await Promise.race([isLocked, holder]);
  return {
    release: async () => {
      release();
      await holder;
    },
  };
}

describe.each(serverKits)("$name: statementTimeoutMs", (kit) => {
  let strict: Engine;
  let plain: Engine;
  let Job: JobModel | undefined;

  beforeAll(async () => {
    await import(kit.dialectPackage);
    strict = createEngine(kit.url, { poolSize: 2, statementTimeoutMs: 300 });
    plain = createEngine(kit.url, { poolSize: 2 });
    await plain.dropAll([Counter]);
    await plain.createAll([Counter]);
    await plain.execute(insert(Counter).values({ id: 1, value: 0 })).rowsAffected();
  });

  afterAll(async () => {
    await plain.dropAll([Counter]);
    await dropQueue(plain, Job);
    await strict.close();
    await plain.close();
  });

  it("cancels a slow statement with a typed error, and the connection answers the next one", async () => {
    const error = (await strict
      .execute(sql.raw(sleepSql[kit.name] as string))
      .all()
      .catch((e: unknown) => e)) as QueryError;
    expect(QueryErrorClass.isInstance(error), String(error)).toBe(true);
    expect(error.kind).toBe("statement-timeout");
    expect(error.retryable).toBe(false);
    const answers = await Promise.all(Array.from({ length: 4 }, () => strict.execute(sql.raw("SELECT 1 AS ok")).scalar()));
    expect(answers.map(Number)).toEqual([1, 1, 1, 1]);
  });

  it("inside a transaction: the cancelled statement rolls the transaction back", async () => {
    const error = await strict
      .transaction(async (tx) => {
        await tx.execute(update(Counter).set({ value: 7 }).where({ id: 1 })).rowsAffected();
        await tx.execute(sql.raw(sleepSql[kit.name] as string)).all();
      })
      .catch((e: unknown) => e);
    expect((error as QueryError).kind).toBe("statement-timeout");
    expect(await plain.execute(select(Counter, ["value"]).where({ id: 1 })).scalar()).toBe(0);
    expect(Number(await strict.execute(sql.raw("SELECT 1 AS ok")).scalar())).toBe(1);
  });

  it("a statement waiting on a row lock is cancelled too", async () => {
    const lock = await holdLocks(plain, select(Counter).where({ id: 1 }).forUpdate());
    try {
      const error = (await strict
        .execute(update(Counter).set({ value: 9 }).where({ id: 1 }))
        .rowsAffected()
        .catch((e: unknown) => e)) as QueryError;
      expect(error.kind).toBe("statement-timeout");
    } finally {
      await lock.release();
    }
    expect(await strict.execute(update(Counter).set({ value: 0 }).where({ id: 1 })).rowsAffected()).toBe(1);
  });

  it("work() is not stalled by an expired claim someone holds locked: it delivers the rest, then reclaims that row once the lock is gone", async () => {
    const queue = await freshQueue(plain, "timeout", 20);
    Job = queue;
    // One claim that is long expired (its worker "died" an hour ago) and whose row someone holds locked.
    const [stuck] = await claimBatch(plain, queue, { size: 1 });
    await plain
      .execute(
        update(queue)
          .set({ updatedAt: sql.nowPlusSeconds(-3600) })
          .where({ id: stuck?.id as string }),
      )
      .rowsAffected();
    const lock = await holdLocks(
      plain,
      select(queue)
        .where({ id: stuck?.id as string })
        .forUpdate(),
    );

    const errors: unknown[] = [];
    const delivered: string[] = [];
    const stop = new AbortController();
    const guard = setTimeout(() => stop.abort(), 60_000);
    const running = work(strict, queue, async (job) => void delivered.push(job.id), {
      leaseSeconds: 60,
      pollIntervalMs: 50,
      errorBackoffMs: 50,
      maxErrorBackoffMs: 200,
      signal: stop.signal,
      onError: (error) => errors.push(error),
    });
    try {
      // The reclaim skips the locked row (FOR UPDATE SKIP LOCKED) instead of waiting into the timeout.
      const progressed = await eventually(() => delivered.length >= 19, 30_000);
      expect(progressed, `${delivered.length} delivered; errors: ${errors.map(String).join(" | ")}`).toBe(true);
      expect(delivered).not.toContain(stuck?.id);
    } finally {
      await lock.release();
    }
    const finished = await eventually(async () => (await statusCounts(plain, queue)).sent === 20, 30_000, 100);
    stop.abort();
    clearTimeout(guard);
    const totals = await running;
    expect(finished, JSON.stringify(await statusCounts(plain, queue))).toBe(true);
    expect(errors).toEqual([]);
    expect(totals.reclaimed).toBe(1);
    expect(delivered.sort()).toEqual((await plain.execute(select(queue, ["id"])).all()).map((r) => r.id).sort());
    expect(await plain.execute(select(queue, ["attempts"]).where({ id: stuck?.id as string })).scalar()).toBe(2);
  });
});
