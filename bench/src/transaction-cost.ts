/**
 * CPU per empty `engine.transaction()` on SQLite (BEGIN IMMEDIATE + COMMIT on a WAL file), this checkout
 * against another built one and raw better-sqlite3's `db.transaction(fn).immediate()`, interleaved:
 * `tsx src/transaction-cost.ts [/path/to/other/built/checkout]` (default /work/wt-base).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import "@tempest-db-js/dialect-sqlite";
import Database from "better-sqlite3";
import * as core from "tempest-db-js";
import { loadBuild } from "./lib/builds.js";
import { tune } from "./sections/queue-drain-sqlite.js";

const before = await loadBuild("before", resolve(process.argv[2] ?? "/work/wt-base"));
const dir = mkdtempSync(join(tmpdir(), "tempest-tx-cost-"));
const rawTx = tune(new Database(join(dir, "raw.db"))).transaction(() => {});
const contenders: Record<string, { transaction(fn: () => Promise<void>, options: object): Promise<unknown> }> = {
  before: (before.core as typeof core).createEngine(`sqlite://${join(dir, "before.db")}`),
  after: core.createEngine(`sqlite://${join(dir, "after.db")}`),
  "raw better-sqlite3": { transaction: async () => rawTx.immediate() },
};
for (const engine of [contenders.before, contenders.after] as core.Engine[]) await engine.execute(core.sql.raw("SELECT 1")).all();
const perCall: Record<string, number[]> = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
const calls = 4000;
for (let round = 0; round < 8; round++) {
  for (const [name, db] of Object.entries(contenders)) {
    const usage = process.cpuUsage();
    for (let i = 0; i < calls; i++) await db.transaction(async () => {}, { retryOnDeadlock: 8 });
    const used = process.cpuUsage(usage);
    if (round > 0) perCall[name]?.push((used.user + used.system) / calls);
  }
}
for (const [name, values] of Object.entries(perCall)) {
  const sorted = [...values].sort((a, b) => a - b);
  console.log(
    `${name}: ${sorted[Math.floor(sorted.length / 2)]?.toFixed(2)} µs CPU per transaction (median of 7; min ${sorted[0]?.toFixed(2)})`,
  );
}
