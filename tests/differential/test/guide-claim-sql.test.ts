import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { column, createEngine, Model, select, sql, UnsupportedFeatureError, update } from "tempest-db-js";
import { afterAll, describe, expect, it } from "vitest";

// The guide's claim, compiled on every dialect, pinned to the text it had before the ordering,
// collation and pattern rules: pinning SQL is written only for nullable or enum sort keys, and the
// claim orders by a NOT NULL datetime, so its statements (and the index scan behind them) are unchanged.
class Outbound extends Model {
  static tablename = "outbound_messages";
  static naming = "snake_case";
  id = column.uuid().primaryKey();
  consumer = column.text().notNull();
  idempotencyKey = column.text();
  status = column.enum("queued", "sending", "sent", "failed").notNull();
  attempts = column.integer().notNull().default(0);
  nextAttemptAt = column.datetime().notNull();
  updatedAt = column.datetime();
}

const ids = ["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"];
const next = () => select(Outbound, ["id"]).where({ status: "queued" }).orderBy("nextAttemptAt").limit(10);
const claim = () => update(Outbound).set({ status: "sending", attempts: sql.raw("attempts + 1"), updatedAt: sql.now() });
const single = () =>
  claim()
    .where({
      id: {
        in: select(Outbound)
          .where({ status: "queued" })
          .orderBy("nextAttemptAt")
          .limit(10)
          .forUpdate({ skipLocked: true })
          .asSubquery("id"),
      },
    })
    .returning();

const engines = [
  createEngine("postgresql://app@localhost/app"),
  createEngine("mariadb://app@localhost/app"),
  createEngine("sqlite::memory:"),
] as const;
const [postgres, mariadb, sqlite] = engines;

afterAll(async () => {
  for (const engine of engines) await engine.close();
});

describe("the guide's claim compiles byte-identical", () => {
  it("on PostgreSQL: both steps and the single statement", () => {
    expect(postgres.compile(next().forUpdate({ skipLocked: true })).sql).toBe(
      'SELECT "id" FROM "outbound_messages" WHERE "status" = $1 ORDER BY "next_attempt_at" ASC LIMIT 10 FOR UPDATE SKIP LOCKED',
    );
    expect(postgres.compile(claim().where({ id: { in: ids } })).sql).toBe(
      'UPDATE "outbound_messages" SET "status" = $1, "attempts" = attempts + 1, "updated_at" = now() WHERE "id" = ANY($2)',
    );
    expect(postgres.compile(single()).sql).toBe(
      'UPDATE "outbound_messages" SET "status" = $1, "attempts" = attempts + 1, "updated_at" = now() WHERE "id" = ANY(ARRAY(SELECT "id" FROM "outbound_messages" WHERE "status" = $2 ORDER BY "next_attempt_at" ASC LIMIT 10 FOR UPDATE SKIP LOCKED)) RETURNING "id", "consumer", "idempotency_key", "status", "attempts", "next_attempt_at", "updated_at"',
    );
  });

  it("on MariaDB: both steps, and the single statement refused by name", () => {
    expect(mariadb.compile(next().forUpdate({ skipLocked: true })).sql).toBe(
      "SELECT `id` FROM `outbound_messages` WHERE `status` = ? ORDER BY `next_attempt_at` ASC LIMIT 10 FOR UPDATE SKIP LOCKED",
    );
    expect(mariadb.compile(claim().where({ id: { in: ids } })).sql).toBe(
      "UPDATE `outbound_messages` SET `status` = ?, `attempts` = attempts + 1, `updated_at` = UTC_TIMESTAMP(3) WHERE `id` IN (?, ?)",
    );
    expect(() => mariadb.compile(single())).toThrow(UnsupportedFeatureError);
  });

  it("on SQLite: the unlocked select and the update (the lock refused by name)", () => {
    expect(sqlite.compile(next()).sql).toBe(
      'SELECT "id" FROM "outbound_messages" WHERE "status" = ? ORDER BY "next_attempt_at" ASC LIMIT 10',
    );
    expect(sqlite.compile(claim().where({ id: { in: ids } })).sql).toBe(
      `UPDATE "outbound_messages" SET "status" = ?, "attempts" = attempts + 1, "updated_at" = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE "id" IN (?, ?)`,
    );
    expect(() => sqlite.compile(next().forUpdate({ skipLocked: true }))).toThrow(UnsupportedFeatureError);
  });
});
