/**
 * Streams `n` rows from one database in a process of its own and prints its peak RSS as JSON: the
 * rows are made on the server (SQLite: in the file) before the measurement starts, so the figure is
 * the stream's alone. Run by stream-memory.ts: `stream-memory-child.ts <postgres|mysql|sqlite> <n>`.
 */
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { column, createEngine, Model, select, sql } from "tempest-db-js";
import { MYSQL_URL, PG_URL } from "./lib/env.js";

class StreamRow extends Model {
  static tablename = "bench_stream_rows";
  id = column.integer().primaryKey();
  label = column.text().notNull();
  at = column.datetime().notNull();
}

const [db, size, batch] = process.argv.slice(2);
const n = Number(size);
const batchSize = Number(batch ?? 1000);
const dir = db === "sqlite" ? mkdtempSync(join(tmpdir(), "tempest-stream-bench-")) : undefined;
const url = db === "postgres" ? PG_URL : db === "mysql" ? MYSQL_URL : `sqlite://${join(dir as string, "bench.db")}`;
const engine = createEngine(url, { poolSize: 2 });

await engine.dropAll([StreamRow]);
await engine.createAll([StreamRow]);
const label = "'row label of some forty characters, padded'";
const fill =
  db === "postgres"
    ? `INSERT INTO bench_stream_rows SELECT g, ${label} || g, now() - g * interval '1 second' FROM generate_series(1, ${n}) g`
    : db === "mysql"
      ? `INSERT INTO bench_stream_rows SELECT seq, CONCAT(${label}, seq), UTC_TIMESTAMP(3) - INTERVAL seq SECOND FROM seq_1_to_${n}`
      : `WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ${n}) INSERT INTO bench_stream_rows SELECT i, ${label} || i, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || i || ' seconds') FROM g`;
await engine.execute(sql.raw(fill)).rowsAffected();

const mib = (bytes: number) => bytes / 2 ** 20;
(globalThis as { gc?: () => void }).gc?.();
const before = process.memoryUsage().rss;
let peak = before;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 5);
const started = performance.now();
let count = 0;
let checksum = 0;
for await (const row of engine.stream(select(StreamRow).orderBy("id"), { batchSize })) {
  count++;
  checksum += row.id + row.at.getUTCSeconds() + row.label.length;
}
const ms = performance.now() - started;
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().rss);
if (count !== n) throw new Error(`streamed ${count} of ${n} rows`);
await engine.dropAll([StreamRow]);
await engine.close();
if (dir) rmSync(dir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify({ db, n, batchSize, ms, checksum, rssBeforeMiB: mib(before), peakRssMiB: mib(peak) })}\n`);
