/**
 * The queue drain of this checkout against another build of the packages, in one process,
 * interleaved round by round: `tsx src/drain-ab.ts --before=/path/to/other/checkout [--quick]`. The
 * other checkout must be built (`pnpm build`); both builds drain their own table on the same servers.
 * For a change that must not move the drain (issue 27's recipe rewrite): before ÷ after throughput.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { loadBuild } from "./lib/builds.js";
import type { DrainCase } from "./lib/drain-runner.js";
import { raceDrains } from "./lib/drain-runner.js";
import { MYSQL_URL, PG_URL } from "./lib/env.js";
import { queueModel } from "./lib/models.js";
import { median } from "./lib/stats.js";
import { loadMysqlJobs } from "./sections/queue-drain-mysql.js";
import { DRAIN, loadPostgresJobs } from "./sections/queue-drain-postgres.js";
import { loadSqliteJobs, tune } from "./sections/queue-drain-sqlite.js";

const noop = () => {};

async function main() {
  const quick = process.argv.includes("--quick");
  const beforeRoot = process.argv.find((a) => a.startsWith("--before="))?.slice("--before=".length);
  if (!beforeRoot) throw new Error("--before=/path/to/built/checkout is required");
  const builds = [await loadBuild("before", resolve(beforeRoot)), await loadBuild("after", resolve(import.meta.dirname, "../.."))];
  const n = quick ? 500 : DRAIN.jobs;
  const rounds = quick ? 1 : 5;
  const only = process.argv
    .find((a) => a.startsWith("--only="))
    ?.slice("--only=".length)
    .split(",");
  const dir = mkdtempSync(join(tmpdir(), "tempest-drain-ab-"));
  const databases = {
    postgres: { url: PG_URL },
    mysql: { url: MYSQL_URL },
    sqlite: { url: `sqlite://${join(dir, "ab.db")}` },
  } as const;
  for (const [name, { url }] of Object.entries(databases)) {
    if (only && !only.includes(name)) continue;
    const cases: DrainCase[] = [];
    // This process's CPU per drain (both builds share it): less sensitive to the servers' and neighbours' load than wall time.
    const cpuMs = new Map(builds.map((b) => [b.label, [] as number[]]));
    const closers: (() => Promise<unknown>)[] = [];
    const admin =
      name === "postgres"
        ? new pg.Pool({ connectionString: url, max: 1 })
        : name === "mysql"
          ? mysql.createPool({ uri: url, connectionLimit: 1 })
          : undefined;
    const sqliteAdmin = name === "sqlite" ? tune(new Database(join(dir, "ab.db"))) : undefined;
    for (const build of builds) {
      const table = `bench_ab_${build.label}`;
      const Job = queueModel(table, build) as any;
      const engine = build.core.createEngine(url, { poolSize: DRAIN.workers });
      closers.push(() => engine.close());
      await engine.execute(build.core.sql.raw(`DROP TABLE IF EXISTS ${name === "mysql" ? `\`${table}\`` : `"${table}"`}`)).rowsAffected();
      await build.recipes.ensureQueueSchema(engine, Job);
      const count = async () => {
        const rows = await engine.execute(build.core.select(Job).where({ status: "sent" })).all();
        return rows.length as number;
      };
      cases.push({
        name: `${name}: ${build.label}`,
        load: async (count) => {
          if (name === "postgres") await loadPostgresJobs(admin as pg.Pool, table, count);
          else if (name === "mysql") await loadMysqlJobs(admin as mysql.Pool, table, count);
          else loadSqliteJobs(sqliteAdmin as Database.Database, table, count);
        },
        drain: async () => {
          const cpu = process.cpuUsage();
          await build.recipes.drain(engine, Job, noop, { batchSize: DRAIN.batch, concurrency: DRAIN.workers });
          const used = process.cpuUsage(cpu);
          cpuMs.get(build.label)?.push((used.user + used.system) / 1000);
        },
        completed: count,
      });
    }
    const rows = await raceDrains(cases, n, rounds, quick ? 0 : n);
    const [before, after] = rows.map((r) => r.value as number);
    for (const r of rows) console.log(`${r.name}: ${Math.round(r.value as number)} ms (${r.stat}, ${r.extra?.["jobs/s"]} jobs/s)`);
    // The warm-up drain is the first sample of each list: left out.
    for (const [label, list] of cpuMs)
      console.log(`${name}: ${label}: client CPU ${Math.round(median(list.slice(quick ? 0 : 1)))} ms per drain`);
    console.log(`${name}: after ÷ before throughput = ${((before ?? 0) / (after ?? 1)).toFixed(3)}`);
    for (const close of closers) await close();
    if (admin) await admin.end();
    sqliteAdmin?.close();
  }
}

await main();
