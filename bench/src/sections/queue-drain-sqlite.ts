import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "@tempest-db-js/dialect-sqlite";
import { drain, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import Database from "better-sqlite3";
import { createEngine } from "tempest-db-js";
import type { DrainCase } from "../lib/drain-runner.js";
import { raceDrains } from "../lib/drain-runner.js";
import { idsByAttempts } from "../lib/ids-by-attempts.js";
import { queueModel } from "../lib/models.js";
import type { SectionResult } from "../lib/report.js";
import { check, ratio } from "../lib/report.js";
import { DRAIN } from "./queue-drain-postgres.js";

const noop = (_job?: unknown) => {};
const NOW = "strftime('%Y-%m-%dT%H:%M:%fZ','now')";
const marks = (n: number) => Array(n).fill("?").join(", ");

/** The single-statement claim (in BEGIN IMMEDIATE) and the completion the recipes issue on SQLite. */
export function rawSqliteSql(table: string) {
  const t = `"${table}"`;
  return {
    claim: `UPDATE ${t} SET "status" = ?, "attempts" = "attempts" + 1, "updated_at" = ${NOW} WHERE "id" IN (SELECT "id" FROM ${t} WHERE "status" = ? AND "next_attempt_at" <= strftime('%Y-%m-%dT%H:%M:%fZ','now',(? || ' seconds')) ORDER BY "next_attempt_at" ASC LIMIT ${DRAIN.batch}) RETURNING "id", "consumer", "idempotency_key", "status", "attempts", "next_attempt_at", "updated_at"`,
    complete: (n: number) =>
      `UPDATE ${t} SET "status" = ?, "updated_at" = ${NOW} WHERE "id" IN (${marks(n)}) AND "status" = ? AND "attempts" = ?`,
  };
}

export function tune(db: Database.Database): Database.Database {
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  return db;
}

export function loadSqliteJobs(db: Database.Database, table: string, n: number): void {
  db.exec(`DELETE FROM "${table}"`);
  const insert = db.prepare(
    `INSERT INTO "${table}" (id, consumer, status, attempts, next_attempt_at, updated_at) VALUES (?, 'bench', 'queued', 0, ?, ?)`,
  );
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < n; i++) insert.run(randomUUID(), new Date(now - (n - i)).toISOString(), new Date(now).toISOString());
  })();
  // No ANALYZE: stock SQLite plans the claim well without statistics, and statistics written by this
  // loader connection would reach the draining connection only when its schema reloads, so the two
  // contenders would plan with different statistics.
}

export function rawSqliteDrain(db: Database.Database, table: string): Promise<void> {
  const q = rawSqliteSql(table);
  const claim = db.prepare(q.claim);
  const claimTx = db.transaction(() => claim.all("sending", "queued", 0.001) as { id: string; attempts: number }[]);
  const completes = new Map<number, Database.Statement>();
  const lane = async () => {
    for (;;) {
      const rows = claimTx.immediate();
      if (rows.length === 0) return;
      await Promise.all(rows.map(async (row) => noop(row)));
      const byAttempts = idsByAttempts(rows);
      for (const [attempts, ids] of byAttempts) {
        let complete = completes.get(ids.length);
        if (!complete) completes.set(ids.length, (complete = db.prepare(q.complete(ids.length))));
        complete.run("sent", ...ids, "sending", attempts);
      }
    }
  };
  return Promise.all(Array.from({ length: DRAIN.workers }, lane)).then(() => {});
}

export async function queueDrainSqlite(quick: boolean): Promise<SectionResult> {
  const n = quick ? 500 : DRAIN.jobs;
  const rounds = quick ? 1 : 5;
  const dir = mkdtempSync(join(tmpdir(), "tempest-bench-drain-"));
  const table = "bench_drain";
  const Job = queueModel(table);
  const files = { tempest: join(dir, "tempest.db"), raw: join(dir, "raw.db") };
  const engine = createEngine(`sqlite://${files.tempest}`);
  await ensureQueueSchema(engine, Job);
  const rawSchema = createEngine(`sqlite://${files.raw}`);
  await ensureQueueSchema(rawSchema, Job);
  await rawSchema.close();
  const tempestAdmin = tune(new Database(files.tempest));
  const rawDb = tune(new Database(files.raw));
  // Each file gets its own loader connection, so both contenders share their file with one idle connection.
  const rawAdmin = tune(new Database(files.raw));
  const countSent = (db: Database.Database) =>
    (db.prepare(`SELECT count(*) AS n FROM "${table}" WHERE status = 'sent'`).get() as { n: number }).n;

  const seen: string[] = [];
  const spy = createEngine(`sqlite://${join(dir, "spy.db")}`, { onQuery: (e) => seen.push(e.sql) });
  await ensureQueueSchema(spy, Job);
  const spyAdmin = tune(new Database(join(dir, "spy.db")));
  loadSqliteJobs(spyAdmin, table, DRAIN.batch);
  spyAdmin.close();
  await drain(spy, Job, noop, { batchSize: DRAIN.batch, concurrency: 1 });
  await spy.close();
  const q = rawSqliteSql(table);
  for (const text of [q.claim, q.complete(DRAIN.batch)]) {
    if (!seen.includes(text))
      throw new Error(`raw better-sqlite3 SQL differs from the recipes': ${text}\n--- recipes sent:\n${seen.join("\n")}`);
  }

  const cases: DrainCase[] = [
    {
      name: "tempest: recipes drain()",
      load: async (count) => loadSqliteJobs(tempestAdmin, table, count),
      drain: async () => void (await drain(engine, Job, noop, { batchSize: DRAIN.batch, concurrency: DRAIN.workers })),
      completed: async () => countSent(tempestAdmin),
    },
    {
      name: "better-sqlite3: same SQL by hand",
      load: async (count) => loadSqliteJobs(rawAdmin, table, count),
      drain: () => rawSqliteDrain(rawDb, table),
      completed: async () => countSent(rawAdmin),
    },
  ];
  const rows = await raceDrains(cases, n, rounds, quick ? 0 : n);
  await engine.close();
  tempestAdmin.close();
  rawDb.close();
  rawAdmin.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    id: "drain-sqlite",
    title: `1c. Queue drain on SQLite (file, WAL): ${n.toLocaleString("en-US")} jobs, ${DRAIN.workers} lanes, batch ${DRAIN.batch}, no-op deliver`,
    groups: [
      {
        title: "wall time to drain (lower is better)",
        rows,
        baselines: ["better-sqlite3: same SQL by hand"],
        checks: [
          check(
            "tempest throughput ÷ raw better-sqlite3 throughput",
            ratio(rows, "better-sqlite3: same SQL by hand", "tempest: recipes drain()"),
            "≥",
            0.9,
          ),
        ],
        notes: [
          "SQLite has no row locks: each claim is one UPDATE ... WHERE id IN (SELECT ... LIMIT) RETURNING inside BEGIN IMMEDIATE. The 4 lanes share the one connection.",
          "raw better-sqlite3 runs the exact SQL text the recipes send (checked before timing) through prepared statements, the claim in db.transaction(...).immediate().",
        ],
      },
    ],
  };
}
