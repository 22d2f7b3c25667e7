import "@tempest-db-js/dialect-postgres";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drain, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import pg from "pg";
import { createEngine, sql } from "tempest-db-js";
import type { DrainCase } from "../lib/drain-runner.js";
import { raceDrains } from "../lib/drain-runner.js";
import { PG_URL } from "../lib/env.js";
import { queueModel } from "../lib/models.js";
import type { Row, SectionResult } from "../lib/report.js";
import { check, ratio } from "../lib/report.js";
import {
  assertSameDeleteSql,
  countRows,
  pgbenchDeleteScripts,
  rawFusedDelete,
  rawPgDeleteDrain,
  retryDeadlock,
} from "./cycle-postgres-delete.js";
import { DRAIN, loadPostgresJobs, rawPgDrain, rawPostgresSql } from "./queue-drain-postgres.js";

const noop = (_job?: unknown) => {};
const COLUMNS = `"id", "consumer", "idempotency_key", "status", "attempts", "next_attempt_at", "updated_at"`;

/** The fused statement the recipes send (settle the batch, claim the next), written by hand. */
export function rawFusedSql(table: string): string {
  const t = `"${table}"`;
  return (
    `WITH "tempest_settled" AS (UPDATE ${t} SET "status" = $1, "updated_at" = now() WHERE "status" = $2 AND ("id" = ANY($3) AND "attempts" = $4) RETURNING "id"), ` +
    `"tempest_settled_count" AS (SELECT COUNT(*) AS "n" FROM "tempest_settled"), ` +
    `"tempest_claimed" AS (UPDATE ${t} SET "status" = $5, "attempts" = "attempts" + 1, "updated_at" = now() WHERE "id" = ANY(ARRAY(SELECT "id" FROM ${t} WHERE "status" = $6 AND "next_attempt_at" <= (now() + make_interval(secs => $7)) ORDER BY "next_attempt_at" ASC LIMIT ${DRAIN.batch} FOR UPDATE SKIP LOCKED)) RETURNING ${COLUMNS}) ` +
    `SELECT "s"."n", ${COLUMNS.split(", ")
      .map((c) => `"c".${c}`)
      .join(", ")} FROM "tempest_settled_count" AS "s" LEFT JOIN "tempest_claimed" AS "c" ON "c"."id" IS NOT NULL${CLAIM_FIRST}`
  );
}

/** The fused statement's always-true gate that runs the claim before the settlement (see settle-and-claim.ts). */
const CLAIM_FIRST = ` WHERE (EXISTS (SELECT COUNT(*) AS "k" FROM "tempest_claimed"))`;

async function countStatus(admin: pg.Pool, table: string, status: string): Promise<number> {
  const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${table}" WHERE status = $1`, [status]);
  return rows[0].n as number;
}

/** One round trip per batch, named prepared statements: the fused statement by hand. */
async function rawFused(pool: pg.Pool, table: string): Promise<void> {
  const q = rawPostgresSql(table);
  const fused = rawFusedSql(table);
  const lane = async () => {
    let { rows } = await retryDeadlock(() => pool.query({ name: `claim_${table}`, text: q.claim, values: ["sending", "queued", 0.001] }));
    while (rows.length > 0) {
      await Promise.all(rows.map(async (row) => noop(row)));
      const attempts = new Set(rows.map((r) => r.attempts));
      if (attempts.size !== 1) throw new Error("rawFused: one token per batch expected in this bench");
      const values = ["sent", "sending", rows.map((r) => r.id), rows[0].attempts, "sending", "queued", 0.001];
      const result = await retryDeadlock(() => pool.query({ name: `fused_${table}`, text: fused, values }));
      if (Number(result.rows[0]?.n) !== rows.length) throw new Error("rawFused: a settlement went stale");
      rows = result.rows.filter((r) => r.id !== null);
    }
  };
  await Promise.all(Array.from({ length: DRAIN.workers }, lane));
}

/** Checks that the hand-written fused SQL is what `drain({ fused: true })` sends. */
async function assertSameFusedSql(table: string, admin: pg.Pool): Promise<void> {
  const Job = queueModel(table);
  const seen: string[] = [];
  const spy = createEngine(PG_URL, { poolSize: 1, onQuery: (e) => seen.push(e.sql) });
  try {
    await loadPostgresJobs(admin, table, DRAIN.batch * 2);
    await drain(spy, Job, noop, { batchSize: DRAIN.batch, concurrency: 1, fused: true });
  } finally {
    await spy.close();
  }
  if (!seen.includes(rawFusedSql(table))) throw new Error(`raw fused SQL differs from the recipes':\n${seen.join("\n")}`);
}

/** A statement's `$n` parameters written as the SQL texts given (pgbench scripts). */
function inline(text: string, values: readonly string[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => values[Number(n) - 1] as string);
}

/**
 * pgbench scripts (a C client: no Node in the loop), the recipes' own statements with their values
 * written in: the claim alone; the two-statement cycle (claim, then settle the ids it returned, two
 * transactions); the fused statement (settling the ids the previous one claimed). The claimed ids
 * travel in pgbench variables (`\gset` of array_agg, the same wrapping in both cycles).
 */
export function pgbenchScripts(table: string): Record<"claim" | "two" | "fused", string> {
  const q = rawPostgresSql(table);
  const claim = inline(q.claim, ["'sending'", "'queued'", "0.001"]);
  const settle = inline(q.complete, ["'sent'", ":ids::uuid[]", "'sending'", ":att"]);
  const fused = inline(rawFusedSql(table), ["'sent'", "'sending'", ":ids::uuid[]", ":att", "'sending'", "'queued'", "0.001"]);
  const fusedWith = fused.slice(0, fused.indexOf(' SELECT "s"."n"'));
  return {
    claim: `${claim};\n`,
    two: `WITH "c" AS (${claim}) SELECT coalesce(array_agg("id"), '{}') AS ids, coalesce(min("attempts"), 0) AS att FROM "c" \\gset\n${settle};\n`,
    fused: `${fusedWith} SELECT coalesce(array_agg("c"."id") FILTER (WHERE "c"."id" IS NOT NULL), '{}') AS ids, coalesce(min("c"."attempts"), 0) AS att FROM "tempest_settled_count" AS "s" LEFT JOIN "tempest_claimed" AS "c" ON "c"."id" IS NOT NULL${CLAIM_FIRST} \\gset\n`,
  };
}

/**
 * Jobs per second of one pgbench run of `script` over `n` queued jobs: 4 clients, prepared, each
 * client running its share of the n / batch cycles. Undefined without pgbench.
 */
function pgbenchJobsPerSecond(script: string, n: number): number | undefined {
  const dir = mkdtempSync(join(tmpdir(), "tempest-pgbench-"));
  try {
    const file = join(dir, "cycle.sql");
    writeFileSync(file, script);
    const perClient = Math.floor(n / DRAIN.batch / DRAIN.workers);
    const args = ["-n", "-M", "prepared", "-c", String(DRAIN.workers), "-j", "2", "-t", String(perClient), "-D", "ids={}", "-D", "att=0"];
    const run = spawnSync("pgbench", [...args, "-f", file, PG_URL], { encoding: "utf8" });
    if (run.error || run.status !== 0) return undefined;
    const tps = /tps = ([\d.]+)/.exec(run.stdout)?.[1];
    return tps === undefined ? undefined : Number(tps) * DRAIN.batch;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const FUSED_DELETE = 'tempest: drain({ fused: true, onSent: "delete" })';
const RAW_DELETE = "pg: delete SQL, two round trips per batch (prepared)";
const RAW_FUSED_DELETE = "pg: the fused delete SQL by hand, one round trip (prepared)";

/** Jobs per pgbench run: 2,000 transactions of 50, each of 4 clients running 500. */
const PGBENCH_JOBS = 100_000;

const perSecond = (values: number[]) =>
  `${Math.round(median(values)).toLocaleString("en-US")} jobs/s (${values.map((v) => Math.round(v)).join(", ")})`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export async function cyclePostgres(quick: boolean): Promise<SectionResult> {
  const n = quick ? 500 : DRAIN.jobs;
  const rounds = quick ? 1 : 5;
  const admin = new pg.Pool({ connectionString: PG_URL, max: 2 });
  const engine = createEngine(PG_URL, { poolSize: DRAIN.workers });
  const tables = {
    fused: "bench_cycle_fused",
    two: "bench_cycle_two",
    raw: "bench_cycle_raw",
    rawFused: "bench_cycle_raw_fused",
    pgbench: "bench_cycle_pgbench",
    fusedDelete: "bench_cycle_fused_delete",
    twoDelete: "bench_cycle_two_delete",
    rawDelete: "bench_cycle_raw_delete",
    rawFusedDelete: "bench_cycle_raw_fused_delete",
  };
  for (const table of Object.values(tables)) {
    await engine.execute(sql.raw(`DROP TABLE IF EXISTS "${table}"`)).rowsAffected();
    await ensureQueueSchema(engine, queueModel(table));
  }
  await assertSameFusedSql(tables.fused, admin);
  await assertSameDeleteSql(tables.fusedDelete, admin);
  const rawPool = new pg.Pool({ connectionString: PG_URL, max: DRAIN.workers });
  const rawFusedPool = new pg.Pool({ connectionString: PG_URL, max: DRAIN.workers });
  const rawDeletePool = new pg.Pool({ connectionString: PG_URL, max: DRAIN.workers });
  const rawFusedDeletePool = new pg.Pool({ connectionString: PG_URL, max: DRAIN.workers });
  const Fused = queueModel(tables.fused);
  const FusedDelete = queueModel(tables.fusedDelete);
  const TwoDelete = queueModel(tables.twoDelete);
  // With delete-on-settle a drained job leaves no row: completed = jobs loaded − rows left.
  const deleted = async (table: string) => n - (await countRows(admin, table));
  const Two = queueModel(tables.two);

  const cases: DrainCase[] = [
    {
      name: "tempest: drain({ fused: true }), one statement per batch",
      load: (count) => loadPostgresJobs(admin, tables.fused, count),
      drain: async () => {
        await drain(engine, Fused, noop, { batchSize: DRAIN.batch, concurrency: DRAIN.workers, fused: true });
      },
      completed: () => countStatus(admin, tables.fused, "sent"),
    },
    {
      name: "tempest: drain(), two statements per batch",
      load: (count) => loadPostgresJobs(admin, tables.two, count),
      drain: async () => {
        await drain(engine, Two, noop, { batchSize: DRAIN.batch, concurrency: DRAIN.workers });
      },
      completed: () => countStatus(admin, tables.two, "sent"),
    },
    {
      name: "pg: same SQL, two round trips per batch (prepared)",
      load: (count) => loadPostgresJobs(admin, tables.raw, count),
      drain: () => rawPgDrain(rawPool, tables.raw, true),
      completed: () => countStatus(admin, tables.raw, "sent"),
    },
    {
      name: "pg: the fused SQL by hand, one round trip (prepared)",
      load: (count) => loadPostgresJobs(admin, tables.rawFused, count),
      drain: () => rawFused(rawFusedPool, tables.rawFused),
      completed: () => countStatus(admin, tables.rawFused, "sent"),
    },
    {
      name: FUSED_DELETE,
      load: (count) => loadPostgresJobs(admin, tables.fusedDelete, count),
      drain: async () => {
        await drain(engine, FusedDelete, noop, { batchSize: DRAIN.batch, concurrency: DRAIN.workers, fused: true, onSent: "delete" });
      },
      completed: () => deleted(tables.fusedDelete),
    },
    {
      name: 'tempest: drain({ onSent: "delete" }), two statements per batch',
      load: (count) => loadPostgresJobs(admin, tables.twoDelete, count),
      drain: async () => {
        await drain(engine, TwoDelete, noop, { batchSize: DRAIN.batch, concurrency: DRAIN.workers, onSent: "delete" });
      },
      completed: () => deleted(tables.twoDelete),
    },
    {
      name: RAW_DELETE,
      load: (count) => loadPostgresJobs(admin, tables.rawDelete, count),
      drain: () => rawPgDeleteDrain(rawDeletePool, tables.rawDelete),
      completed: () => deleted(tables.rawDelete),
    },
    {
      name: RAW_FUSED_DELETE,
      load: (count) => loadPostgresJobs(admin, tables.rawFusedDelete, count),
      drain: () => rawFusedDelete(rawFusedDeletePool, tables.rawFusedDelete),
      completed: () => deleted(tables.rawFusedDelete),
    },
  ];
  const rows: Row[] = await raceDrains(cases, n, rounds, quick ? 0 : n);

  // Reference, not raced with the rows above: pgbench (a C client) running the same statements over
  // PGBENCH_JOBS jobs per run (long enough to mean something: 20,000 jobs is under a second), the
  // three scripts interleaved round by round.
  const pgbenchJobs = quick ? 2000 : PGBENCH_JOBS;
  const scripts = { ...pgbenchScripts(tables.pgbench), ...pgbenchDeleteScripts(tables.pgbench, inline) };
  const pgbench: Record<keyof typeof scripts, number[]> = { claim: [], two: [], fused: [], twoDelete: [], fusedDelete: [] };
  for (let r = 0; r < (quick ? 1 : 3); r++) {
    for (const kind of ["two", "fused", "twoDelete", "fusedDelete", "claim"] as const) {
      await loadPostgresJobs(admin, tables.pgbench, pgbenchJobs);
      const jobsPerSecond = pgbenchJobsPerSecond(scripts[kind], pgbenchJobs);
      if (jobsPerSecond !== undefined) pgbench[kind].push(jobsPerSecond);
    }
  }
  await Promise.all([rawPool.end(), rawFusedPool.end(), rawDeletePool.end(), rawFusedDeletePool.end(), admin.end(), engine.close()]);

  const fusedName = "tempest: drain({ fused: true }), one statement per batch";
  const vsRawTwo = ratio(rows, "pg: same SQL, two round trips per batch (prepared)", fusedName);
  const vsTwo = ratio(rows, "tempest: drain(), two statements per batch", fusedName);
  const vsRawFused = ratio(rows, "pg: the fused SQL by hand, one round trip (prepared)", fusedName);
  const deleteVsRawTwo = ratio(rows, RAW_DELETE, FUSED_DELETE);
  const deleteVsRawFused = ratio(rows, RAW_FUSED_DELETE, FUSED_DELETE);
  return {
    id: "cycle-postgres",
    title: `1b. Fused settle + claim cycle on PostgreSQL: ${n.toLocaleString("en-US")} jobs, ${DRAIN.workers} workers, batch ${DRAIN.batch}, no-op deliver`,
    groups: [
      {
        title: "wall time to drain (lower is better)",
        rows,
        baselines: ["pg: same SQL, two round trips per batch (prepared)", fusedName, RAW_DELETE, FUSED_DELETE],
        checks: [
          check("fused throughput ÷ raw pg two-round-trip throughput", vsRawTwo, "≥", 1.5),
          check("fused throughput ÷ tempest two-statement throughput", vsTwo, "≥", 1),
          check("fused throughput ÷ raw pg fused throughput", vsRawFused, "≥", 0.95),
          check('onSent "delete": fused throughput ÷ raw pg two-round-trip delete throughput', deleteVsRawTwo, "≥", 1.5),
          check('onSent "delete": fused throughput ÷ raw pg fused delete throughput', deleteVsRawFused, "≥", 0.95),
        ],
        notes: [
          "Throughput ratio = the other's time ÷ the fused drain's time. Rounds interleaved, order rotated.",
          "The raw rows run the exact SQL texts the recipes send (both checked against the recipes' query events before timing), as named prepared statements on a 4-connection pg.Pool.",
          pgbench.two.length === 0 || pgbench.fused.length === 0 || pgbench.claim.length === 0
            ? "pgbench: not found on PATH (or a run failed)."
            : `pgbench (reference, not raced; 4 clients, prepared, ${pgbenchJobs.toLocaleString("en-US")} jobs a run, median of ${pgbench.two.length} interleaved): two statements per batch ${perSecond(pgbench.two)}; fused ${perSecond(pgbench.fused)}, fused ÷ two = ${(median(pgbench.fused) / median(pgbench.two)).toFixed(2)}; onSent "delete": two statements ${perSecond(pgbench.twoDelete)}, fused ${perSecond(pgbench.fusedDelete)}, fused ÷ two = ${(median(pgbench.fusedDelete) / median(pgbench.twoDelete)).toFixed(2)}; the claim alone, nothing settled (the "ceiling" for one statement per batch) ${perSecond(pgbench.claim)}.`,
        ],
      },
    ],
  };
}
