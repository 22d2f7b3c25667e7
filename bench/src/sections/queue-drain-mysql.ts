import "@tempest-db-js/dialect-mysql";
import { drain, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import type { Pool, RowDataPacket } from "mysql2/promise";
import mysql from "mysql2/promise";
import { createEngine, sql } from "tempest-db-js";
import type { DrainCase } from "../lib/drain-runner.js";
import { raceDrains } from "../lib/drain-runner.js";
import { MYSQL_URL } from "../lib/env.js";
import { idsByAttempts } from "../lib/ids-by-attempts.js";
import { queueModel } from "../lib/models.js";
import type { SectionResult } from "../lib/report.js";
import { check, ratio } from "../lib/report.js";
import { DRAIN } from "./queue-drain-postgres.js";

const noop = (_job?: unknown) => {};
const COLUMNS = "`id`, `consumer`, `idempotency_key`, `status`, `attempts`, `next_attempt_at`, `updated_at`";
const DUE = "TIMESTAMPADD(MICROSECOND, ROUND(? * 1000) * 1000, UTC_TIMESTAMP(3))";
const marks = (n: number) => Array(n).fill("?").join(", ");

/** The two-step claim and the completion the recipes issue on MySQL/MariaDB, by hand on mysql2. */
export function rawMysqlSql(table: string) {
  const t = `\`${table}\``;
  return {
    select: `SELECT \`id\` FROM ${t} WHERE \`status\` = ? AND \`next_attempt_at\` <= ${DUE} ORDER BY \`next_attempt_at\` ASC LIMIT ${DRAIN.batch} FOR UPDATE SKIP LOCKED`,
    claim: (n: number) =>
      `UPDATE ${t} SET \`status\` = ?, \`attempts\` = \`attempts\` + 1, \`updated_at\` = UTC_TIMESTAMP(3) WHERE \`id\` IN (${marks(n)})`,
    reread: (n: number) => `SELECT ${COLUMNS} FROM ${t} WHERE \`id\` IN (${marks(n)})`,
    complete: (n: number) =>
      `UPDATE ${t} SET \`status\` = ?, \`updated_at\` = UTC_TIMESTAMP(3) WHERE \`id\` IN (${marks(n)}) AND \`status\` = ? AND \`attempts\` = ?`,
  };
}

export async function loadMysqlJobs(admin: Pool, table: string, n: number): Promise<void> {
  await admin.query(`TRUNCATE TABLE \`${table}\``);
  await admin.query(
    `INSERT INTO \`${table}\` (id, consumer, status, attempts, next_attempt_at, updated_at)
     SELECT UUID(), 'bench', 'queued', 0, TIMESTAMPADD(MICROSECOND, -(${n} - seq) * 1000, UTC_TIMESTAMP(3)), UTC_TIMESTAMP(3) FROM seq_1_to_${n}`,
  );
  await admin.query(`ANALYZE TABLE \`${table}\``);
}

async function countSent(admin: Pool, table: string): Promise<number> {
  const [rows] = await admin.query<RowDataPacket[]>(`SELECT count(*) AS n FROM \`${table}\` WHERE status = 'sent'`);
  return Number(rows[0]?.n);
}

export async function rawMysqlDrain(pool: Pool, table: string): Promise<void> {
  const q = rawMysqlSql(table);
  const lane = async () => {
    for (;;) {
      const conn = await pool.getConnection();
      let rows: RowDataPacket[] = [];
      try {
        await conn.query("START TRANSACTION");
        const [found] = await conn.execute<RowDataPacket[]>(q.select, ["queued", 0.001]);
        const ids = found.map((r) => r.id as string);
        if (ids.length > 0) {
          await conn.execute(q.claim(ids.length), ["sending", ...ids]);
          [rows] = await conn.execute<RowDataPacket[]>(q.reread(ids.length), ids);
        }
        await conn.query("COMMIT");
      } catch (error) {
        await conn.query("ROLLBACK");
        throw error;
      } finally {
        conn.release();
      }
      if (rows.length === 0) return;
      await Promise.all(rows.map(async (row) => noop(row)));
      const byAttempts = idsByAttempts(rows as { id: string; attempts: number }[]);
      for (const [attempts, ids] of byAttempts) await pool.execute(q.complete(ids.length), ["sent", ...ids, "sending", attempts]);
    }
  };
  await Promise.all(Array.from({ length: DRAIN.workers }, lane));
}

export async function queueDrainMysql(quick: boolean): Promise<SectionResult> {
  const n = quick ? 500 : DRAIN.jobs;
  const rounds = quick ? 1 : 5;
  const tables = { tempest: "bench_drain_tempest", raw: "bench_drain_raw" };
  const engine = createEngine(MYSQL_URL, { poolSize: DRAIN.workers });
  const admin = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 1 });
  const rawPool = mysql.createPool({ uri: MYSQL_URL, connectionLimit: DRAIN.workers, dateStrings: true });
  // The session the dialect gives every connection: READ COMMITTED (see mysql-driver.ts), so both
  // sides run the same transactions, not only the same SQL.
  rawPool.on("connection", (conn) => {
    conn.query("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
  });
  const Job = queueModel(tables.tempest);
  for (const table of Object.values(tables)) {
    await engine.execute(sql.raw(`DROP TABLE IF EXISTS \`${table}\``)).rowsAffected();
    await ensureQueueSchema(engine, queueModel(table));
  }

  // The hand-written SQL must be what the recipes send.
  const seen: string[] = [];
  const spy = createEngine(MYSQL_URL, { poolSize: 1, onQuery: (e) => seen.push(e.sql) });
  await loadMysqlJobs(admin, tables.tempest, DRAIN.batch);
  await drain(spy, Job, noop, { batchSize: DRAIN.batch, concurrency: 1 });
  await spy.close();
  const q = rawMysqlSql(tables.tempest);
  for (const text of [q.select, q.claim(DRAIN.batch), q.reread(DRAIN.batch), q.complete(DRAIN.batch)]) {
    if (!seen.includes(text)) throw new Error(`raw mysql2 SQL differs from the recipes': ${text}\n--- recipes sent:\n${seen.join("\n")}`);
  }

  const cases: DrainCase[] = [
    {
      name: "tempest: recipes drain()",
      load: (count) => loadMysqlJobs(admin, tables.tempest, count),
      drain: async () => void (await drain(engine, Job, noop, { batchSize: DRAIN.batch, concurrency: DRAIN.workers })),
      completed: () => countSent(admin, tables.tempest),
    },
    {
      name: "mysql2: same SQL by hand (execute)",
      load: (count) => loadMysqlJobs(admin, tables.raw, count),
      drain: () => rawMysqlDrain(rawPool, tables.raw),
      completed: () => countSent(admin, tables.raw),
    },
  ];
  const rows = await raceDrains(cases, n, rounds, quick ? 0 : n);
  await Promise.all([engine.close(), admin.end(), rawPool.end()]);
  return {
    id: "drain-mysql",
    title: `1b. Queue drain on MariaDB: ${n.toLocaleString("en-US")} jobs, ${DRAIN.workers} workers, batch ${DRAIN.batch}, no-op deliver`,
    groups: [
      {
        title: "wall time to drain (lower is better)",
        rows,
        baselines: ["mysql2: same SQL by hand (execute)"],
        checks: [
          check(
            "tempest throughput ÷ raw mysql2 throughput",
            ratio(rows, "mysql2: same SQL by hand (execute)", "tempest: recipes drain()"),
            "≥",
            0.9,
          ),
        ],
        notes: [
          "MySQL/MariaDB reject LIMIT in an IN subquery, so the claim is two-step in a transaction: SELECT ... FOR UPDATE SKIP LOCKED, UPDATE ... IN (ids), re-read the rows (no RETURNING on UPDATE).",
          "raw mysql2 sends the exact SQL text the recipes send (checked against their query events before timing), as prepared statements (execute) like the dialect.",
        ],
      },
    ],
  };
}
