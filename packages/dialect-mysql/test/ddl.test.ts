import { column, index, Model, sql, UnsupportedFeatureError, uniqueIndex } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MysqlCapabilities } from "../src/index.js";
import { Child, Outbound, Parent } from "./models.js";
import { closeEngines, testEngine } from "./support.js";

const engine = testEngine();

class Tagged extends Model {
  static tablename = "dm_tagged";
  // Not unique: a dropped predicate only changes which rows the index covers, never a rule.
  static indexes = [index<Tagged>("dm_tagged_by_tag", ["tag"]).where({ tag: "x" })];
  id = column.text().primaryKey();
  tag = column.text();
  body = column.text();
  raw = column.bytes().unique();
}

class OnePending extends Model {
  static tablename = "dm_one_pending";
  static indexes = [uniqueIndex<OnePending>("dm_one_pending_per_consumer", ["consumer"]).where({ status: "queued" })];
  id = column.integer().primaryKey();
  consumer = column.text().notNull();
  status = column.text().notNull();
}

async function columnTypes(table: string): Promise<Record<string, unknown>> {
  const rows = await engine
    .execute(
      sql.expr`SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${table}`,
    )
    .all();
  return Object.fromEntries(rows.map((r) => [r.name, r.type]));
}

/** index name -> [unique, columns in order] */
async function indexes(table: string): Promise<Record<string, [boolean, string]>> {
  const rows = await engine
    .execute(
      sql.expr`SELECT INDEX_NAME AS name, NON_UNIQUE AS nonUnique, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) AS cols
               FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${table} GROUP BY INDEX_NAME, NON_UNIQUE`,
    )
    .all();
  return Object.fromEntries(rows.map((r) => [r.name, [String(r.nonUnique) === "0", r.cols]]));
}

beforeAll(async () => {
  await engine.dropAll([Outbound, Parent, Child, Tagged, OnePending]);
});

afterAll(closeEngines);

describe("DDL from the model", () => {
  it("creates the guide's table, keyed text as varchar(255), and its idempotency index as a plain unique index", async () => {
    await engine.createAll([Outbound], { ifNotExists: true });
    expect(await columnTypes("dm_outbound_messages")).toEqual({
      id: "char(36)",
      consumer: "varchar(255)",
      idempotency_key: "varchar(255)",
      status: "enum('queued','sending','sent','failed')",
      attempts: expect.stringMatching(/^int(\(11\))?$/),
      next_attempt_at: "datetime(3)",
      updated_at: "datetime(3)",
    });
    expect(await indexes("dm_outbound_messages")).toEqual({
      PRIMARY: [true, "id"],
      dm_outbound_idempotency: [true, "consumer,idempotency_key"],
      dm_outbound_claim: [false, "status,next_attempt_at"],
    });
  });

  it("runs createAll again with ifNotExists where the server has CREATE INDEX IF NOT EXISTS", async () => {
    const capabilities = engine.capabilities as MysqlCapabilities;
    expect(capabilities.indexIfNotExists).toBe(capabilities.server.flavor === "mariadb");
    if (capabilities.indexIfNotExists) await engine.createAll([Outbound], { ifNotExists: true });
    expect(Object.keys(await indexes("dm_outbound_messages")).sort()).toEqual(["PRIMARY", "dm_outbound_claim", "dm_outbound_idempotency"]);
  });

  it("keeps LONGTEXT and LONGBLOB unless the column is part of a key, and drops a non-unique index's predicate", async () => {
    await engine.createAll([Tagged]);
    expect(await columnTypes("dm_tagged")).toEqual({ id: "varchar(255)", tag: "varchar(255)", body: "longtext", raw: "varbinary(255)" });
    expect(await indexes("dm_tagged")).toEqual({ PRIMARY: [true, "id"], raw: [true, "raw"], dm_tagged_by_tag: [false, "tag"] });
  });

  it("creates foreign keys", async () => {
    await engine.createAll([Parent, Child]);
    const fk = await engine
      .execute(
        sql.raw(
          "SELECT REFERENCED_TABLE_NAME AS t, REFERENCED_COLUMN_NAME AS c FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'dm_child' AND REFERENCED_TABLE_NAME IS NOT NULL",
        ),
      )
      .all();
    expect(fk).toEqual([{ t: "dm_parent", c: "id" }]);
  });

  it("refuses a partial unique index it cannot express, and creates no index in its place", async () => {
    const error = await engine.createAll([OnePending]).catch((e: unknown) => e);
    expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
    expect((error as UnsupportedFeatureError).feature).toBe("the partial unique index dm_one_pending_per_consumer");
    expect(await indexes("dm_one_pending")).toEqual({ PRIMARY: [true, "id"] });
  });
});
