/**
 * Streams `n` rows from one database in a process of its own and prints its peak RSS as JSON: the
 * rows are made on the server (SQLite: in the file) before the measurement starts, so the figure is
 * the stream's alone. Run by stream-memory.ts: `stream-memory-child.ts <postgres|mysql|sqlite> <n>`.
 *
 * `--heap` (with node's --expose-gc): also the heap retained while the rows are read, after a forced
 * collection at each quarter of them, above the heap before the first row (`retainedMiB`, the largest
 * of the three). `--all` reads them with execute().all() instead of a stream: what a reader that holds
 * every row retains (test/stream-memory.test.ts checks that the stream's figure does not grow with n).
 */
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { column, createEngine, Model, select, sql } from "tempest-db-js";
import { MYSQL_URL, PG_URL } from "./lib/env.js";

// One table per process: children for the same server may run side by side.
const table = `bench_stream_rows_${process.pid}`;

class StreamRow extends Model {
  static tablename = table;
  id = column.integer().primaryKey();
  label = column.text().notNull();
  at = column.datetime().notNull();
}

const flags = process.argv.slice(2).filter((a) => a.startsWith("--"));
const [db, size, batch] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const n = Number(size);
const batchSize = Number(batch ?? 1000);
const heap = flags.includes("--heap");
const readAll = flags.includes("--all");
const dir = db === "sqlite" ? mkdtempSync(join(tmpdir(), "tempest-stream-bench-")) : undefined;
const url = db === "postgres" ? PG_URL : db === "mysql" ? MYSQL_URL : `sqlite://${join(dir as string, "bench.db")}`;
const engine = createEngine(url, { poolSize: 2 });

await engine.dropAll([StreamRow]);
await engine.createAll([StreamRow]);
const label = "'row label of some forty characters, padded'";
const fill =
  db === "postgres"
    ? `INSERT INTO ${table} SELECT g, ${label} || g, now() - g * interval '1 second' FROM generate_series(1, ${n}) g`
    : db === "mysql"
      ? `INSERT INTO ${table} SELECT seq, CONCAT(${label}, seq), UTC_TIMESTAMP(3) - INTERVAL seq SECOND FROM seq_1_to_${n}`
      : `WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ${n}) INSERT INTO ${table} SELECT i, ${label} || i, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || i || ' seconds') FROM g`;
await engine.execute(sql.raw(fill)).rowsAffected();

const mib = (bytes: number) => bytes / 2 ** 20;
const gc = (globalThis as { gc?: () => void }).gc;
if (heap && !gc) throw new Error("--heap needs node --expose-gc");
/** What the process holds after a full collection: JavaScript objects, and buffers outside the heap. */
const held = (): number => {
  gc?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
};
const heapBefore = heap ? held() : 0;
const quarters = new Set([1, 2, 3].map((q) => Math.floor((n * q) / 4)));
let retained = 0;
gc?.();
const before = process.memoryUsage().rss;
let peak = before;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 5);
const started = performance.now();
let count = 0;
let checksum = 0;
const query = select(StreamRow).orderBy("id");
for await (const row of readAll ? await engine.execute(query).all() : engine.stream(query, { batchSize })) {
  count++;
  checksum += row.id + row.at.getUTCSeconds() + row.label.length;
  if (heap && quarters.has(count)) retained = Math.max(retained, held() - heapBefore);
}
const ms = performance.now() - started;
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().rss);
if (count !== n) throw new Error(`streamed ${count} of ${n} rows`);
await engine.dropAll([StreamRow]);
await engine.close();
if (dir) rmSync(dir, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify({ db, n, batchSize, ms, checksum, rssBeforeMiB: mib(before), peakRssMiB: mib(peak), retainedMiB: mib(retained) })}\n`,
);
