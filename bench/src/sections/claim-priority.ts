import "@tempest-db-js/dialect-postgres";
import { claimBatch, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import pg from "pg";
import { createEngine, sql } from "tempest-db-js";
import { PG_URL } from "../lib/env.js";
import { priorityQueueModel } from "../lib/models.js";
import type { Row, SectionResult } from "../lib/report.js";
import { check } from "../lib/report.js";
import { percentile } from "../lib/stats.js";
import { DRAIN } from "./queue-drain-postgres.js";

const TABLE = "bench_claim_priority";
const VACUUM_EVERY = 25;
const WARMUP = 50;

/**
 * `n` queued rows: 90% at the top priority (0) but due in an hour, 10% at priority 1 and due now,
 * oldest first: the claim must reach the due ones without reading past the scheduled ones.
 */
async function load(admin: pg.Pool, n: number): Promise<void> {
  await admin.query(`TRUNCATE "${TABLE}"`);
  await admin.query(
    `INSERT INTO "${TABLE}" (id, consumer, status, attempts, next_attempt_at, updated_at, priority)
     SELECT gen_random_uuid(), 'bench', 'queued', 0,
            CASE WHEN g % 10 = 0 THEN now() - make_interval(secs => ($1 - g) / 1000.0) ELSE now() + interval '1 hour' END,
            now(), CASE WHEN g % 10 = 0 THEN 1 ELSE 0 END
     FROM generate_series(1, $1::int) g`,
    [n],
  );
  await admin.query(`VACUUM ANALYZE "${TABLE}"`);
}

/**
 * Issue 28.1: claim p50 with priorities at 1,000,000 queued rows, 90% of them top priority but not
 * due for an hour, against the same shape at 10,000. Each claimed batch is put back (untimed), due
 * now at priority 1, so every sample sees the same queue.
 */
export async function claimPriority(quick: boolean): Promise<SectionResult> {
  const sizes = quick ? [1_000, 20_000] : [10_000, 1_000_000];
  const samples = quick ? 20 : 400;
  const Job = priorityQueueModel(TABLE);
  const engine = createEngine(PG_URL, { poolSize: 2 });
  const admin = new pg.Pool({ connectionString: PG_URL, max: 2 });
  await engine.execute(sql.raw(`DROP TABLE IF EXISTS "${TABLE}"`)).rowsAffected();
  await ensureQueueSchema(engine, Job);
  const requeue = (ids: unknown[]) =>
    admin.query(`UPDATE "${TABLE}" SET status = 'queued', next_attempt_at = now() WHERE id = ANY($1)`, [ids]);
  const seen: string[] = [];
  const rows: Row[] = [];
  const p50: number[] = [];
  const plans: string[] = [];
  for (const size of sizes) {
    await load(admin, size);
    const times: number[] = [];
    for (let i = 0; i < samples + WARMUP; i++) {
      if (i % VACUUM_EVERY === 0) await admin.query(`VACUUM "${TABLE}"`);
      const started = performance.now();
      const claimed = await claimBatch(engine, Job, { size: DRAIN.batch });
      const ms = performance.now() - started;
      if (claimed.length !== DRAIN.batch) throw new Error(`claimed ${claimed.length} of ${DRAIN.batch} at ${size} rows`);
      if (claimed.some((r) => r.priority !== 1)) throw new Error("claimed a message that is not due");
      await requeue(claimed.map((r) => r.id));
      if (i >= WARMUP) times.push(ms);
    }
    const label = `${size.toLocaleString("en-US")} queued (90% priority 0, due in 1 h)`;
    rows.push({ name: `tempest claimBatch, ${label}`, value: percentile(times, 50), unit: "ms", extra: { p99: percentile(times, 99) } });
    p50.push(percentile(times, 50));

    // The plan of the claim of priority 1, as the recipes send it.
    const spy = createEngine(PG_URL, { poolSize: 1, logParams: true, onQuery: (e) => seen.push(`${e.sql}\n${JSON.stringify(e.params)}`) });
    await claimBatch(spy, Job, { size: DRAIN.batch }).then((claimed) => requeue(claimed.map((r) => r.id)));
    await spy.close();
    const claim = seen.filter((s) => s.startsWith("UPDATE")).pop();
    if (claim) {
      const [text, params] = claim.split("\n");
      const client = await admin.connect();
      try {
        await client.query("BEGIN");
        const { rows: plan } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) ${text}`, JSON.parse(params ?? "[]"));
        await client.query("ROLLBACK");
        plans.push(`EXPLAIN of the claim at ${label}:\n      ${plan.map((r) => r["QUERY PLAN"]).join("\n      ")}`);
      } finally {
        client.release();
      }
    }
  }
  await Promise.all([engine.close(), admin.end()]);
  const growth = (p50[1] as number) / (p50[0] as number);
  return {
    id: "claim-priority",
    title: `2b. Claim with priorities on PostgreSQL (batch ${DRAIN.batch}, ${samples} claims per size)`,
    groups: [
      {
        title: "one claim, ms (p50, with p99)",
        rows,
        baselines: [rows[0]?.name as string],
        checks: [check(`p50 at ${sizes[1]?.toLocaleString("en-US")} ÷ p50 at ${sizes[0]?.toLocaleString("en-US")}`, growth, "≤", 1.5)],
        notes: [
          "A claim reads the priorities present (one index probe each, cached for a second), then claims priority by priority: here one empty range at priority 0, then the batch at priority 1. Both statements are in the timing.",
          `Each claimed batch is requeued (untimed) due now at priority 1; the table is vacuumed every ${VACUUM_EVERY} claims; ${WARMUP} untimed claims first.`,
          ...plans,
        ],
      },
    ],
  };
}
