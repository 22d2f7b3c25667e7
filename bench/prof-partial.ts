import pg from "pg";
import { createEngine, sql } from "tempest-db-js";
import "@tempest-db-js/dialect-postgres";
import { ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import { PG_URL } from "./src/lib/env.js";
import { queueModel } from "./src/lib/models.js";
import { loadPostgresJobs, rawPostgresSql } from "./src/sections/queue-drain-postgres.js";
const admin = new pg.Pool({ connectionString: PG_URL, max: 2 });
const engine = createEngine(PG_URL, { poolSize: 1 });
const A = "bench_full_idx", B = "bench_partial_idx";
for (const t of [A, B]) { await engine.execute(sql.raw(`DROP TABLE IF EXISTS "${t}"`)).rowsAffected(); await ensureQueueSchema(engine, queueModel(t)); }
await engine.close();
await admin.query(`DROP INDEX "${B}_due"; DROP INDEX "${B}_lease"`);
await admin.query(`CREATE INDEX "${B}_due" ON "${B}" (status, next_attempt_at) WHERE status = 'queued'`);
await admin.query(`CREATE INDEX "${B}_lease" ON "${B}" (status, updated_at) WHERE status = 'sending'`);
if (process.argv[2] === "settled") await admin.query(`CREATE INDEX "${B}_settled" ON "${B}" (status, updated_at) WHERE status IN ('sent', 'failed')`);
const pool = new pg.Pool({ connectionString: PG_URL, max: 4 });
async function run(t: string) {
  const q = rawPostgresSql(t);
  const lane = async () => { for (;;) {
    const { rows } = await pool.query({ name: "c" + t, text: q.claim, values: ["sending", "queued", 0.001] });
    if (rows.length === 0) return;
    await pool.query({ name: "d" + t, text: q.complete, values: ["sent", rows.map((r) => r.id), "sending", 1] });
  } };
  await Promise.all(Array.from({ length: 4 }, lane));
}
for (let r = 0; r < 6; r++) {
  for (const t of [A, B]) {
    await loadPostgresJobs(admin, t, 20000);
    const t0 = performance.now(); await run(t); const wall = performance.now() - t0;
    if (r > 0) console.log(t, wall.toFixed(0), "ms");
  }
}
const { rows } = await admin.query(`EXPLAIN ${rawPostgresSql(B).claim.replace("$1", "'sending'").replace("$2", "'queued'").replace("$3", "0.001")}`);
console.log(rows.map((r) => r["QUERY PLAN"]).join("\n"));
await pool.end(); await admin.end();
