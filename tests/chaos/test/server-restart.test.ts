import { setTimeout as sleep } from "node:timers/promises";
import { enqueue, work } from "@tempest-db-js/queue-recipes";
import type { Engine } from "tempest-db-js";
import { ConnectionError, createEngine, sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ThrowawayServer } from "../src/throwaway-server.js";
import { throwawayMariadb, throwawayPostgres } from "../src/throwaway-server.js";
import type { JobModel } from "./support/queue.js";
import { deliveryProblems, dropQueue, eventually, freshQueue, statusCounts } from "./support/queue.js";

// A private server (never the shared one) is crashed while work() is delivering — a batch is held
// mid-delivery until the crash is done, so the crash always lands with claims in flight — and started
// again. work() must report the errors, back off, resume, and finish every job.

const JOBS = 3000;

const servers = [
  { name: "PostgreSQL", start: throwawayPostgres, dialectPackage: "@tempest-db-js/dialect-postgres" },
  { name: "MariaDB", start: throwawayMariadb, dialectPackage: "@tempest-db-js/dialect-mysql" },
];

describe.each(servers)("$name restarted while work() runs", ({ name, start, dialectPackage }) => {
  let server: ThrowawayServer | undefined;
  let engine: Engine;
  let Job: JobModel | undefined;

  beforeAll(async () => {
    await import(dialectPackage);
    server = await start();
    engine = createEngine(server.url, { poolSize: 4 });
  }, 180_000);

  afterAll(async () => {
    await dropQueue(engine, Job).catch(() => {});
    await engine?.close();
    await server?.destroy();
  }, 120_000);

  it("backs off while the server is down, resumes when it is back, and loses no job", async () => {
    const s = server as ThrowawayServer;
    Job = await freshQueue(engine, "restart", JOBS);
    const deliveries = new Map<string, number>();
    const errors: unknown[] = [];
    let crashed!: () => void;
    const crashDone = new Promise<void>((resolve) => {
      crashed = resolve;
    });
    let started = 0;
    let deliveredAfterRestart = 0;
    let restarted = false;
    const stop = new AbortController();
    const guard = setTimeout(() => stop.abort(), 150_000);

    // A second loop, PostgreSQL only, that never polls (once an hour): after the restart it can only
    // hear of a new job through a LISTEN it renewed itself.
    let lastListenerQuery = Date.now();
    const listenerEngine = createEngine(s.url, { poolSize: 2, onQuery: () => (lastListenerQuery = Date.now()) });
    const woken: string[] = [];
    const listenerErrors: unknown[] = [];
    const listener =
      name === "PostgreSQL"
        ? work(
            listenerEngine,
            Job,
            async (job) => {
              woken.push(job.id);
              deliveries.set(job.id, (deliveries.get(job.id) ?? 0) + 1);
            },
            {
              consumer: "wake",
              pollIntervalMs: 3_600_000,
              errorBackoffMs: 100,
              maxErrorBackoffMs: 1000,
              signal: stop.signal,
              onError: (error) => listenerErrors.push(error),
            },
          )
        : Promise.resolve(undefined);

    const running = work(
      engine,
      Job,
      async (job) => {
        started++;
        // The 200th delivery and the ones after it wait for the crash: claims are held across it.
        if (started >= 200) await crashDone;
        await sleep(1);
        deliveries.set(job.id, (deliveries.get(job.id) ?? 0) + 1);
        if (restarted) deliveredAfterRestart++;
      },
      {
        // The wake-up job below is the listening loop's alone.
        consumer: "c",
        batchSize: 20,
        concurrency: 2,
        leaseSeconds: 1,
        pollIntervalMs: 100,
        errorBackoffMs: 100,
        maxErrorBackoffMs: 1000,
        signal: stop.signal,
        onError: (error) => errors.push(error),
      },
    );

    try {
      expect(await eventually(() => started >= 200, 60_000)).toBe(true);
      await s.crash();
      crashed();
      // The loop notices: its settlement of the held batch fails, and it backs off.
      expect(await eventually(() => errors.length > 0, 30_000)).toBe(true);
      await sleep(500); // a few backoff rounds against a server that is down
      await s.start();
      restarted = true;

      const finished = await eventually(async () => (await statusCounts(engine, Job as JobModel)).sent === JOBS, 120_000, 250);
      expect(finished, `not all jobs sent: ${JSON.stringify(await statusCounts(engine, Job as JobModel))}\n${s.log()}`).toBe(true);

      if (name === "PostgreSQL") {
        // Once the listening loop is idle again on a renewed subscription, a notified job wakes it.
        const idle = await eventually(
          async () => {
            const listening = await engine
              .execute(sql.raw("SELECT COUNT(*) AS n FROM pg_stat_activity WHERE query ILIKE 'LISTEN %' AND state = 'idle'"))
              .scalar();
            return Number(listening) > 0 && Date.now() - lastListenerQuery > 500;
          },
          60_000,
          100,
        );
        expect(idle).toBe(true);
        const { inserted } = await enqueue(engine, Job, { consumer: "wake", idempotencyKey: "wake-up" });
        expect(await eventually(() => woken.length === 1, 30_000)).toBe(true);
        expect(woken).toEqual([inserted[0]?.id]);
        // It did lose its connection and subscription, and was told so with typed errors.
        expect(listenerErrors.length).toBeGreaterThan(0);
        expect(listenerErrors.filter((e) => !ConnectionError.isInstance(e)).map(String)).toEqual([]);
      }
    } finally {
      stop.abort();
      clearTimeout(guard);
    }
    const totals = await running;
    await listener;
    await listenerEngine.close();

    expect(await statusCounts(engine, Job)).toEqual(name === "PostgreSQL" ? { sent: JOBS + 1 } : { sent: JOBS });
    expect(await deliveryProblems(engine, Job, deliveries)).toEqual([]);
    // The held batch was delivered, its settlement was lost with the server, and after its lease it
    // was claimed and delivered again: at least once, visible.
    expect([...deliveries.values()].some((n) => n === 2)).toBe(true);
    expect(totals.reclaimed).toBeGreaterThan(0);
    expect(deliveredAfterRestart).toBeGreaterThan(0);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.filter((e) => !ConnectionError.isInstance(e)).map(String)).toEqual([]);
  }, 300_000);
});
