import "@tempest-db-js/dialect-postgres";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diffSchemas, lintLocks, migrateUp, readTableFacts, safePlan } from "@tempest-db-js/migrate";
import { ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import pg from "pg";
import type { Engine, ModelClass } from "tempest-db-js";
import { createEngine, introspect, modelsSnapshot, schemaSteps } from "tempest-db-js";
import { ClaimGapRecorder } from "../lib/claim-gaps.js";
import { PG_URL } from "../lib/env.js";
import type { LockCase } from "../lib/lock-cases.js";
import { LOCK_CASES, lockCaseModel, TENANTS_TABLE, Tenant } from "../lib/lock-cases.js";
import type { QueueModel } from "../lib/models.js";
import type { Row, SectionResult } from "../lib/report.js";
import { check, count } from "../lib/report.js";

const TABLE = "bench_migration_locks";
const WORKERS = 4;
const BATCH = 50;
/** Quiet time before and after each migration, inside the measured window. */
const MARGIN_MS = 300;

/** A fresh start: the case's tables and the migration history dropped, the referenced table refilled. */
async function reset(admin: pg.Pool): Promise<void> {
  await admin.query(`DROP TABLE IF EXISTS "${TABLE}"`);
  await admin.query(`DROP TABLE IF EXISTS "${TENANTS_TABLE}"`);
  await admin.query(`DROP TABLE IF EXISTS "tempest_migrations"`);
  await admin.query(`CREATE TABLE "${TENANTS_TABLE}" (id integer PRIMARY KEY)`);
  await admin.query(`INSERT INTO "${TENANTS_TABLE}" SELECT g FROM generate_series(1, 100) g`);
}

/** Loads `n` due jobs, every column the cases constrain filled so that each constraint holds. */
async function fill(admin: pg.Pool, n: number): Promise<void> {
  await admin.query(
    `INSERT INTO "${TABLE}" (id, consumer, status, attempts, next_attempt_at, updated_at, tenant_id, ref)
     SELECT gen_random_uuid(), 'c' || (g % 50), 'queued', 0, now() - make_interval(secs => ($1 - g) / 1000.0), now(), 1 + g % 100, 'r' || g
     FROM generate_series(1, $1::int) g`,
    [n],
  );
  await admin.query(`VACUUM ANALYZE "${TABLE}"`);
}

/**
 * The migration the tool generates for one case, written as a migration file: the plan between the
 * live schema and the changed models, as it is (`unsafe`) or rewritten by `safePlan`.
 */
async function writeMigration(engine: Engine, folder: string, after: ModelClass, safe: boolean): Promise<string[]> {
  const live = await introspect(engine, { tables: [TABLE, TENANTS_TABLE] });
  const target = modelsSnapshot(engine, [Tenant, after]);
  // Every row the bench loads satisfies each new constraint, so SET NOT NULL is allowed here.
  const plan = diffSchemas(live, target, { allowDestructive: "all" });
  const facts = await readTableFacts(engine, live.tables);
  const options = { capabilities: engine.capabilities, facts };
  const chosen = safe ? safePlan(plan, options) : plan;
  const up = [];
  for (const p of chosen.changes) up.push({ kind: "change", change: p.change, statements: await schemaSteps(engine, p.change) });
  const migration = { dialect: engine.dialectName, up, down: null };
  writeFileSync(join(folder, `${Date.now()}_case.mjs`), `export default ${JSON.stringify(migration, null, 2)};\n`);
  const left = lintLocks(chosen, options);
  return [...up.flatMap((s) => s.statements.map((st) => st.sql)), ...left.map((w) => `-- still flagged: ${w.rule}`)];
}

interface Measured {
  readonly gapMs: number;
  readonly migrationMs: number;
  readonly statements: readonly string[];
  readonly emptyClaims: number;
}

async function measure(admin: pg.Pool, n: number, c: LockCase, safe: boolean): Promise<Measured> {
  await reset(admin);
  const before = lockCaseModel(TABLE);
  const engine = createEngine(PG_URL, { poolSize: WORKERS + 2 });
  const folder = mkdtempSync(join(tmpdir(), "tempest-bench-migration-"));
  try {
    await ensureQueueSchema(engine, before);
    await fill(admin, n);
    const statements = await writeMigration(engine, folder, lockCaseModel(TABLE, c.change), safe);
    const recorder = new ClaimGapRecorder(engine, before as unknown as QueueModel, WORKERS, BATCH);
    recorder.start();
    await new Promise((resolve) => setTimeout(resolve, 1000)); // warm, steady claims
    const from = performance.now();
    await new Promise((resolve) => setTimeout(resolve, MARGIN_MS));
    const started = performance.now();
    await migrateUp({ engine, folder });
    const migrationMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, MARGIN_MS));
    const to = performance.now();
    await recorder.stop();
    return { gapMs: recorder.longestGap(from, to), migrationMs, statements, emptyClaims: recorder.emptyClaims };
  } finally {
    rmSync(folder, { recursive: true, force: true });
    await engine.close();
  }
}

/**
 * For each operation the PostgreSQL lock-safety lint flags: the longest time no worker's claim
 * returned while the migration ran, with the plan as diffSchemas makes it and as safePlan rewrites
 * it, on a queue table of 1,000,000 rows that four workers drain at full speed.
 */
export async function migrationLocks(quick: boolean): Promise<SectionResult> {
  const n = quick ? 5_000 : 1_000_000;
  const admin = new pg.Pool({ connectionString: PG_URL, max: 2 });
  const rows: Row[] = [];
  const checks = [];
  const notes: string[] = [];
  try {
    // BENCH_LOCK_CASES=index,NOT NULL runs only the cases whose names contain one of the words.
    const only = process.env.BENCH_LOCK_CASES?.split(",").map((w) => w.trim().toLowerCase());
    for (const c of LOCK_CASES.filter((lc) => !only || only.some((w) => lc.name.toLowerCase().includes(w)))) {
      const unsafe = await measure(admin, n, c, false);
      const safe = await measure(admin, n, c, true);
      rows.push({
        name: `${c.name}: as planned`,
        value: unsafe.gapMs,
        unit: "ms",
        stat: "longest claim gap",
        extra: { migration_ms: Math.round(unsafe.migrationMs), empty_claims: count(unsafe.emptyClaims) },
      });
      rows.push({
        name: `${c.name}: safePlan`,
        value: safe.gapMs,
        unit: "ms",
        stat: "longest claim gap",
        extra: { migration_ms: Math.round(safe.migrationMs), empty_claims: count(safe.emptyClaims) },
      });
      const rewritten = safe.statements.join("\n") !== unsafe.statements.join("\n");
      if (rewritten) checks.push(check(`${c.name}: safe form's longest claim gap (ms)`, safe.gapMs, "≤", 200));
      notes.push(`${c.name} — as planned: ${unsafe.statements.join("; ")}`);
      notes.push(`${c.name} — safePlan: ${rewritten ? safe.statements.join("; ") : "no safe form (same statements)"}`);
    }
  } finally {
    await admin.query(`DROP TABLE IF EXISTS "${TABLE}"`).catch(() => {});
    await admin.query(`DROP TABLE IF EXISTS "${TENANTS_TABLE}"`).catch(() => {});
    await admin.end();
  }
  return {
    id: "migration-locks",
    title: `PostgreSQL: the queue stalls while a migration runs (${n.toLocaleString("en-US")} rows, ${WORKERS} workers draining)`,
    groups: [{ title: "longest gap between two successive claims", rows, baselines: [], checks, notes }],
  };
}
