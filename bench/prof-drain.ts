import "@tempest-db-js/dialect-postgres";
import { drain, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import pg from "pg";
import { createEngine, sql } from "tempest-db-js";
import { PG_URL } from "./src/lib/env.js";
import { queueModel } from "./src/lib/models.js";
import { loadPostgresJobs } from "./src/sections/queue-drain-postgres.js";
const table = "bench_prof_drain";
const admin = new pg.Pool({ connectionString: PG_URL, max: 2 });
const engine = createEngine(PG_URL, { poolSize: 4 });
await engine.execute(sql.raw(`DROP TABLE IF EXISTS "${table}"`)).rowsAffected();
const Job = queueModel(table);
await ensureQueueSchema(engine, Job);
for (let r = 0; r < 10; r++) {
  await loadPostgresJobs(admin, table, 20000);
  await drain(engine, Job, () => {}, { batchSize: 50, concurrency: 4 });
}
await engine.close(); await admin.end();
