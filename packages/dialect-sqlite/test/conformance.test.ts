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
};

runConformanceSuite({ name: "SQLite", url: `sqlite://${join(dir, "conformance.db")}`, dialect: sqliteDialect, expected });
