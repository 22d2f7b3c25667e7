import type { ConformanceTarget } from "tempest-db-js/testing";

/**
 * The SQL text and parameters this dialect compiles every conformance case to, reviewed line by line:
 * the `expected` of its own conformance run. A PostgreSQL dialect over another driver can spread it
 * and override the entries it writes differently.
 */
export const postgresConformanceSql: ConformanceTarget["expected"] = {
  "insert.values": {
    sql: 'INSERT INTO "tempest_conformance_jobs" ("id", "consumer", "idempotency_key", "status", "attempts", "next_attempt_at") VALUES ($1, $2, $3, $4, $5, $6), ($7, $8, $9, $10, $11, $12), ($13, $14, $15, $16, $17, $18), ($19, $20, $21, $22, $23, $24)',
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
    sql: 'INSERT INTO "tempest_conformance_jobs" ("id", "consumer", "status", "next_attempt_at") VALUES ($1, $2, $3, $4) RETURNING "id", "consumer", "idempotency_key", "status", "attempts", "next_attempt_at", "updated_at"',
    params: ["00000000-0000-4000-8000-0000000000aa", "sms", "queued", "2026-01-02T03:04:05.678Z"],
  },
  "select.where": {
    sql: 'SELECT "id", "attempts" FROM "tempest_conformance_jobs" WHERE "consumer" = $1 AND "attempts" >= $2 ORDER BY "next_attempt_at" DESC, "id" ASC LIMIT 5 OFFSET 0',
    params: ["billing", 0],
  },
  "select.operators": {
    // An IN list is one array parameter on PostgreSQL: the text does not depend on the list's length.
    sql: 'SELECT "id" FROM "tempest_conformance_jobs" WHERE "status" = ANY($1) OR ("idempotency_key" IS NULL AND NOT ("attempts" BETWEEN $2 AND $3)) ORDER BY "id" ASC',
    params: [["sending", "sent"], 0, 1],
  },
  "select.like": {
    sql: 'SELECT "id" FROM "tempest_conformance_jobs" WHERE "consumer" LIKE $1 AND "idempotency_key" IS NOT NULL',
    params: ["bill%"],
  },
  "select.likeEscape": {
    sql: 'SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "consumer" LIKE $1',
    params: ["a\\_b\\%"],
  },
  "select.ilike": {
    sql: 'SELECT "id" FROM "tempest_conformance_jobs" WHERE "consumer" ILIKE $1 COLLATE "C"',
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
  "select.forUpdateSkipLocked": {
    sql: 'SELECT "id" FROM "tempest_conformance_jobs" WHERE "status" = $1 ORDER BY "next_attempt_at" ASC LIMIT 10 FOR UPDATE SKIP LOCKED',
    params: ["queued"],
  },
  "select.forUpdateNoWait": {
    sql: 'SELECT "id" FROM "tempest_conformance_jobs" WHERE "status" = $1 ORDER BY "next_attempt_at" ASC LIMIT 10 FOR UPDATE NOWAIT',
    params: ["queued"],
  },
  "select.forUpdateOf": {
    sql: 'SELECT "id" FROM "tempest_conformance_jobs" WHERE "status" = $1 ORDER BY "next_attempt_at" ASC LIMIT 10 FOR UPDATE OF "tempest_conformance_jobs"',
    params: ["queued"],
  },
  "select.forShare": {
    sql: 'SELECT "id" FROM "tempest_conformance_jobs" WHERE "status" = $1 ORDER BY "next_attempt_at" ASC LIMIT 10 FOR SHARE',
    params: ["queued"],
  },
  "update.expressions": {
    sql: 'UPDATE "tempest_conformance_jobs" SET "attempts" = attempts + 1, "updated_at" = now(), "next_attempt_at" = (now() + make_interval(secs => $1)) WHERE "id" = $2',
    params: [30, "00000000-0000-4000-8000-000000000001"],
  },
  "update.template": {
    sql: 'UPDATE "tempest_conformance_jobs" SET "attempts" = attempts + $1 WHERE "id" = $2',
    params: [5, "00000000-0000-4000-8000-000000000002"],
  },
  "update.returning": {
    sql: 'UPDATE "tempest_conformance_jobs" SET "status" = $1 WHERE "id" = $2 RETURNING "id", "status"',
    params: ["sending", "00000000-0000-4000-8000-000000000002"],
  },
  "update.claimSubquery": {
    sql: 'UPDATE "tempest_conformance_jobs" SET "status" = $1, "attempts" = attempts + 1, "updated_at" = now() WHERE "id" = ANY(ARRAY(SELECT "id" FROM "tempest_conformance_jobs" WHERE "status" = $2 ORDER BY "next_attempt_at" ASC LIMIT 1 FOR UPDATE SKIP LOCKED)) RETURNING "id", "attempts"',
    params: ["sending", "queued"],
  },
  "update.claimSubqueryUnlocked": {
    sql: 'UPDATE "tempest_conformance_jobs" SET "status" = $1 WHERE "id" = ANY(ARRAY(SELECT "id" FROM "tempest_conformance_jobs" WHERE "status" = $2 ORDER BY "next_attempt_at" ASC LIMIT 1))',
    params: ["sending", "queued"],
  },
  "insert.onConflictDoNothing": {
    sql: 'INSERT INTO "tempest_conformance_jobs" ("id", "consumer", "idempotency_key", "status", "next_attempt_at") VALUES ($1, $2, $3, $4, $5) ON CONFLICT ("consumer", "idempotency_key") WHERE "idempotency_key" IS NOT NULL DO NOTHING',
    params: ["00000000-0000-4000-8000-0000000000aa", "billing", "k1", "queued", "2026-01-02T03:04:06.789Z"],
  },
  "insert.onConflictDoUpdate": {
    sql: 'INSERT INTO "tempest_conformance_jobs" ("id", "consumer", "idempotency_key", "status", "next_attempt_at") VALUES ($1, $2, $3, $4, $5) ON CONFLICT ("consumer", "idempotency_key") WHERE "idempotency_key" IS NOT NULL DO UPDATE SET "status" = $6, "next_attempt_at" = $7 WHERE "tempest_conformance_jobs"."attempts" < $8',
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
    sql: 'INSERT INTO "tempest_conformance_jobs" ("id", "consumer", "idempotency_key", "status", "next_attempt_at") VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
    params: ["00000000-0000-4000-8000-000000000001", "billing", "other", "queued", "2026-01-02T03:04:06.789Z"],
  },
  "insert.onDuplicateKeyUpdate": { unsupported: "ON DUPLICATE KEY UPDATE" },
  "delete.where": {
    sql: 'DELETE FROM "tempest_conformance_jobs" WHERE "consumer" = $1',
    params: ["mail"],
  },
  "delete.returning": {
    sql: 'DELETE FROM "tempest_conformance_jobs" WHERE "status" = $1 RETURNING "id"',
    params: ["sent"],
  },
  "ddl.createTable": {
    sql: 'CREATE TABLE "tempest_conformance_jobs" ("id" uuid NOT NULL, "consumer" text COLLATE "C" NOT NULL, "idempotency_key" text COLLATE "C", "status" text NOT NULL, "attempts" integer NOT NULL DEFAULT 0, "next_attempt_at" timestamptz(3) NOT NULL, "updated_at" timestamptz(3), PRIMARY KEY ("id"), CHECK ("status" IN (\'queued\', \'sending\', \'sent\', \'failed\')))',
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
    sql: 'WITH "queued" AS (SELECT "j"."id" AS "id", "j"."consumer" AS "consumer", "j"."attempts" AS "attempts" FROM "tempest_conformance_jobs" AS "j" WHERE "j"."status" = $1) SELECT "q"."id", "q"."consumer", "q"."attempts" FROM "queued" AS "q" WHERE "q"."attempts" >= $2 ORDER BY "q"."attempts" DESC',
    params: ["queued", 0],
  },
  "cte.join": {
    sql: 'WITH "per_consumer" AS (SELECT "j"."consumer" AS "consumer", COUNT(*) AS "jobs" FROM "tempest_conformance_jobs" AS "j" GROUP BY "j"."consumer") SELECT "j"."id" AS "id", "p"."jobs" AS "jobs" FROM "tempest_conformance_jobs" AS "j" INNER JOIN "per_consumer" AS "p" ON "p"."consumer" = "j"."consumer" ORDER BY "j"."id" ASC',
    params: [],
  },
  "cte.recursive": {
    sql: 'WITH RECURSIVE "countdown" AS (SELECT "j"."id" AS "id", "j"."attempts" AS "attempts" FROM "tempest_conformance_jobs" AS "j" WHERE "j"."id" = $1 UNION ALL SELECT "j"."id" AS "id", "j"."attempts" AS "attempts" FROM "tempest_conformance_jobs" AS "j" INNER JOIN "countdown" AS "c" ON ("j"."attempts" = "c"."attempts" - 1)) SELECT "c"."id", "c"."attempts" FROM "countdown" AS "c" ORDER BY "c"."attempts" DESC',
    params: ["00000000-0000-4000-8000-000000000002"],
  },
  "cte.materialized": {
    sql: 'WITH "once" AS MATERIALIZED (SELECT "id", "status" FROM "tempest_conformance_jobs" WHERE "consumer" = $1) SELECT "id", "status" FROM "once" ORDER BY "id" ASC',
    params: ["billing"],
  },
  "cte.notMaterialized": {
    sql: 'WITH "inline" AS NOT MATERIALIZED (SELECT "id" FROM "tempest_conformance_jobs" WHERE "status" = $1) SELECT "id" FROM "inline"',
    params: ["sent"],
  },
  "cte.dataModifying": {
    sql: 'WITH "claimed" AS (UPDATE "tempest_conformance_jobs" SET "status" = $1 WHERE "status" = $2 RETURNING "id", "status") SELECT "id", "status" FROM "claimed" ORDER BY "id" ASC',
    params: ["sending", "queued"],
  },
  "set.union": {
    sql: 'SELECT "consumer" FROM (SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = $1 UNION SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = $2) AS "tempest_set" ORDER BY "consumer" ASC',
    params: ["queued", "sent"],
  },
  "set.unionAllPartLimit": {
    sql: 'SELECT "id", "attempts" FROM ((SELECT "id", "attempts" FROM "tempest_conformance_jobs" ORDER BY "attempts" DESC LIMIT 1) UNION ALL (SELECT "id", "attempts" FROM "tempest_conformance_jobs" ORDER BY "attempts" ASC LIMIT 1)) AS "tempest_set" ORDER BY "attempts" ASC',
    params: [],
  },
  "set.intersect": {
    sql: 'SELECT "consumer" FROM "tempest_conformance_jobs" INTERSECT SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = $1',
    params: ["sent"],
  },
  "set.except": {
    sql: 'SELECT "consumer" FROM "tempest_conformance_jobs" EXCEPT SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = $1',
    params: ["sent"],
  },
  "set.intersectAll": {
    sql: 'SELECT "consumer" FROM (SELECT "consumer" FROM "tempest_conformance_jobs" INTERSECT ALL SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = $1) AS "tempest_set" ORDER BY "consumer" ASC',
    params: ["queued"],
  },
  "set.exceptAll": {
    sql: 'SELECT "consumer" FROM "tempest_conformance_jobs" EXCEPT ALL SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = $1',
    params: ["queued"],
  },
  "set.grouping": {
    sql: 'SELECT "consumer" FROM (SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = $1 UNION SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = $2) AS "tempest_set" INTERSECT SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = $3',
    params: ["queued", "sent", "queued"],
  },
  "set.enumOrder": {
    sql: 'SELECT "status" FROM (SELECT "status" FROM "tempest_conformance_jobs" WHERE "consumer" = $1 UNION SELECT "status" FROM "tempest_conformance_jobs" WHERE "consumer" = $2) AS "tempest_set" ORDER BY CASE "status" WHEN \'queued\' THEN 0 WHEN \'sending\' THEN 1 WHEN \'sent\' THEN 2 WHEN \'failed\' THEN 3 END DESC',
    params: ["billing", "mail"],
  },
  "cte.enumOrder": {
    sql: 'WITH "statuses" AS (SELECT "status" FROM "tempest_conformance_jobs" WHERE "consumer" = $1 UNION SELECT "status" FROM "tempest_conformance_jobs" WHERE "consumer" = $2) SELECT "s"."status" FROM "statuses" AS "s" ORDER BY CASE "s"."status" WHEN \'queued\' THEN 0 WHEN \'sending\' THEN 1 WHEN \'sent\' THEN 2 WHEN \'failed\' THEN 3 END DESC',
    params: ["billing", "mail"],
  },
  "set.intersectAllThenExceptAll": {
    sql: 'SELECT "consumer" FROM "tempest_conformance_jobs" INTERSECT ALL SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = $1 EXCEPT ALL SELECT "consumer" FROM "tempest_conformance_jobs" WHERE "status" = $2',
    params: ["queued", "sent"],
  },
};
