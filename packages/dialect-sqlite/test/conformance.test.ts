import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConformanceTarget } from "tempest-db-js/testing";
import { runConformanceSuite } from "tempest-db-js/testing";
import { afterAll } from "vitest";
import { sqliteDialect } from "../src/index.js";

// A file, not :memory:: the suite opens further engines on the same URL and expects the same tables.
const dir = mkdtempSync(join(tmpdir(), "tempest-sqlite-conformance-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Row locks are refused (SQLite has none); datetimes travel as ISO-8601 text, so Date parameters
// appear as their toISOString().
const expected: ConformanceTarget["expected"] = {
  "insert.values": {
    sql: 'INSERT INTO "tempest_conformance_jobs" ("id", "consumer", "idempotency_key", "status", "attempts", "next_attempt_at") VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)',
    params: [
      "00000000-0000-4000-8000-000000000001",
      "billing",
      "k1",
      "queued",
      0,
      "2026-01-02T03:04:05.678Z",
      "00000000-0000-4000-8000-000000000002",
      "billing",
      null,
      "queued",
      2,
      "2026-01-02T03:04:06.789Z",
      "00000000-0000-4000-8000-000000000003",
      "mail",
      "k1",
      "sent",
      1,
      "2026-01-02T03:04:05.678Z",
      "00000000-0000-4000-8000-0000000000aa",
      "sms",
      null,
      "failed",
      0,
      "2026-01-02T03:04:06.789Z",
    ],
  },
  "insert.returning": {
    sql: 'INSERT INTO "tempest_conformance_jobs" ("id", "consumer", "status", "next_attempt_at") VALUES (?, ?, ?, ?) RETURNING "id", "consumer", "idempotency_key", "status", "attempts", "next_attempt_at", "updated_at"',
    params: ["00000000-0000-4000-8000-0000000000aa", "sms", "queued", "2026-01-02T03:04:05.678Z"],
  },
  "select.where": {
    sql: 'SELECT "id", "attempts" FROM "tempest_conformance_jobs" WHERE "consumer" = ? AND "attempts" >= ? ORDER BY "next_attempt_at" DESC, "id" ASC LIMIT 5 OFFSET 0',
    params: ["billing", 0],
  },
  "select.operators": {
    sql: 'SELECT "id" FROM "tempest_conformance_jobs" WHERE "status" IN (?, ?) OR ("idempotency_key" IS NULL AND NOT ("attempts" BETWEEN ? AND ?)) ORDER BY "id" ASC',
    params: ["sending", "sent", 0, 1],
  },
  "select.like": {
    sql: `SELECT "id" FROM "tempest_conformance_jobs" WHERE "consumer" LIKE ? ESCAPE '\\' AND "idempotency_key" IS NOT NULL`,
    params: ["bill%"],
  },
  "select.likeEscape": {
    sql: `SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "consumer" LIKE ? ESCAPE '\\'`,
    params: ["a\\_b\\%"],
  },
  "select.ilike": {
    sql: `SELECT "id" FROM "tempest_conformance_jobs" WHERE LOWER("consumer") LIKE LOWER(?) ESCAPE '\\'`,
    params: ["MAIL"],
  },
  "select.emptyIn": {
    sql: 'SELECT "id" FROM "tempest_conformance_jobs" WHERE 1 = 0',
    params: [],
  },
  "select.emptyNotIn": {
    sql: 'SELECT "id" FROM "tempest_conformance_jobs" WHERE 1 = 1',
    params: [],
  },
  "select.forUpdateSkipLocked": { unsupported: "row locks (forUpdate)" },
  "select.forUpdateNoWait": { unsupported: "row locks (forUpdate)" },
  "select.forUpdateOf": { unsupported: "row locks (forUpdate)" },
  "select.forShare": { unsupported: "shared row locks (forShare)" },
  "update.expressions": {
    sql: "UPDATE \"tempest_conformance_jobs\" SET \"attempts\" = attempts + 1, \"updated_at\" = strftime('%Y-%m-%dT%H:%M:%fZ','now'), \"next_attempt_at\" = strftime('%Y-%m-%dT%H:%M:%fZ','now',(? || ' seconds')) WHERE \"id\" = ?",
    params: [30, "00000000-0000-4000-8000-000000000001"],
  },
  "update.template": {
    sql: 'UPDATE "tempest_conformance_jobs" SET "attempts" = attempts + ? WHERE "id" = ?',
    params: [5, "00000000-0000-4000-8000-000000000002"],
  },
  "update.returning": {
    sql: 'UPDATE "tempest_conformance_jobs" SET "status" = ? WHERE "id" = ? RETURNING "id", "status"',
    params: ["sending", "00000000-0000-4000-8000-000000000002"],
  },
  "update.claimSubquery": { unsupported: "row locks (forUpdate)" },
  "update.claimSubqueryUnlocked": {
    sql: 'UPDATE "tempest_conformance_jobs" SET "status" = ? WHERE "id" IN (SELECT "id" FROM "tempest_conformance_jobs" WHERE "status" = ? ORDER BY "next_attempt_at" ASC LIMIT 1)',
    params: ["sending", "queued"],
  },
  "insert.onConflictDoNothing": {
    sql: 'INSERT INTO "tempest_conformance_jobs" ("id", "consumer", "idempotency_key", "status", "next_attempt_at") VALUES (?, ?, ?, ?, ?) ON CONFLICT ("consumer", "idempotency_key") WHERE "idempotency_key" IS NOT NULL DO NOTHING',
    params: ["00000000-0000-4000-8000-0000000000aa", "billing", "k1", "queued", "2026-01-02T03:04:06.789Z"],
  },
  "insert.onConflictDoUpdate": {
    sql: 'INSERT INTO "tempest_conformance_jobs" ("id", "consumer", "idempotency_key", "status", "next_attempt_at") VALUES (?, ?, ?, ?, ?) ON CONFLICT ("consumer", "idempotency_key") WHERE "idempotency_key" IS NOT NULL DO UPDATE SET "status" = ?, "next_attempt_at" = ? WHERE "tempest_conformance_jobs"."attempts" < ?',
    params: [
      "00000000-0000-4000-8000-0000000000aa",
      "billing",
      "k1",
      "queued",
      "2026-01-02T03:04:06.789Z",
      "failed",
      "2026-01-02T03:04:06.789Z",
      5,
    ],
  },
  "insert.ignoreDuplicates": {
    sql: 'INSERT INTO "tempest_conformance_jobs" ("id", "consumer", "idempotency_key", "status", "next_attempt_at") VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
    params: ["00000000-0000-4000-8000-000000000001", "billing", "other", "queued", "2026-01-02T03:04:06.789Z"],
  },
  "insert.onDuplicateKeyUpdate": { unsupported: "ON DUPLICATE KEY UPDATE" },
  "delete.where": {
    sql: 'DELETE FROM "tempest_conformance_jobs" WHERE "consumer" = ?',
    params: ["mail"],
  },
  "delete.returning": {
    sql: 'DELETE FROM "tempest_conformance_jobs" WHERE "status" = ? RETURNING "id"',
    params: ["sent"],
  },
  "ddl.createTable": {
    sql: 'CREATE TABLE "tempest_conformance_jobs" ("id" TEXT NOT NULL, "consumer" TEXT NOT NULL, "idempotency_key" TEXT, "status" TEXT NOT NULL, "attempts" INTEGER NOT NULL DEFAULT 0, "next_attempt_at" TEXT NOT NULL, "updated_at" TEXT, PRIMARY KEY ("id"), CHECK ("status" IN (\'queued\', \'sending\', \'sent\', \'failed\')))',
    params: [],
  },
  "ddl.createIndex.idempotency": {
    sql: 'CREATE UNIQUE INDEX "tempest_conformance_jobs_idempotency" ON "tempest_conformance_jobs" ("consumer", "idempotency_key") WHERE "idempotency_key" IS NOT NULL',
    params: [],
  },
  "ddl.createIndex.due": {
    sql: 'CREATE INDEX "tempest_conformance_jobs_due" ON "tempest_conformance_jobs" ("status", "next_attempt_at")',
    params: [],
  },
  // CTEs and set operations (conformance-set-cases)
  "cte.select": {
    sql: 'WITH "queued" AS (SELECT "j"."id" AS "id", "j"."consumer" AS "consumer", "j"."attempts" AS "attempts" FROM "tempest_conformance_jobs" AS "j" WHERE "j"."status" = ?) SELECT "q"."id", "q"."consumer", "q"."attempts" FROM "queued" AS "q" WHERE "q"."attempts" >= ? ORDER BY "q"."attempts" DESC NULLS FIRST',
    params: ["queued", 0],
  },
  "cte.join": {
    sql: 'WITH "per_consumer" AS (SELECT "j"."consumer" AS "consumer", COUNT(*) AS "jobs" FROM "tempest_conformance_jobs" AS "j" GROUP BY "j"."consumer") SELECT "j"."id" AS "id", "p"."jobs" AS "jobs" FROM "tempest_conformance_jobs" AS "j" INNER JOIN "per_consumer" AS "p" ON "p"."consumer" = "j"."consumer" ORDER BY "j"."id" ASC',
    params: [],
  },
  "cte.recursive": {
    sql: 'WITH RECURSIVE "countdown" AS (SELECT "j"."id" AS "id", "j"."attempts" AS "attempts" FROM "tempest_conformance_jobs" AS "j" WHERE "j"."id" = ? UNION ALL SELECT "j"."id" AS "id", "j"."attempts" AS "attempts" FROM "tempest_conformance_jobs" AS "j" INNER JOIN "countdown" AS "c" ON ("j"."attempts" = "c"."attempts" - 1)) SELECT "c"."id", "c"."attempts" FROM "countdown" AS "c" ORDER BY "c"."attempts" DESC NULLS FIRST',
    params: ["00000000-0000-4000-8000-000000000002"],
  },
  "cte.materialized": {
    sql: 'WITH "once" AS MATERIALIZED (SELECT "id", "status" FROM "tempest_conformance_jobs" WHERE "consumer" = ?) SELECT "id", "status" FROM "once" ORDER BY "id" ASC',
    params: ["billing"],
  },
  "cte.notMaterialized": {
    sql: 'WITH "inline" AS NOT MATERIALIZED (SELECT "id" FROM "tempest_conformance_jobs" WHERE "status" = ?) SELECT "id" FROM "inline"',
    params: ["sent"],
  },
  "cte.dataModifying": { unsupported: "a data-modifying CTE (UPDATE in WITH)" },
  "set.union": {
    sql: 'SELECT "consumer" FROM (SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = ? UNION SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = ?) AS "tempest_set" ORDER BY "consumer" ASC',
    params: ["queued", "sent"],
  },
  "set.unionAllPartLimit": {
    sql: 'SELECT "id", "attempts" FROM (SELECT "id", "attempts" FROM (SELECT "id", "attempts" FROM "tempest_conformance_jobs" ORDER BY "attempts" DESC LIMIT 1) AS "tempest_part" UNION ALL SELECT "id", "attempts" FROM (SELECT "id", "attempts" FROM "tempest_conformance_jobs" ORDER BY "attempts" ASC LIMIT 1) AS "tempest_part") AS "tempest_set" ORDER BY "attempts" ASC',
    params: [],
  },
  "set.intersect": {
    sql: 'SELECT "consumer" FROM "tempest_conformance_jobs" INTERSECT SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = ?',
    params: ["sent"],
  },
  "set.except": {
    sql: 'SELECT "consumer" FROM "tempest_conformance_jobs" EXCEPT SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = ?',
    params: ["sent"],
  },
  "set.intersectAll": { unsupported: "INTERSECT ALL" },
  "set.exceptAll": { unsupported: "EXCEPT ALL" },
  "set.grouping": {
    sql: 'SELECT "consumer" FROM (SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = ? UNION SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = ?) AS "tempest_set" INTERSECT SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = ?',
    params: ["queued", "sent", "queued"],
  },
  "set.enumOrder": {
    sql: 'SELECT "status" FROM (SELECT "status" FROM "tempest_conformance_jobs" WHERE "consumer" = ? UNION SELECT "status" FROM "tempest_conformance_jobs" WHERE "consumer" = ?) AS "tempest_set" ORDER BY CASE "status" WHEN \'queued\' THEN 0 WHEN \'sending\' THEN 1 WHEN \'sent\' THEN 2 WHEN \'failed\' THEN 3 END DESC',
    params: ["billing", "mail"],
  },
  "cte.enumOrder": {
    sql: 'WITH "statuses" AS (SELECT "status" FROM "tempest_conformance_jobs" WHERE "consumer" = ? UNION SELECT "status" FROM "tempest_conformance_jobs" WHERE "consumer" = ?) SELECT "s"."status" FROM "statuses" AS "s" ORDER BY CASE "s"."status" WHEN \'queued\' THEN 0 WHEN \'sending\' THEN 1 WHEN \'sent\' THEN 2 WHEN \'failed\' THEN 3 END DESC',
    params: ["billing", "mail"],
  },
  "set.intersectAllThenExceptAll": { unsupported: "EXCEPT ALL" },
};

runConformanceSuite({ name: "SQLite", url: `sqlite://${join(dir, "conformance.db")}`, dialect: sqliteDialect, expected });
