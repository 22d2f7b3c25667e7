import "@tempest-db-js/dialect-postgres";
import { ensureQueueSchema, purgeSettled } from "@tempest-db-js/queue-recipes";
import pg from "pg";
import { createEngine } from "tempest-db-js";
import { ClaimGapRecorder } from "../lib/claim-gaps.js";
import { PG_URL } from "../lib/env.js";
import { queueModel } from "../lib/models.js";
import type { Row, SectionResult } from "../lib/report.js";
import { check } from "../lib/report.js";

const TABLE = "bench_retention";
const WORKERS = 4;
const BATCH = 50;
/** Quiet time before and after the purge, inside the measured window. */
const MARGIN_MS = 300;

/** `settled` rows sent a week ago, and `queued` due rows for the workers to claim meanwhile. */
async function fill(admin: pg.Pool, settled: number, queued: number): Promise<void> {
  await admin.query(
    `INSERT INTO "${TABLE}" (id, consumer, status, attempts, next_attempt_at, updated_at)
     SELECT gen_random_uuid(), 'c' || (g % 50), 'sent', 1, now() - interval '8 days', now() - interval '7 days' + make_interval(secs => g / 1000.0)
     FROM generate_series(1, $1::int) g`,
    [settled],
  );
  await admin.query(
    `INSERT INTO "${TABLE}" (id, consumer, status, attempts, next_attempt_at, updated_at)
     SELECT gen_random_uuid(), 'c' || (g % 50), 'queued', 0, now() - make_interval(secs => ($1 - g) / 1000.0), now()
     FROM generate_series(1, $1::int) g`,
    [queued],
  );
  await admin.query(`VACUUM ANALYZE "${TABLE}"`);
}

/** A purge's batching: rows per batch, and the adaptive bound on a batch's time (see PurgeOptions). */
interface Batching {
  readonly batchSize: number;
  readonly maxBatchMs?: number;
}

interface Measured {
  readonly gapMs: number;
  /** Gaps over 200 ms in the window. */
  readonly longGaps: number;
  readonly purgeMs: number;
  readonly purged: number;
  readonly claims: number;
}

/**
 * Four workers drain the queue at full speed (claim 50, mark them sent); a window of `windowMs`
 * (or the purge's own duration, with margins) is measured for the longest time no claim returned.
 */
async function measure(admin: pg.Pool, settled: number, queued: number, purge: Batching | undefined, windowMs = 0): Promise<Measured> {
  await admin.query(`DROP TABLE IF EXISTS "${TABLE}"`);
  const Job = queueModel(TABLE);
  const engine = createEngine(PG_URL, { poolSize: WORKERS + 2 });
  try {
    await ensureQueueSchema(engine, Job);
    await fill(admin, settled, queued);
    const recorder = new ClaimGapRecorder(engine, Job, WORKERS, BATCH);
    recorder.start();
    await new Promise((resolve) => setTimeout(resolve, 1000)); // warm, steady claims
    const from = performance.now();
    await new Promise((resolve) => setTimeout(resolve, MARGIN_MS));
    const started = performance.now();
    const purged = purge ? await purgeSettled(engine, Job, { olderThanSeconds: 86_400, ...purge }) : 0;
    // Without a purge: a window as long as the purge took, so that both gaps come from as many claims.
    if (!purge) await new Promise((resolve) => setTimeout(resolve, windowMs));
    const purgeMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, MARGIN_MS));
    const to = performance.now();
    const claims = recorder.claims;
    await recorder.stop();
    return { gapMs: recorder.longestGap(from, to), longGaps: recorder.gapsOver(from, to, 200), purgeMs, purged, claims };
  } finally {
    await engine.close();
  }
}

/**
 * Retention beside the workers (issue 28.2): the longest time no claim of four workers returned while
 * `purgeSettled` deletes 1,000,000 settled rows in batches, each a short transaction of its own,
 * against a window of the same length without one (as many claims, so the same odds of a slow one).
 */
export async function retentionPurge(quick: boolean): Promise<SectionResult> {
  const settled = quick ? 20_000 : 1_000_000;
  // Enough due work that the workers never run dry during the purge.
  const queued = quick ? 20_000 : 400_000;
  const admin = new pg.Pool({ connectionString: PG_URL, max: 2 });
  const rows: Row[] = [];
  const checks = [];
  try {
    const purges: { batching: Batching; m: Measured }[] = [];
    const run = async (batching: Batching) => {
      const m = await measure(admin, settled, queued, batching);
      // (Each figure as soon as it is measured: a full run takes many minutes on a loaded machine.)
      console.error(`retention-purge: ${JSON.stringify({ ...batching, ...m })}`);
      purges.push({ batching, m });
      return m;
    };
    // Fixed batches of 1,000 (the default), the baseline over as long a window, then adaptive
    // batches: halved while a batch takes over 100 ms.
    const first = await run({ batchSize: 1000 });
    const baseline = await measure(admin, settled, queued, undefined, first.purgeMs);
    console.error(`retention-purge: ${JSON.stringify({ baseline: true, ...baseline })}`);
    await run({ batchSize: 1000, maxBatchMs: 100 });
    rows.push({
      name: "no purge (baseline)",
      value: baseline.gapMs,
      unit: "ms",
      stat: "longest claim gap",
      extra: { claims: String(baseline.claims), gaps_over_200ms: String(baseline.longGaps) },
    });
    for (const { batching, m } of purges) {
      const adaptive = batching.maxBatchMs === undefined ? "" : `, maxBatchMs ${batching.maxBatchMs}`;
      rows.push({
        name: `purgeSettled, batches of ${batching.batchSize.toLocaleString("en-US")}${adaptive}`,
        value: m.gapMs,
        unit: "ms",
        stat: "longest claim gap",
        extra: {
          purged: String(m.purged),
          purge_s: (m.purgeMs / 1000).toFixed(1),
          claims: String(m.claims),
          gaps_over_200ms: String(m.longGaps),
        },
      });
      checks.push(check(`longest claim gap during a purge, batches of 1,000${adaptive} (ms)`, m.gapMs, "≤", 200));
    }
  } finally {
    await admin.query(`DROP TABLE IF EXISTS "${TABLE}"`).catch(() => {});
    await admin.end();
  }
  return {
    id: "retention-purge",
    title: `PostgreSQL: claims while purgeSettled deletes ${settled.toLocaleString("en-US")} settled rows (${WORKERS} workers draining)`,
    groups: [
      {
        title: "longest gap between two successive claims",
        rows,
        baselines: [],
        checks,
        notes: ["each purge batch: SELECT ids ... LIMIT n FOR UPDATE SKIP LOCKED, then DELETE ... WHERE id IN (...), in one transaction"],
      },
    ],
  };
}
