import type { Engine } from "tempest-db-js";
import { column, dropTable, Model, tableMeta } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueue, queueIndexes, withQueueIndexes } from "../src/index.js";
import { Outbound as GuideOutbound } from "./support/guide-model.js";
import { engineFor, targets } from "./support/targets.js";

// The guide's model with the queue's indexes declared on it, so that createAll makes them.
class DeclaredOutbound extends Model {
  static tablename = "qr_declared";
  static naming = "snake_case";
  static indexes = queueIndexes(DeclaredOutbound);

  id = column.uuid().primaryKey();
  consumer = column.text().notNull();
  idempotencyKey = column.text();
  status = column.enum("queued", "sending", "sent", "failed").notNull();
  attempts = column.integer().notNull().default(0);
  nextAttemptAt = column.datetime().notNull();
  updatedAt = column.datetime();
}

describe("queueIndexes", () => {
  it("names the three indexes after the table and makes only the idempotency index unique and partial", () => {
    const indexes = tableMeta(DeclaredOutbound).indexes;
    expect(indexes.map((i) => [i.name, i.columns.map((c) => c.name), i.unique, i.where !== undefined])).toEqual([
      ["qr_declared_due", ["status", "next_attempt_at"], false, false],
      ["qr_declared_idempotency", ["consumer", "idempotency_key"], true, true],
      ["qr_declared_lease", ["status", "updated_at"], false, false],
    ]);
  });

  it("adds the indexes to an undeclared model without touching the model itself", () => {
    const table = withQueueIndexes(GuideOutbound);
    expect(tableMeta(table).name).toBe("outbound_messages");
    expect(tableMeta(table).indexes).toHaveLength(3);
    expect(tableMeta(GuideOutbound).indexes).toHaveLength(0);
    expect(withQueueIndexes(DeclaredOutbound)).toBe(DeclaredOutbound);
  });
});

describe.each(targets)("declared queue indexes on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 2);
  });
  afterAll(async () => {
    await engine.close();
  });

  it("are created by the model's own DDL (createAll) and enforce idempotency", async () => {
    await engine.execute(dropTable(DeclaredOutbound, { ifExists: true })).rowsAffected();
    await engine.createAll([DeclaredOutbound]);
    const result = await enqueue(engine, DeclaredOutbound, [
      { consumer: "a", idempotencyKey: "same" },
      { consumer: "a", idempotencyKey: "same" },
      { consumer: "a" },
      { consumer: "a" },
    ]);
    expect(result.inserted.map((m) => m.index)).toEqual([0, 2, 3]);
    expect(result.duplicates.map((m) => m.index)).toEqual([1]);
  });
});
