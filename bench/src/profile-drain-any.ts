/**
 * One process draining the guide's queue with tempest only, for a CPU profile of the per-batch path:
 * `node --cpu-prof --cpu-prof-dir=DIR --import tsx src/profile-drain-any.ts postgres|mysql|sqlite [drains] [jobs] [sync|async|raw]`.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { drain, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { createEngine, sql } from "tempest-db-js";
import { MYSQL_URL, PG_URL } from "./lib/env.js";
import { queueModel } from "./lib/models.js";
import { loadMysqlJobs, rawMysqlDrain } from "./sections/queue-drain-mysql.js";
import { DRAIN, loadPostgresJobs, rawPgDrain } from "./sections/queue-drain-postgres.js";
import { loadSqliteJobs, rawSqliteDrain, tune } from "./sections/queue-drain-sqlite.js";

const db = process.argv[2] ?? "postgres";
const drains = Number(process.argv[3] ?? 5);
const jobs = Number(process.argv[4] ?? DRAIN.jobs);
const deliver = process.argv[5] === "async" ? async () => {} : () => {};
// "raw": the raw driver's drain of the same SQL instead of tempest's, for a profile to compare with.
const raw = process.argv[5] === "raw";
const table = "bench_profile_drain";
const Job = queueModel(table);
let loadJobs: (n: number) => Promise<void>;
let url: string;
let close: () => Promise<void>;
let rawDrain: () => Promise<void>;
if (db === "postgres") {
  url = PG_URL;
  const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
  loadJobs = (n) => loadPostgresJobs(admin, table, n);
  const pool = new pg.Pool({ connectionString: PG_URL, max: DRAIN.workers });
  rawDrain = () => rawPgDrain(pool, table, true);
  close = async () => void (await Promise.all([admin.end(), pool.end()]));
} else if (db === "mysql") {
  url = MYSQL_URL;
  const admin = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 1 });
  loadJobs = (n) => loadMysqlJobs(admin, table, n);
  const pool = mysql.createPool({ uri: MYSQL_URL, connectionLimit: DRAIN.workers, dateStrings: true });
  pool.on("connection", (conn) => {
    conn.query("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
  });
  rawDrain = () => rawMysqlDrain(pool, table);
  close = async () => void (await Promise.all([admin.end(), pool.end()]));
} else {
  const file = join(mkdtempSync(join(tmpdir(), "tempest-profile-")), "p.db");
  url = `sqlite://${file}`;
  let admin: Database.Database | undefined;
  loadJobs = async (n) => {
    admin ??= tune(new Database(file));
    loadSqliteJobs(admin, table, n);
  };
  let rawDb: Database.Database | undefined;
  rawDrain = () => rawSqliteDrain((rawDb ??= tune(new Database(file))), table);
  close = async () => {
    admin?.close();
    rawDb?.close();
  };
}
const engine = createEngine(url, { poolSize: DRAIN.workers });
if (db !== "sqlite") await engine.execute(sql.raw(`DROP TABLE IF EXISTS ${db === "mysql" ? `\`${table}\`` : `"${table}"`}`)).rowsAffected();
await ensureQueueSchema(engine, Job);
for (let i = 0; i < drains; i++) {
  await loadJobs(jobs);
  const cpu = process.cpuUsage();
  const started = performance.now();
  if (raw) await rawDrain();
  else await drain(engine, Job, deliver, { batchSize: DRAIN.batch, concurrency: DRAIN.workers });
  const used = process.cpuUsage(cpu);
  console.log(`drain ${i + 1}: ${Math.round(performance.now() - started)} ms wall, ${Math.round((used.user + used.system) / 1000)} ms CPU`);
}
await engine.close();
await close();
