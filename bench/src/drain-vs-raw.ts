/**
 * The queue drain against its raw driver only, per database, for issue 28.5 (drain ≥ 0.95 × raw):
 * `tsx src/drain-vs-raw.ts [--only=postgres,mysql,sqlite] [--rounds=7] [--jobs=20000] [--quick]
 * [--before=/path/to/other/built/checkout]`.
 *
 * Contenders per database, each on its own table (SQLite: its own file), in one process: tempest's
 * `drain()` with a synchronous no-op deliver, the same with `async () => {}` (every batch then runs
 * the heartbeat, the timeout timers and the per-delivery bookkeeping), and the raw driver running the
 * recipes' SQL text (checked against the engine's query events by the bench's drain sections). With
 * `--before`, the two tempest contenders of another built checkout too (its own core, dialects and
 * recipes), so a change is measured against raw before and after in the same rounds. Rounds are
 * interleaved, the order rotating each round (ABC, BCA, CAB, ...), after an untimed warm-up drain
 * each, so load on the shared machine hits all of them alike. Each round gives its own ratio (raw's
 * time ÷ tempest's, same round): the median and the spread of those are printed, with the client CPU
 * per drain and the load average before and after.
 *
 * Before timing, one drain of each contender runs with the drivers' methods counted (pg
 * `Client.query`, mysql2 commands sent, better-sqlite3 statement runs), so any extra round trip or
 * statement per batch on either side shows as a number, not a guess.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import * as recipes from "@tempest-db-js/queue-recipes";
import Database from "better-sqlite3";
import mysqlCore from "mysql2";
import mysql from "mysql2/promise";
import pg from "pg";
import * as core from "tempest-db-js";
import type { Build } from "./lib/builds.js";
import { loadBuild } from "./lib/builds.js";
import { MYSQL_URL, PG_URL } from "./lib/env.js";
import { queueModel } from "./lib/models.js";
import { median } from "./lib/stats.js";
import { loadMysqlJobs, rawMysqlDrain } from "./sections/queue-drain-mysql.js";
import { DRAIN, loadPostgresJobs, rawPgDrain } from "./sections/queue-drain-postgres.js";
import { loadSqliteJobs, rawSqliteDrain, tune } from "./sections/queue-drain-sqlite.js";

interface Contender {
  readonly name: string;
  load(n: number): Promise<void>;
  drain(n: number): Promise<void>;
  completed(): Promise<number>;
}

const noop = () => {};
const asyncNoop = async () => {};
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const quick = process.argv.includes("--quick");
const rounds = Number(arg("rounds") ?? (quick ? 1 : 7));
const jobs = Number(arg("jobs") ?? (quick ? 500 : DRAIN.jobs));
const only = arg("only")?.split(",");
const beforeRoot = arg("before");
const builds: Build[] = [
  ...(beforeRoot ? [await loadBuild("before", resolve(beforeRoot))] : []),
  { label: beforeRoot ? "after" : "", core, recipes },
];
const named = (build: Build, name: string) => (build.label ? `${build.label}: ${name}` : name);
/** The tempest contenders of every build: sync and async deliver, each on its own table (`table(build, kind)`). */
async function tempestContenders(
  url: (build: Build, kind: string) => string,
  table: (build: Build, kind: string) => string,
  load: (table: string, n: number) => Promise<void>,
  sent: (table: string) => Promise<number>,
  dropFirst: (build: Build, engine: any, table: string) => Promise<void>,
): Promise<{ contenders: Contender[]; engines: any[] }> {
  const contenders: Contender[] = [];
  const engines: any[] = [];
  for (const build of builds) {
    for (const [kind, deliver, title] of [
      ["sync", noop, "tempest drain(), sync deliver"],
      ["async", asyncNoop, "tempest drain(), async deliver (heartbeat on)"],
    ] as const) {
      const t = table(build, kind);
      const engine = build.core.createEngine(url(build, kind), { poolSize: DRAIN.workers });
      engines.push(engine);
      await dropFirst(build, engine, t);
      const Job = queueModel(t, build) as any;
      await build.recipes.ensureQueueSchema(engine, Job);
      contenders.push({
        name: named(build, title),
        load: (n) => load(t, n),
        drain: async () => void (await build.recipes.drain(engine, Job, deliver, { batchSize: DRAIN.batch, concurrency: DRAIN.workers })),
        completed: () => sent(t),
      });
    }
  }
  return { contenders, engines };
}
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

/** Counts what the drivers send while `fn` runs: statement kinds by the first words of their SQL. */
const counted = new Map<string, number>();
let counting = false;
function note(kind: string, text: unknown) {
  if (!counting) return;
  const words = typeof text === "string" ? text.trim().split(/\s+/).slice(0, 2).join(" ").replace(/[`"]/g, "") : "?";
  const key = `${kind} ${words}`;
  counted.set(key, (counted.get(key) ?? 0) + 1);
}
function patchDrivers() {
  const pgQuery = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    const text = typeof config === "string" ? config : (config as { text?: string; name?: string })?.text;
    note((config as { name?: string })?.name ? "pg named" : "pg", text);
    return (pgQuery as (...a: unknown[]) => unknown).call(this, config, ...rest);
  } as typeof pgQuery;
  const proto = (mysqlCore as unknown as { Connection: { prototype: { addCommand(cmd: unknown): unknown } } }).Connection.prototype;
  const addCommand = proto.addCommand;
  proto.addCommand = function (cmd: unknown) {
    const c = cmd as { constructor: { name: string }; sql?: string; query?: string; statement?: { query?: string } };
    note(`mysql ${c.constructor.name}`, c.sql ?? c.query ?? c.statement?.query);
    return addCommand.call(this, cmd);
  };
  const probe = new Database(":memory:");
  const stmt = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<string, (...a: unknown[]) => unknown>;
  for (const method of ["run", "all", "get", "iterate"]) {
    const original = stmt[method] as (...a: unknown[]) => unknown;
    stmt[method] = function (this: { source: string }, ...a: unknown[]) {
      note(`sqlite ${method}`, this.source);
      return original.apply(this, a);
    };
  }
  const dbProto = Database.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const exec = dbProto.exec as (...a: unknown[]) => unknown;
  dbProto.exec = function (this: unknown, text: unknown) {
    note("sqlite exec", text);
    return exec.call(this, text);
  };
  probe.close();
}

async function countOne(c: Contender, n: number): Promise<string> {
  await c.load(n);
  counted.clear();
  counting = true;
  try {
    await c.drain(n);
  } finally {
    counting = false;
  }
  const batches = Math.ceil(n / DRAIN.batch);
  const total = [...counted.values()].reduce((a, b) => a + b, 0);
  const parts = [...counted.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ×${v}`);
  return `${c.name}: ${total} calls for ${batches} batches (${(total / batches).toFixed(2)} per batch): ${parts.join(", ")}`;
}

async function race(db: string, contenders: Contender[]) {
  const times = new Map(contenders.map((c) => [c.name, [] as number[]]));
  const cpu = new Map(contenders.map((c) => [c.name, [] as number[]]));
  const sys = new Map(contenders.map((c) => [c.name, [] as number[]]));
  for (const c of contenders) {
    await c.load(jobs);
    await c.drain(jobs);
  }
  const loadBefore = load();
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const c = contenders[(k + round) % contenders.length] as Contender;
      await c.load(jobs);
      const usage = process.cpuUsage();
      const started = performance.now();
      await c.drain(jobs);
      const elapsed = performance.now() - started;
      const used = process.cpuUsage(usage);
      const done = await c.completed();
      if (done !== jobs) throw new Error(`${c.name}: drained ${done} of ${jobs} jobs`);
      times.get(c.name)?.push(elapsed);
      cpu.get(c.name)?.push((used.user + used.system) / 1000);
      sys.get(c.name)?.push(used.system / 1000);
    }
  }
  const raw = times.get(contenders[contenders.length - 1]?.name as string) as number[];
  console.log(`\n${db}: ${jobs} jobs, ${DRAIN.workers} workers, batch ${DRAIN.batch}, ${rounds} rounds; load ${loadBefore} → ${load()}`);
  for (const c of contenders) {
    const t = times.get(c.name) as number[];
    const line = `  ${c.name}: median ${Math.round(median(t))} ms (${t.map(Math.round).join(" / ")}), CPU ${Math.round(median(cpu.get(c.name) as number[]))} ms (system ${Math.round(median(sys.get(c.name) as number[]))})`;
    if (t === raw) {
      console.log(line);
      continue;
    }
    const ratios = t.map((ms, i) => (raw[i] as number) / ms).sort((a, b) => a - b);
    console.log(
      `${line}\n    raw ÷ this per round: median ${median(ratios).toFixed(3)}, min ${ratios[0]?.toFixed(3)}, max ${ratios[ratios.length - 1]?.toFixed(3)} [${ratios.map((r) => r.toFixed(2)).join(" ")}]`,
    );
  }
}

const tableName = (build: Build, kind: string) => `bench_dvr_${build.label ? `${build.label}_` : ""}${kind}`;

async function postgres() {
  const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
  const rawPool = new pg.Pool({ connectionString: PG_URL, max: DRAIN.workers });
  const sent = async (t: string) => (await admin.query(`SELECT count(*)::int AS n FROM "${t}" WHERE status = 'sent'`)).rows[0].n as number;
  const load = (t: string, n: number) => loadPostgresJobs(admin, t, n);
  const { contenders, engines } = await tempestContenders(
    () => PG_URL,
    tableName,
    load,
    sent,
    (build, engine, t) => engine.execute(build.core.sql.raw(`DROP TABLE IF EXISTS "${t}"`)).rowsAffected(),
  );
  const raw = "bench_dvr_raw";
  await admin.query(`DROP TABLE IF EXISTS "${raw}"`);
  await recipes.ensureQueueSchema(engines.at(-1), queueModel(raw));
  contenders.push({
    name: "raw pg, named prepared",
    load: (n) => load(raw, n),
    drain: () => rawPgDrain(rawPool, raw, true),
    completed: () => sent(raw),
  });
  return { contenders, close: () => Promise.all([admin.end(), rawPool.end(), ...engines.map((e) => e.close())]) };
}

async function mariadb() {
  const admin = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 1 });
  const rawPool = mysql.createPool({ uri: MYSQL_URL, connectionLimit: DRAIN.workers, dateStrings: true });
  // The session the dialect gives every connection (see queue-drain-mysql.ts).
  rawPool.on("connection", (conn) => {
    conn.query("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
  });
  const sent = async (t: string) => {
    const [rows] = await admin.query<mysql.RowDataPacket[]>(`SELECT count(*) AS n FROM \`${t}\` WHERE status = 'sent'`);
    return Number(rows[0]?.n);
  };
  const load = (t: string, n: number) => loadMysqlJobs(admin, t, n);
  const { contenders, engines } = await tempestContenders(
    () => MYSQL_URL,
    tableName,
    load,
    sent,
    (build, engine, t) => engine.execute(build.core.sql.raw(`DROP TABLE IF EXISTS \`${t}\``)).rowsAffected(),
  );
  const raw = "bench_dvr_raw";
  await admin.query(`DROP TABLE IF EXISTS \`${raw}\``);
  await recipes.ensureQueueSchema(engines.at(-1), queueModel(raw));
  contenders.push({
    name: "raw mysql2 execute",
    load: (n) => load(raw, n),
    drain: () => rawMysqlDrain(rawPool, raw),
    completed: () => sent(raw),
  });
  return { contenders, close: () => Promise.all([admin.end(), rawPool.end(), ...engines.map((e) => e.close())]) };
}

async function sqlite() {
  const dir = mkdtempSync(join(tmpdir(), "tempest-dvr-"));
  // Each contender drains a file of its own, holding a table of the file's name, beside one loader connection.
  const file = (name: string) => join(dir, `${name}.db`);
  const admins = new Map<string, Database.Database>();
  const adminOf = (name: string) => {
    let db = admins.get(name);
    if (!db) admins.set(name, (db = tune(new Database(file(name)))));
    return db;
  };
  const sent = async (name: string) =>
    (adminOf(name).prepare(`SELECT count(*) AS n FROM "${name}" WHERE status = 'sent'`).get() as { n: number }).n;
  const load = async (name: string, n: number) => loadSqliteJobs(adminOf(name), name, n);
  const { contenders, engines } = await tempestContenders(
    (build, kind) => `sqlite://${file(tableName(build, kind))}`,
    tableName,
    load,
    sent,
    async () => {},
  );
  const raw = "bench_dvr_raw";
  const schema = core.createEngine(`sqlite://${file(raw)}`);
  await recipes.ensureQueueSchema(schema, queueModel(raw));
  await schema.close();
  const rawDb = tune(new Database(file(raw)));
  contenders.push({
    name: "raw better-sqlite3",
    load: (n) => load(raw, n),
    drain: () => rawSqliteDrain(rawDb, raw),
    completed: () => sent(raw),
  });
  return {
    contenders,
    close: async () => {
      for (const e of engines) await e.close();
      for (const db of [...admins.values(), rawDb]) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

patchDrivers();
const setups = { postgres, mysql: mariadb, sqlite } as const;
for (const [db, setup] of Object.entries(setups)) {
  if (only && !only.includes(db)) continue;
  const { contenders, close } = await setup();
  for (const c of contenders) console.log(`${db}: ${await countOne(c, Math.min(jobs, 2000))}`);
  await race(db, contenders);
  await close();
}
