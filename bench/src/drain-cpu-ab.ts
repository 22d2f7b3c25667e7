/**
 * Client CPU per SQLite drain (20,000 jobs, 4 lanes, batch 50), this checkout's tempest (sync and async
 * deliver) against another built checkout's and raw better-sqlite3 running the same SQL, interleaved
 * with a rotating order after a warm-up round: `tsx src/drain-cpu-ab.ts [rounds] [/other/built/checkout]`.
 * CPU rather than wall time: on SQLite the drain runs in-process, so on a loaded machine the CPU a
 * drain uses says more than its wall time, which waits for the cores. Prints the min and the median.
 */
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import "@tempest-db-js/dialect-sqlite";
import * as recipes from "@tempest-db-js/queue-recipes";
import Database from "better-sqlite3";
import * as core from "tempest-db-js";
import { loadBuild } from "./lib/builds.js";
import { queueModel } from "./lib/models.js";
import { loadSqliteJobs, rawSqliteDrain, tune } from "./sections/queue-drain-sqlite.js";

const rounds = Number(process.argv[2] ?? 9);
const before = await loadBuild("before", resolve(process.argv[3] ?? "/work/wt-base"));
const builds = [before, { label: "after", core, recipes }];
const dir = mkdtempSync(join(tmpdir(), "sqd-ab-"));
type C = { name: string; load: () => void; drain: () => Promise<unknown> };
const cs: C[] = [];
for (const b of builds)
  for (const kind of ["sync", "async"]) {
    const table = `t_${b.label}_${kind}`;
    const file = join(dir, `${table}.db`);
    const engine = (b.core as any).createEngine(`sqlite://${file}`, { poolSize: 4 });
    const Job = queueModel(table, b as any) as any;
    await (b.recipes as any).ensureQueueSchema(engine, Job);
    const admin = tune(new Database(file));
    const deliver = kind === "sync" ? () => {} : async () => {};
    cs.push({
      name: `${b.label} ${kind}`,
      load: () => loadSqliteJobs(admin, table, 20000),
      drain: () => (b.recipes as any).drain(engine, Job, deliver, { batchSize: 50, concurrency: 4 }),
    });
  }
{
  const table = "t_raw";
  const file = join(dir, `${table}.db`);
  const e = core.createEngine(`sqlite://${file}`);
  await recipes.ensureQueueSchema(e, queueModel(table));
  await e.close();
  const admin = tune(new Database(file));
  const db = tune(new Database(file));
  cs.push({ name: "raw", load: () => loadSqliteJobs(admin, table, 20000), drain: () => rawSqliteDrain(db, table) });
}
const cpu = new Map(cs.map((c) => [c.name, [] as number[]]));
console.log(
  "load",
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" "),
);
for (let r = 0; r < rounds + 1; r++) {
  for (let k = 0; k < cs.length; k++) {
    const c = cs[(k + r) % cs.length] as C;
    c.load();
    const u = process.cpuUsage();
    await c.drain();
    const d = process.cpuUsage(u);
    if (r > 0) cpu.get(c.name)?.push((d.user + d.system) / 1000);
  }
}
const med = (a: number[]) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)] as number;
};
const raw = cpu.get("raw") as number[];
for (const [n, a] of cpu)
  console.log(
    n.padEnd(14),
    "CPU min",
    Math.min(...a).toFixed(0),
    "median",
    med(a).toFixed(0),
    "raw/this(min)",
    (Math.min(...raw) / Math.min(...a)).toFixed(3),
    "raw/this(med)",
    (med(raw) / med(a)).toFixed(3),
  );
console.log(
  "load",
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" "),
);
