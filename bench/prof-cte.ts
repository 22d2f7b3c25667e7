import pg from "pg";
import { createEngine, sql } from "tempest-db-js";
import "@tempest-db-js/dialect-postgres";
import { ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import { PG_URL } from "./src/lib/env.js";
import { queueModel } from "./src/lib/models.js";
import { loadPostgresJobs, rawPostgresSql } from "./src/sections/queue-drain-postgres.js";
const admin = new pg.Pool({ connectionString: PG_URL, max: 2 });
const engine = createEngine(PG_URL, { poolSize: 1 });
const A = "bench_cte_a", B = "bench_cte_b";
for (const t of [A, B]) { await engine.execute(sql.raw(`DROP TABLE IF EXISTS "${t}"`)).rowsAffected(); await ensureQueueSchema(engine, queueModel(t)); }
await engine.close();
const pool = new pg.Pool({ connectionString: PG_URL, max: 4 });
async function separate(t: string) {
  const q = rawPostgresSql(t);
  const lane = async () => { for (;;) {
    const { rows } = await pool.query({ name: "c" + t, text: q.claim, values: ["sending", "queued", 0.001] });
    if (rows.length === 0) return;
    await pool.query({ name: "d" + t, text: q.complete, values: ["sent", rows.map((r) => r.id), "sending", 1] });
  } };
  await Promise.all(Array.from({ length: 4 }, lane));
}
async function combined(t: string) {
  const q = rawPostgresSql(t);
  const claimBody = q.claim.replace(/\$1/g, "$5").replace(/\$2/g, "$6").replace(/\$3/g, "$7");
  const text = `WITH settled AS (UPDATE "${t}" SET "status" = $1, "updated_at" = now() WHERE "id" = ANY($2) AND "status" = $3 AND "attempts" = $4 RETURNING 1), claimed AS (${claimBody}) SELECT (SELECT count(*) FROM settled) AS settled, claimed.* FROM (SELECT 1) one LEFT JOIN claimed ON true`;
  const lane = async () => { let ids: string[] = []; for (;;) {
    const { rows } = await pool.query({ name: "x" + t, text, values: ["sent", ids, "sending", 1, "sending", "queued", 0.001] });
    ids = rows.filter((r) => r.id !== null).map((r) => r.id);
    if (ids.length === 0) return;
  } };
  await Promise.all(Array.from({ length: 4 }, lane));
}
for (let r = 0; r < 6; r++) {
  for (const [name, t, fn] of [["separate", A, separate], ["combined", B, combined]] as const) {
    await loadPostgresJobs(admin, t, 20000);
    const t0 = performance.now(); await fn(t); const wall = performance.now() - t0;
    const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${t}" WHERE status = 'sent'`);
    if (r > 0) console.log(name, wall.toFixed(0), "ms", rows[0].n);
  }
}
await pool.end(); await admin.end();
