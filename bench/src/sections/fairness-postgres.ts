import "@tempest-db-js/dialect-postgres";
import { drain, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import pg from "pg";
import { createEngine, sql } from "tempest-db-js";
import { PG_URL } from "../lib/env.js";
import { queueModel } from "../lib/models.js";
import type { Row, SectionResult } from "../lib/report.js";
import { median } from "../lib/stats.js";
import { DRAIN, loadPostgresJobs } from "./queue-drain-postgres.js";

const TABLE = "bench_fairness";
const PER_CONSUMER = 10;

/**
 * Issue 28.1: one consumer's backlog of 20,000 due messages, then one message of a small consumer,
 * due last. Four workers (batch 50) drain the table; timed: from the drain's start to the start of the
 * small consumer's delivery, and the whole drain. FIFO (by due time) against fair claims
 * (`perConsumer: 10`), alternating, each after a fresh load.
 */
export async function fairnessPostgres(quick: boolean): Promise<SectionResult> {
  const backlog = quick ? 2_000 : 20_000;
  const rounds = quick ? 1 : 3;
  const Job = queueModel(TABLE);
  const engine = createEngine(PG_URL, { poolSize: DRAIN.workers });
  const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
  await engine.execute(sql.raw(`DROP TABLE IF EXISTS "${TABLE}"`)).rowsAffected();
  await ensureQueueSchema(engine, Job);
  const modes = { FIFO: undefined, fair: PER_CONSUMER } as const;
  const firstSmall = new Map<string, number[]>(Object.keys(modes).map((m) => [m, []]));
  const whole = new Map<string, number[]>(Object.keys(modes).map((m) => [m, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [mode, perConsumer] of round % 2 === 0 ? Object.entries(modes) : Object.entries(modes).reverse()) {
      await loadPostgresJobs(admin, TABLE, backlog);
      await admin.query(
        `INSERT INTO "${TABLE}" (id, consumer, status, attempts, next_attempt_at, updated_at) VALUES (gen_random_uuid(), 'small', 'queued', 0, now(), now())`,
      );
      let small = Number.NaN;
      const started = performance.now();
      await drain(
        engine,
        Job,
        (job) => {
          if (job.consumer === "small") small = performance.now() - started;
        },
        { batchSize: DRAIN.batch, concurrency: DRAIN.workers, ...(perConsumer === undefined ? {} : { perConsumer }) },
      );
      const elapsed = performance.now() - started;
      if (Number.isNaN(small)) throw new Error(`${mode}: the small consumer's message was not delivered`);
      firstSmall.get(mode)?.push(small);
      whole.get(mode)?.push(elapsed);
    }
  }
  await Promise.all([engine.close(), admin.end()]);
  const rows: Row[] = [];
  for (const mode of Object.keys(modes)) {
    rows.push({
      name: `${mode}: small consumer's first delivery`,
      value: median(firstSmall.get(mode) ?? []),
      unit: "ms",
      stat: `median of ${rounds}`,
    });
    rows.push({ name: `${mode}: whole drain`, value: median(whole.get(mode) ?? []), unit: "ms", stat: `median of ${rounds}` });
  }
  const speedup = median(firstSmall.get("FIFO") ?? []) / median(firstSmall.get("fair") ?? []);
  return {
    id: "fairness-postgres",
    title: `2c. Fair claims on PostgreSQL: one message behind another consumer's ${backlog.toLocaleString("en-US")}, ${DRAIN.workers} workers, batch ${DRAIN.batch}`,
    groups: [
      {
        title: "ms from the drain's start (lower is better)",
        rows,
        baselines: ["FIFO: small consumer's first delivery"],
        checks: [],
        notes: [
          `The small consumer's message is reached ${speedup.toFixed(1)}× sooner with fair claims.`,
          `fair: drain(..., { perConsumer: ${PER_CONSUMER} }): each claim ranks the due messages per consumer (ROW_NUMBER, unlocked), takes every consumer's first before any second, at most ${PER_CONSUMER} of one, and fills the rest by due time; the ids are then locked FOR UPDATE SKIP LOCKED and checked again.`,
          "The whole-drain rows show what ranking the due backlog at every claim costs: it reads every due message once per claim.",
        ],
      },
    ],
  };
}
