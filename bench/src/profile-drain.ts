/**
 * One process draining the guide's queue on PostgreSQL, for a CPU profile of the recipes' hot path:
 * `node --cpu-prof --cpu-prof-dir=DIR --import tsx src/profile-drain.ts [drains] [jobs] [fused]`
 * (`fused`: `drain({ fused: true })`, one statement per batch).
 */
import "@tempest-db-js/dialect-postgres";
import { drain, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import pg from "pg";
import { createEngine, sql } from "tempest-db-js";
import { PG_URL } from "./lib/env.js";
import { queueModel } from "./lib/models.js";
import { DRAIN, loadPostgresJobs } from "./sections/queue-drain-postgres.js";

const drains = Number(process.argv[2] ?? 5);
const jobs = Number(process.argv[3] ?? DRAIN.jobs);
const fused = process.argv[4] === "fused";
const table = "bench_profile_drain";
const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
const engine = createEngine(PG_URL, { poolSize: DRAIN.workers });
const Job = queueModel(table);
await engine.execute(sql.raw(`DROP TABLE IF EXISTS "${table}"`)).rowsAffected();
await ensureQueueSchema(engine, Job);
for (let i = 0; i < drains; i++) {
  await loadPostgresJobs(admin, table, jobs);
  const cpu = process.cpuUsage();
  const started = performance.now();
  await drain(engine, Job, () => {}, { batchSize: DRAIN.batch, concurrency: DRAIN.workers, fused });
  const used = process.cpuUsage(cpu);
  console.log(`drain ${i + 1}: ${Math.round(performance.now() - started)} ms wall, ${Math.round((used.user + used.system) / 1000)} ms CPU`);
}
await engine.close();
await admin.end();
