import "@tempest-db-js/dialect-postgres";
import { EventEmitter } from "node:events";
import { drain, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import type { WorkerEvents } from "graphile-worker";
import { Logger, makeWorkerUtils, run, runMigrations } from "graphile-worker";
import pg from "pg";
import PgBoss from "pg-boss";
import { createEngine, sql } from "tempest-db-js";
import type { DrainCase } from "../lib/drain-runner.js";
import { raceDrains } from "../lib/drain-runner.js";
import { PG_URL } from "../lib/env.js";
import { idsByAttempts } from "../lib/ids-by-attempts.js";
import { queueModel } from "../lib/models.js";
import type { SectionResult } from "../lib/report.js";
import { check, ratio } from "../lib/report.js";

export const DRAIN = { jobs: 20_000, workers: 4, batch: 50 };
const noop = (_job?: unknown) => {};
const silent = new Logger(() => () => {});

/** Queues `n` due jobs in one statement, oldest first, then refreshes statistics. */
export async function loadPostgresJobs(admin: pg.Client | pg.Pool, table: string, n: number): Promise<void> {
  await admin.query(`TRUNCATE "${table}"`);
  await admin.query(
    `INSERT INTO "${table}" (id, consumer, status, attempts, next_attempt_at, updated_at)
     SELECT gen_random_uuid(), 'bench', 'queued', 0, now() - make_interval(secs => ($1 - g) / 1000.0), now() FROM generate_series(1, $1::int) g`,
    [n],
  );
  await admin.query(`VACUUM ANALYZE "${table}"`);
}

async function countStatus(admin: pg.Pool, table: string, status: string): Promise<number> {
  const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${table}" WHERE status = $1`, [status]);
  return rows[0].n as number;
}

/** The claim and completion the recipes issue on PostgreSQL, written by hand on pg. */
export function rawPostgresSql(table: string) {
  const t = `"${table}"`;
  return {
    claim: `UPDATE ${t} SET "status" = $1, "attempts" = "attempts" + 1, "updated_at" = now() WHERE "id" = ANY(ARRAY(SELECT "id" FROM ${t} WHERE "status" = $2 AND "next_attempt_at" <= (now() + make_interval(secs => $3)) ORDER BY "next_attempt_at" ASC LIMIT ${DRAIN.batch} FOR UPDATE SKIP LOCKED)) RETURNING "id", "consumer", "idempotency_key", "status", "attempts", "next_attempt_at", "updated_at"`,
    // The ids travel as one array parameter, whatever their number.
    complete: `UPDATE ${t} SET "status" = $1, "updated_at" = now() WHERE "id" = ANY($2) AND "status" = $3 AND "attempts" = $4`,
  };
}

export async function rawPgDrain(pool: pg.Pool, table: string, prepared: boolean): Promise<void> {
  const q = rawPostgresSql(table);
  const lane = async () => {
    for (;;) {
      const { rows } = await pool.query(
        prepared
          ? { name: `claim_${table}`, text: q.claim, values: ["sending", "queued", 0.001] }
          : { text: q.claim, values: ["sending", "queued", 0.001] },
      );
      if (rows.length === 0) return;
      await Promise.all(rows.map(async (row) => noop(row)));
      const byAttempts = idsByAttempts(rows);
      for (const [attempts, ids] of byAttempts) {
        const values = ["sent", ids, "sending", attempts];
        await pool.query(prepared ? { name: `complete_${table}`, text: q.complete, values } : { text: q.complete, values });
      }
    }
  };
  await Promise.all(Array.from({ length: DRAIN.workers }, lane));
}

/** Checks that the hand-written SQL is what the recipes really send. */
async function assertSameSql(table: string, admin: pg.Pool): Promise<void> {
  const Job = queueModel(table);
  const seen: string[] = [];
  const spy = createEngine(PG_URL, { poolSize: 1, onQuery: (e) => seen.push(e.sql) });
  try {
    await loadPostgresJobs(admin, table, DRAIN.batch);
    await drain(spy, Job, noop, { batchSize: DRAIN.batch, concurrency: 1 });
  } finally {
    await spy.close();
  }
  const q = rawPostgresSql(table);
  if (!seen.includes(q.claim)) throw new Error(`raw pg claim SQL differs from the recipes':\n${seen.join("\n")}`);
  if (!seen.includes(q.complete)) throw new Error(`raw pg completion SQL differs from the recipes':\n${seen.join("\n")}`);
}

export async function queueDrainPostgres(quick: boolean): Promise<SectionResult> {
  const n = quick ? 500 : DRAIN.jobs;
  const rounds = quick ? 1 : 5;
  const admin = new pg.Pool({ connectionString: PG_URL, max: 2 });
  const engine = createEngine(PG_URL, { poolSize: DRAIN.workers });
  const tables = { tempest: "bench_drain_tempest", raw: "bench_drain_raw", rawPrepared: "bench_drain_raw_prepared" };
  const Job = queueModel(tables.tempest);
  for (const table of Object.values(tables)) {
    await engine.execute(sql.raw(`DROP TABLE IF EXISTS "${table}"`)).rowsAffected();
    await ensureQueueSchema(engine, queueModel(table));
  }
  await assertSameSql(tables.tempest, admin);

  const rawPool = new pg.Pool({ connectionString: PG_URL, max: DRAIN.workers });
  const rawPreparedPool = new pg.Pool({ connectionString: PG_URL, max: DRAIN.workers });

  // graphile-worker: its own schema, migrated once, outside the timing.
  await runMigrations({ connectionString: PG_URL, logger: silent });
  const utils = await makeWorkerUtils({ connectionString: PG_URL, logger: silent });
  let graphileDone = 0;

  const boss = new PgBoss({ connectionString: PG_URL, max: 10 });
  boss.on("error", () => {});
  await boss.start();
  await boss.deleteQueue("bench").catch(() => {});
  await boss.createQueue("bench");
  const bossCompleted = async () => {
    const { rows } = await admin.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'bench' AND state = 'completed'`);
    return rows[0].n as number;
  };
  const bossLoad = async (count: number) => {
    await admin.query(`DELETE FROM pgboss.job WHERE name = 'bench'`);
    for (let i = 0; i < count; i += 5000) {
      await boss.insert(Array.from({ length: Math.min(5000, count - i) }, () => ({ name: "bench", data: {} })));
    }
    // As for every contender: fresh statistics, and no dead tuples from the previous round.
    await admin.query("VACUUM ANALYZE pgboss.job");
  };

  const cases: DrainCase[] = [
    {
      name: "tempest: recipes drain()",
      load: (count) => loadPostgresJobs(admin, tables.tempest, count),
      drain: async () => {
        await drain(engine, Job, noop, { batchSize: DRAIN.batch, concurrency: DRAIN.workers });
      },
      completed: () => countStatus(admin, tables.tempest, "sent"),
    },
    {
      // An async deliver: each batch's deliveries are pending, so the heartbeat (LeaseKeeper), the
      // batch timeout and the per-delivery bookkeeping all run, as in a real service.
      name: "tempest: recipes drain(), async deliver (heartbeat on)",
      load: (count) => loadPostgresJobs(admin, tables.tempest, count),
      drain: async () => {
        await drain(engine, Job, async () => {}, { batchSize: DRAIN.batch, concurrency: DRAIN.workers });
      },
      completed: () => countStatus(admin, tables.tempest, "sent"),
    },
    {
      name: "pg: same SQL by hand",
      load: (count) => loadPostgresJobs(admin, tables.raw, count),
      drain: () => rawPgDrain(rawPool, tables.raw, false),
      completed: () => countStatus(admin, tables.raw, "sent"),
    },
    {
      name: "pg: same SQL, named prepared statements",
      load: (count) => loadPostgresJobs(admin, tables.rawPrepared, count),
      drain: () => rawPgDrain(rawPreparedPool, tables.rawPrepared, true),
      completed: () => countStatus(admin, tables.rawPrepared, "sent"),
    },
    {
      name: "graphile-worker: run(), concurrency 4",
      rounds: 3,
      warmupJobs: 2000,
      load: async (count) => {
        await admin.query("DELETE FROM graphile_worker._private_jobs");
        for (let i = 0; i < count; i += 1000) {
          await utils.addJobs(Array.from({ length: Math.min(1000, count - i) }, () => ({ identifier: "noop", payload: {} })));
        }
        await admin.query("VACUUM ANALYZE graphile_worker._private_jobs");
        graphileDone = 0;
      },
      drain: async (count) => {
        const events = new EventEmitter() as WorkerEvents;
        const finished = new Promise<void>((resolve) => {
          events.on("job:success", () => {
            if (++graphileDone === count) resolve();
          });
        });
        const runner = await run({
          connectionString: PG_URL,
          concurrency: DRAIN.workers,
          noHandleSignals: true,
          logger: silent,
          events,
          taskList: { noop: async () => {} },
        });
        await finished;
        await runner.stop();
      },
      completed: async () => graphileDone,
    },
    {
      name: "pg-boss: 4 fetch/complete loops, batch 50",
      load: bossLoad,
      drain: async (count) => {
        const lane = async () => {
          for (;;) {
            const jobs = await boss.fetch("bench", { batchSize: DRAIN.batch });
            if (jobs.length === 0) {
              // pg-boss's fetch answers [] on a swallowed error too: stop only when every job is done.
              if ((await bossCompleted()) >= count) return;
              await new Promise((resolve) => setTimeout(resolve, 5));
              continue;
            }
            await Promise.all(jobs.map(async (job) => noop(job)));
            await boss.complete(
              "bench",
              jobs.map((j) => j.id),
            );
          }
        };
        await Promise.all(Array.from({ length: DRAIN.workers }, lane));
      },
      completed: bossCompleted,
    },
    {
      name: "pg-boss: 4 × work(), batch 50, polling 0.5 s (its minimum)",
      rounds: 1,
      warmupJobs: 2000,
      load: bossLoad,
      drain: async (count) => {
        let seen = 0;
        const all = new Promise<void>((resolve) => {
          const handler = async (jobs: PgBoss.Job<object>[]) => {
            seen += jobs.length;
            if (seen >= count) setImmediate(resolve);
          };
          for (let i = 0; i < DRAIN.workers; i++) void boss.work("bench", { batchSize: DRAIN.batch, pollingIntervalSeconds: 0.5 }, handler);
        });
        await all;
        // The last batch is completed after its handler returns.
        while ((await bossCompleted()) < count) await new Promise((r) => setTimeout(r, 20));
        await boss.offWork("bench");
      },
      completed: bossCompleted,
    },
  ];

  const rows = await raceDrains(cases, n, rounds, quick ? 0 : n);
  await boss.stop({ graceful: false, wait: true });
  await utils.release();
  await Promise.all([rawPool.end(), rawPreparedPool.end(), admin.end(), engine.close()]);

  // tempest runs repeated statements as named prepared statements, so its like for like is the
  // prepared raw row; the unnamed one is shown beside it.
  const vsRaw = ratio(rows, "pg: same SQL, named prepared statements", "tempest: recipes drain()");
  const vsGraphile = ratio(rows, "graphile-worker: run(), concurrency 4", "tempest: recipes drain()");
  const asyncVsRaw = ratio(rows, "pg: same SQL, named prepared statements", "tempest: recipes drain(), async deliver (heartbeat on)");
  return {
    id: "drain-postgres",
    title: `1a. Queue drain on PostgreSQL: ${n.toLocaleString("en-US")} jobs, ${DRAIN.workers} workers, batch ${DRAIN.batch}, no-op deliver`,
    groups: [
      {
        title: "wall time to drain (lower is better)",
        rows,
        baselines: ["pg: same SQL, named prepared statements", "tempest: recipes drain()"],
        checks: [
          check("tempest throughput ÷ raw pg (prepared) throughput", vsRaw, "≥", 0.9),
          check("tempest throughput ÷ graphile-worker throughput", vsGraphile, "≥", 10),
          check("tempest (async deliver, heartbeat on) throughput ÷ raw pg (prepared) throughput", asyncVsRaw, "≥", 0.9),
        ],
        notes: [
          "'× tempest' above 1 means slower than tempest. Throughput ratio = the other's time ÷ tempest's time.",
          "The async-deliver row is the same drain with `async () => {}`: every batch then has deliveries pending, so the lease heartbeat, the batch's timeout timer and the per-delivery bookkeeping run (a synchronous deliver settles at once and starts none of them).",
          "raw pg runs the exact SQL text the recipes send (checked against the recipes' own query events before timing), 4 lanes on a 4-connection pg.Pool. tempest's driver prepares repeated statements (named, per connection), so the target compares it with the prepared raw row.",
          "graphile-worker: defaults (no local queue, no batched completion); timed from run() to the last job:success. pg-boss work() sleeps pollingInterval between fetches even when jobs were found, hence the fetch/complete loop row, which shows what its SQL can do.",
        ],
      },
    ],
  };
}
