#!/usr/bin/env node
// A first jobs/second figure per dialect: enqueue N messages, then drain them with a no-op
// deliver (so the number is the queue's own cost: claim + settle round trips) and report rates.
// Runs from the built packages:  pnpm --filter "@tempest-db-js/queue-recipes..." build
//   node packages/queue-recipes/scripts/throughput.mjs [--messages 20000] [--batch 50] [--concurrency 4] [--only PostgreSQL,MySQL,SQLite]
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { drain, enqueue, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import { column, createEngine, dropTable, Model } from "tempest-db-js";

const { values } = parseArgs({
  options: {
    messages: { type: "string", default: "20000" },
    batch: { type: "string", default: "50" },
    concurrency: { type: "string", default: "4" },
    only: { type: "string" },
  },
});
const messages = Number(values.messages);
const batchSize = Number(values.batch);
const concurrency = Number(values.concurrency);

const targets = [
  ["PostgreSQL", process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test", "@tempest-db-js/dialect-postgres"],
  ["MySQL", process.env.TEMPEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test", "@tempest-db-js/dialect-mysql"],
  ["SQLite", `sqlite://${join(mkdtempSync(join(tmpdir(), "tempest-throughput-")), "queue.db")}`, "@tempest-db-js/dialect-sqlite"],
].filter(([name]) => !values.only || values.only.split(",").includes(name));

class Outbound extends Model {
  static tablename = "qr_throughput";
  static naming = "snake_case";

  id = column.uuid().primaryKey();
  consumer = column.text().notNull();
  idempotencyKey = column.text();
  status = column.enum("queued", "sending", "sent", "failed").notNull();
  attempts = column.integer().notNull().default(0);
  nextAttemptAt = column.datetime().notNull();
  updatedAt = column.datetime();
}

const rows = [];
for (const [name, url, dialect] of targets) {
  await import(dialect);
  const engine = createEngine(url, { poolSize: concurrency + 2 });
  try {
    await engine.execute(dropTable(Outbound, { ifExists: true })).rowsAffected();
    await ensureQueueSchema(engine, Outbound);
    let started = performance.now();
    for (let i = 0; i < messages; i += 1000) {
      const chunk = Array.from({ length: Math.min(1000, messages - i) }, (_, j) => ({
        consumer: `c${(i + j) % 8}`,
        idempotencyKey: `k${i + j}`,
      }));
      await enqueue(engine, Outbound, chunk);
    }
    const enqueueSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    const result = await drain(engine, Outbound, () => {}, { batchSize, concurrency });
    const drainSeconds = (performance.now() - started) / 1000;
    if (result.sent !== messages) throw new Error(`${name}: sent ${result.sent} of ${messages}`);
    rows.push({
      dialect: name,
      messages,
      "enqueue msg/s": Math.round(messages / enqueueSeconds),
      "drain jobs/s": Math.round(messages / drainSeconds),
    });
  } finally {
    await engine.close();
  }
}
console.log(`batch ${batchSize}, concurrency ${concurrency}, no-op deliver, one process`);
console.table(rows);
