import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "@tempest-db-js/dialect-sqlite";
import { drain, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import Database from "better-sqlite3";
import { createEngine } from "tempest-db-js";
import { queueModel } from "./src/lib/models.js";
const dir = mkdtempSync(join(tmpdir(), "prof-sq-drain-"));
const file = join(dir, "t.db");
const engine = createEngine(`sqlite://${file}`);
const Job = queueModel("bench_drain");
await ensureQueueSchema(engine, Job);
const admin = new Database(file); admin.pragma("journal_mode = WAL"); admin.pragma("synchronous = NORMAL");
function load(n: number) {
  admin.exec(`DELETE FROM "bench_drain"`);
  const ins = admin.prepare(`INSERT INTO "bench_drain" (id, consumer, status, attempts, next_attempt_at, updated_at) VALUES (?, 'bench', 'queued', 0, ?, ?)`);
  const now = Date.now();
  admin.transaction(() => { for (let i = 0; i < n; i++) ins.run(randomUUID(), new Date(now - (n - i)).toISOString(), new Date(now).toISOString()); })();
}
for (let r = 0; r < 12; r++) {
  load(20000);
  const t = performance.now();
  await drain(engine, Job, () => {}, { batchSize: 50, concurrency: 4 });
  if (r % 3 === 0) console.log((performance.now() - t).toFixed(0), "ms");
}
await engine.close();
