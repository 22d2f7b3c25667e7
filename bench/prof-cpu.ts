import "@tempest-db-js/dialect-postgres";
import { drain, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import pg from "pg";
import { createEngine, sql } from "tempest-db-js";
import { PG_URL } from "./src/lib/env.js";
import { queueModel } from "./src/lib/models.js";
import { loadPostgresJobs, rawPostgresSql } from "./src/sections/queue-drain-postgres.js";
const admin = new pg.Pool({ connectionString: PG_URL, max: 2 });
const engine = createEngine(PG_URL, { poolSize: 4 });
const T = "bench_cpu_tempest", R = "bench_cpu_raw";
for (const t of [T, R]) { await engine.execute(sql.raw(`DROP TABLE IF EXISTS "${t}"`)).rowsAffected(); await ensureQueueSchema(engine, queueModel(t)); }
const Job = queueModel(T);
const pool = new pg.Pool({ connectionString: PG_URL, max: 4 });
const noop = (_: unknown) => {};
async function raw() {
  const q = rawPostgresSql(R);
  const lane = async () => { for (;;) {
    const { rows } = await pool.query({ name: "c", text: q.claim, values: ["sending", "queued", 0.001] });
    if (rows.length === 0) return;
    await Promise.all(rows.map(async (row) => noop(row)));
    const byAttempts = new Map<number, string[]>();
    for (const row of rows) { const g = byAttempts.get(row.attempts); if (g) g.push(row.id); else byAttempts.set(row.attempts, [row.id]); }
    for (const [attempts, ids] of byAttempts) await pool.query({ name: `d${ids.length}`, text: q.complete(ids.length), values: ["sent", ...ids, "sending", attempts] });
  } };
  await Promise.all(Array.from({ length: 4 }, lane));
}
for (let r = 0; r < 6; r++) {
  for (const [name, table, fn] of [["tempest", T, () => drain(engine, Job, noop, { batchSize: 50, concurrency: 4 })], ["raw", R, raw]] as const) {
    await loadPostgresJobs(admin, table, 20000);
    const c0 = process.cpuUsage(); const t0 = performance.now();
    await fn();
    const cpu = process.cpuUsage(c0); const wall = performance.now() - t0;
    if (r > 0) console.log(name.padEnd(8), "wall", wall.toFixed(0), "ms  cpu", ((cpu.user + cpu.system) / 1000).toFixed(0), "ms (user", (cpu.user / 1000).toFixed(0), ")");
  }
}
await engine.close(); await admin.end(); await pool.end();
