import type { Engine } from "tempest-db-js";
import { column, dropTable, index, Model, select, sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueue, ensureQueueSchema, verifyQueueSchema } from "../src/index.js";
import { outboundModel, tokenModel } from "./support/models.js";
import { engineFor, targets } from "./support/targets.js";

describe.each(targets)("queue schema checks on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 2);
  });
  afterAll(async () => {
    await engine.close();
  });

  async function drop(name: string) {
    await engine.execute(dropTable(outboundModel(name), { ifExists: true })).rowsAffected();
  }

  async function run(ddl: readonly string[]) {
    for (const statement of ddl) await engine.execute(sql.raw(statement)).rowsAffected();
  }

  it("reports the optional columns of the guide's table, off and each with its DDL, and nothing else", async () => {
    await drop("qr_schema_guide");
    const Outbound = outboundModel("qr_schema_guide");
    const ensured = await ensureQueueSchema(engine, Outbound);
    expect(ensured.ok).toBe(true);
    expect(ensured.features).toEqual({ claimToken: false, lastError: false, priority: false, deadLetter: false });
    expect(ensured.problems.map((p) => [p.kind, p.name, p.required])).toEqual([
      ["column", "claim_token", false],
      ["column", "last_error", false],
      ["column", "last_error_at", false],
      ["column", "priority", false],
      ["column", "reclaims", false],
      ["column", "dead_reason", false],
      ["column", "attempt_history", false],
    ]);
    expect(ensured.problems[0]?.effect).toMatch(/^off: fencing by a claim token/);
    expect(ensured.problems[0]?.ddl[0]).toMatch(/^ALTER TABLE .qr_schema_guide. ADD COLUMN .claim_token. /);
    // The DDL works as given; the model with the columns then has the features on.
    await run(ensured.problems.filter((p) => p.name !== "priority").flatMap((p) => p.ddl));
    const Token = tokenModel("qr_schema_guide");
    const after = await verifyQueueSchema(engine, Token);
    expect(after).toMatchObject({ ok: true, features: { claimToken: true, lastError: true, priority: false, deadLetter: false } });
    expect(after.problems.map((p) => p.name)).toEqual(["priority"]);
    await enqueue(engine, Token, { consumer: "x" });
    expect(await engine.execute(select(Token, ["claimToken", "lastError"])).one()).toEqual({ claimToken: 0, lastError: null });
  });

  it("catches a table without the unique idempotency index before the first enqueue writes anything", async () => {
    await drop("qr_schema_nounique");
    // A migration that indexed the key columns without UNIQUE (on MariaDB, INSERT IGNORE then stored repeats).
    const Plain = class extends outboundModel("qr_schema_nounique") {
      static indexes = [
        index<any>("qr_schema_nounique_due", ["status", "nextAttemptAt"]),
        index<any>("qr_schema_nounique_lease", ["status", "updatedAt"]),
        index<any>("qr_schema_nounique_key", ["consumer", "idempotencyKey"]),
      ];
    };
    await engine.createAll([Plain]);
    const Outbound = outboundModel("qr_schema_nounique");
    const report = await verifyQueueSchema(engine, Outbound);
    expect(report.ok).toBe(false);
    const unique = report.problems.filter((p) => p.kind === "index");
    expect(unique.map((p) => [p.name, p.required])).toEqual([["qr_schema_nounique_idempotency", true]]);
    expect(unique[0]?.ddl[0]).toMatch(/^CREATE UNIQUE INDEX /);

    const twice = [
      { consumer: "billing", idempotencyKey: "order-1" },
      { consumer: "billing", idempotencyKey: "order-1" },
    ];
    await expect(enqueue(engine, Outbound, twice)).rejects.toThrow(
      /has no unique index on \(consumer, idempotencyKey\).*CREATE UNIQUE INDEX/,
    );
    expect(await engine.execute(select(Outbound, ["id"])).all()).toEqual([]);
    await expect(ensureQueueSchema(engine, outboundModel("qr_schema_nounique_other"))).resolves.toMatchObject({ ok: true });
    await drop("qr_schema_nounique_other");

    await run(unique[0]?.ddl ?? []);
    const result = await enqueue(engine, Outbound, twice);
    expect([result.inserted.length, result.duplicates.length]).toEqual([1, 1]);
  });

  it("names a missing required column with its DDL; ensureQueueSchema refuses the table until it is added", async () => {
    await drop("qr_schema_nocol");
    class Partial extends Model {
      static tablename = "qr_schema_nocol";
      static naming = "snake_case";
      id = column.uuid().primaryKey();
      consumer = column.text().notNull();
      idempotencyKey = column.text();
      status = column.enum("queued", "sending", "sent", "failed").notNull();
      attempts = column.integer().notNull().default(0);
      nextAttemptAt = column.datetime().notNull();
    }
    await ensureQueueSchema(engine, Partial, { fields: { updatedAt: "nextAttemptAt" } });
    const Outbound = outboundModel("qr_schema_nocol");
    const report = await verifyQueueSchema(engine, Outbound);
    const required = report.problems.filter((p) => p.required);
    expect(required.map((p) => [p.kind, p.name])).toEqual([["column", "updated_at"]]);
    expect(required[0]?.ddl[0]).toMatch(/^ALTER TABLE .qr_schema_nocol. ADD COLUMN .updated_at. /);
    await expect(ensureQueueSchema(engine, Outbound)).rejects.toThrow(/lacks what the queue needs:\n- column updated_at: .*ALTER TABLE/);
    await run(required[0]?.ddl ?? []);
    await expect(ensureQueueSchema(engine, Outbound)).resolves.toMatchObject({ ok: true });
  });

  it("a model declaring the claim token on a table without it is refused, with the DDL", async () => {
    await drop("qr_schema_notoken");
    await ensureQueueSchema(engine, outboundModel("qr_schema_notoken"));
    await expect(ensureQueueSchema(engine, tokenModel("qr_schema_notoken"))).rejects.toThrow(
      /- column claim_token: the model declares claimToken/,
    );
  });

  it("reports a missing table with the statements that create it", async () => {
    await drop("qr_schema_none");
    const report = await verifyQueueSchema(engine, outboundModel("qr_schema_none"));
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => [p.kind, p.name])).toEqual([["table", "qr_schema_none"]]);
    expect(report.problems[0]?.ddl).toHaveLength(4);
  });
});
