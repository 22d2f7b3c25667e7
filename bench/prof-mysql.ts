import "@tempest-db-js/dialect-mysql";
import { drain, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import mysql from "mysql2/promise";
import { createEngine, sql } from "tempest-db-js";
import { MYSQL_URL } from "./src/lib/env.js";
import { queueModel } from "./src/lib/models.js";
const table = "bench_prof_drain";
const admin = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 2 });
const seen: string[] = [];
const log = process.argv[2] === "log";
const engine = createEngine(MYSQL_URL, { poolSize: 4, onQuery: log ? (e) => seen.push(e.sql.slice(0, 100)) : undefined });
await engine.execute(sql.raw(`DROP TABLE IF EXISTS \`${table}\``)).rowsAffected();
const Job = queueModel(table);
await ensureQueueSchema(engine, Job);
const n = log ? 100 : 20000;
for (let r = 0; r < (log ? 1 : 5); r++) {
  await admin.query(`TRUNCATE TABLE \`${table}\``);
  await admin.query(`INSERT INTO \`${table}\` (id, consumer, status, attempts, next_attempt_at, updated_at) SELECT UUID(), 'bench', 'queued', 0, TIMESTAMPADD(MICROSECOND, -(${n} - seq) * 1000, UTC_TIMESTAMP(3)), UTC_TIMESTAMP(3) FROM seq_1_to_${n}`);
  await admin.query(`ANALYZE TABLE \`${table}\``);
  const t = performance.now();
  seen.length = 0;
  await drain(engine, Job, () => {}, { batchSize: 50, concurrency: log ? 1 : 4 });
  console.log(r, (performance.now() - t).toFixed(0), "ms");
}
if (log) console.log(seen.join("\n"));
await engine.close(); await admin.end();
