import { readFileSync } from "node:fs";
import { enqueue, queueIndexes, verifyQueueSchema, withQueueFeatures, work } from "@tempest-db-js/queue-recipes";
import type { Engine } from "tempest-db-js";
import { column, Model, sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateMigration, migrateUp } from "../src/index.js";
import { engineFor, targets, tempFolder } from "./support/targets.js";

class OutboundBase extends Model {
  static tablename = "mgq_outbound";
  static naming = "snake_case" as const;
  id = column.uuid().primaryKey();
  consumer = column.text().notNull();
  idempotencyKey = column.text();
  status = column.enum("queued", "sending", "sent", "failed").notNull();
  attempts = column.integer().notNull().default(0);
  nextAttemptAt = column.datetime().notNull();
  updatedAt = column.datetime();
  payload = column.json();
}

/** The table as an early deploy made it: the required unique index only, no optional column, no due index. */
class Outbound extends OutboundBase {
  static indexes = queueIndexes(OutboundBase).filter((i) => i.spec.unique === true);
}

const postgres = targets.filter((t) => t.name === "PostgreSQL");

describe.each(postgres)("the queue's optional features, migrated on a live $name table", (target) => {
  let engine: Engine;
  const folder = tempFolder("queue");
  beforeAll(() => {
    engine = engineFor(target, 8);
  });
  afterAll(async () => {
    await engine.execute(sql.raw("DROP TABLE IF EXISTS mgq_outbound, mgq_history")).rowsAffected();
    await engine.close();
    folder.remove();
  });

  it("turns on the claim token, last error and the due index while two workers claim", async () => {
    await engine.execute(sql.raw("DROP TABLE IF EXISTS mgq_outbound, mgq_history")).rowsAffected();
    await engine.createAll([Outbound]);
    const before = await verifyQueueSchema(engine, Outbound);
    expect(before.features).toEqual({ claimToken: false, lastError: false, priority: false, deadLetter: false });
    expect(before.problems.map((p) => p.name).sort()).toEqual([
      "attempt_history",
      "claim_token",
      "dead_reason",
      "last_error",
      "last_error_at",
      "mgq_outbound_due",
      "mgq_outbound_lease",
      "priority",
      "reclaims",
    ]);
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 1500 }, (_, i) => ({ consumer: "c", idempotencyKey: `k${i}`, nextAttemptAt: new Date() })),
    );

    const stop = new AbortController();
    const errors: unknown[] = [];
    let delivered = 0;
    const deliver = async () => {
      delivered++;
      await new Promise((resolve) => setTimeout(resolve, 2));
    };
    const workers = [1, 2].map(() =>
      work(engine, Outbound, deliver, {
        signal: stop.signal,
        batchSize: 10,
        listen: false,
        pollIntervalMs: 20,
        onError: (e) => errors.push(e),
      }),
    );
    while (delivered < 50) await new Promise((resolve) => setTimeout(resolve, 10));

    const Queue = withQueueFeatures(Outbound);
    const options = { engine, folder: folder.path, historyTable: "mgq_history" };
    const generated = await generateMigration({ ...options, models: [Queue], name: "queue features" });
    expect(generated.changes).toEqual(
      expect.arrayContaining([
        "add column mgq_outbound.claim_token",
        "add column mgq_outbound.last_error",
        "create index mgq_outbound.mgq_outbound_due",
      ]),
    );
    // The table holds rows: its indexes are built CONCURRENTLY, outside the transaction, marked so in the file.
    const text = readFileSync(generated.path ?? "", "utf8");
    expect(text).toMatch(
      /CREATE INDEX CONCURRENTLY [^\n]*mgq_outbound_due[^\n]*transactional: false \}, \/\/ runs outside the transaction/,
    );
    const deliveredBefore = delivered;
    expect(await migrateUp(options)).toMatchObject({ applied: [generated.name] });
    const deliveredDuring = delivered - deliveredBefore;
    stop.abort();
    await Promise.all(workers);

    expect(errors).toEqual([]);
    expect(deliveredDuring).toBeGreaterThan(0);
    const after = await verifyQueueSchema(engine, Queue);
    expect(after.features).toEqual({ claimToken: true, lastError: true, priority: true, deadLetter: true });
    expect(after.problems).toEqual([]);
    const invalid = await engine.execute(sql.raw("SELECT count(*)::int AS n FROM pg_index WHERE NOT indisvalid")).scalar();
    expect(invalid).toBe(0);
  });
});
