import "@tempest-db-js/dialect-postgres";
import { claimBatch, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import pg from "pg";
import { createEngine, sql } from "tempest-db-js";
import { PG_URL } from "../lib/env.js";
import { queueModel } from "../lib/models.js";
import type { Row, SectionResult } from "../lib/report.js";
import { check } from "../lib/report.js";
import { percentile } from "../lib/stats.js";
import { DRAIN, loadPostgresJobs, rawPostgresSql } from "./queue-drain-postgres.js";

const TABLE = "bench_claim_scaling";
/** Claims (each followed by its requeue) between two VACUUMs. */
const VACUUM_EVERY = 25;
/** Untimed claims before each size is measured. */
const WARMUP = 50;

/**
 * One claim of a batch against 10k, 100k and 1M queued rows. After each timed claim the batch is
 * put back at the end of the queue (untimed), so the queue keeps its size for every sample.
 */
export async function claimScaling(quick: boolean): Promise<SectionResult> {
  const sizes = quick ? [1_000, 5_000, 20_000] : [10_000, 100_000, 1_000_000];
  const samples = quick ? 20 : 400;
  const Job = queueModel(TABLE);
  const engine = createEngine(PG_URL, { poolSize: 2 });
  const admin = new pg.Pool({ connectionString: PG_URL, max: 2 });
  await engine.execute(sql.raw(`DROP TABLE IF EXISTS "${TABLE}"`)).rowsAffected();
  await ensureQueueSchema(engine, Job);
  const raw = rawPostgresSql(TABLE);
  const requeue = (ids: unknown[]) =>
    admin.query(`UPDATE "${TABLE}" SET status = 'queued', next_attempt_at = now() WHERE id = ANY($1)`, [ids]);

  const rows: Row[] = [];
  const plans: string[] = [];
  const p50: number[] = [];
  for (const size of sizes) {
    await loadPostgresJobs(admin, TABLE, size);
    const tempestTimes: number[] = [];
    const rawTimes: number[] = [];
    for (let i = 0; i < samples + WARMUP; i++) {
      // Autovacuum's part, done on a schedule so that every size carries the same dead-tuple load.
      if (i % VACUUM_EVERY === 0) await admin.query(`VACUUM "${TABLE}"`);
      let started = performance.now();
      const claimed = await claimBatch(engine, Job, { size: DRAIN.batch });
      const tempestMs = performance.now() - started;
      if (claimed.length !== DRAIN.batch) throw new Error(`claimed ${claimed.length} of ${DRAIN.batch} at ${size} rows`);
      await requeue(claimed.map((r) => r.id));
      started = performance.now();
      const { rows: rawClaimed } = await admin.query(raw.claim, ["sending", "queued", 0.001]);
      const rawMs = performance.now() - started;
      await requeue(rawClaimed.map((r) => r.id));
      if (i >= WARMUP) {
        tempestTimes.push(tempestMs);
        rawTimes.push(rawMs);
      }
    }
    const label = `${size.toLocaleString("en-US")} queued`;
    rows.push({
      name: `tempest claimBatch, ${label}`,
      value: percentile(tempestTimes, 50),
      unit: "ms",
      extra: { p99: percentile(tempestTimes, 99) },
    });
    rows.push({ name: `pg same SQL, ${label}`, value: percentile(rawTimes, 50), unit: "ms", extra: { p99: percentile(rawTimes, 99) } });
    p50.push(percentile(tempestTimes, 50));

    const client = await admin.connect();
    try {
      await client.query("BEGIN");
      const { rows: plan } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) ${raw.claim}`, [
        "sending",
        "queued",
        0.001,
      ]);
      await client.query("ROLLBACK");
      plans.push(`EXPLAIN at ${label}:\n      ${plan.map((r) => r["QUERY PLAN"]).join("\n      ")}`);
    } finally {
      client.release();
    }
  }
  await Promise.all([engine.close(), admin.end()]);

  const growth = (p50[2] as number) / (p50[0] as number);
  return {
    id: "claim-scaling",
    title: `2. Claim cost against queue size on PostgreSQL (batch ${DRAIN.batch}, ${samples} claims per size)`,
    groups: [
      {
        title: "one claim, ms (p50, with p99)",
        rows,
        baselines: [rows[0]?.name as string],
        checks: [
          check(`tempest p50 at ${sizes[2]?.toLocaleString("en-US")} ÷ p50 at ${sizes[0]?.toLocaleString("en-US")}`, growth, "≤", 1.5),
        ],
        notes: [
          `Each claimed batch is requeued (untimed) so the queue size stays constant, and the table is vacuumed (untimed) every ${VACUUM_EVERY} claims, as autovacuum would on a busy queue: each size then carries the same dead-tuple load. tempest and raw pg alternate claim by claim; each size starts with 50 untimed claims.`,
          "Each claim is its own autocommitted statement: p50 is mostly the round trip and the commit's WAL flush, not the queue size.",
          ...plans,
        ],
      },
    ],
  };
}
