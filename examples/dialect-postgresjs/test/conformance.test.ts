import { postgresConformanceSql } from "@tempest-db-js/dialect-postgres/testing";
import type { ConformanceTarget, ExpectedStatement } from "tempest-db-js/testing";
import { runConformanceSuite, T0, T1 } from "tempest-db-js/testing";
import { postgresJsDialect } from "../src/index.js";
import { POSTGRESJS_URL } from "./postgresjs-url.js";

const dates = new Map([T0, T1].map((date) => [date.toISOString(), date]));

/** The same statement, with its timestamps bound as the Date objects postgres.js takes (pg's codec binds ISO text). */
function withDates(statement: ExpectedStatement): ExpectedStatement {
  if (!("sql" in statement)) return statement;
  return { sql: statement.sql, params: statement.params.map((param) => (typeof param === "string" && dates.get(param)) || param) };
}
const pgSql = Object.fromEntries(
  Object.entries(postgresConformanceSql).map(([id, statement]) => [id, withDates(statement)]),
) as ConformanceTarget["expected"];

/**
 * Reviewed line by line from describeConformanceSql(engine): what this dialect must compile each case to.
 * The pg dialect's table (a dev dependency, for this test only), timestamps as dates, but for the entries below.
 */
const expected: ConformanceTarget["expected"] = {
  ...pgSql,
  // An IN list is one placeholder per value here, where the pg dialect binds one array.
  "select.operators": {
    sql: 'SELECT "id" FROM "tempest_conformance_jobs" WHERE "status" IN ($1, $2) OR ("idempotency_key" IS NULL AND NOT ("attempts" BETWEEN $3 AND $4)) ORDER BY "id" ASC',
    params: ["sending", "sent", 0, 1],
  },
  // The database's own collation for text columns and ILIKE, where the pg dialect asks for "C".
  "select.ilike": {
    sql: 'SELECT "id" FROM "tempest_conformance_jobs" WHERE "consumer" ILIKE $1',
    params: ["MAIL"],
  },
  // An interval from seconds written as a product, where the pg dialect calls make_interval.
  "update.expressions": {
    sql: 'UPDATE "tempest_conformance_jobs" SET "attempts" = attempts + 1, "updated_at" = now(), "next_attempt_at" = (now() + $1 * interval \'1 second\') WHERE "id" = $2',
    params: [30, "00000000-0000-4000-8000-000000000001"],
  },
  "ddl.createTable": {
    sql: 'CREATE TABLE "tempest_conformance_jobs" ("id" uuid NOT NULL, "consumer" text NOT NULL, "idempotency_key" text, "status" text NOT NULL, "attempts" integer NOT NULL DEFAULT 0, "next_attempt_at" timestamptz(3) NOT NULL, "updated_at" timestamptz(3), PRIMARY KEY ("id"), CHECK ("status" IN (\'queued\', \'sending\', \'sent\', \'failed\')))',
    params: [],
  },
  // This compiler writes PostgreSQL's default NULLS FIRST of a descending nullable CTE column out, where the
  // pg dialect leaves it implied: the same order.
  "cte.select": {
    sql: 'WITH "queued" AS (SELECT "j"."id" AS "id", "j"."consumer" AS "consumer", "j"."attempts" AS "attempts" FROM "tempest_conformance_jobs" AS "j" WHERE "j"."status" = $1) SELECT "q"."id", "q"."consumer", "q"."attempts" FROM "queued" AS "q" WHERE "q"."attempts" >= $2 ORDER BY "q"."attempts" DESC NULLS FIRST',
    params: ["queued", 0],
  },
  "cte.recursive": {
    sql: 'WITH RECURSIVE "countdown" AS (SELECT "j"."id" AS "id", "j"."attempts" AS "attempts" FROM "tempest_conformance_jobs" AS "j" WHERE "j"."id" = $1 UNION ALL SELECT "j"."id" AS "id", "j"."attempts" AS "attempts" FROM "tempest_conformance_jobs" AS "j" INNER JOIN "countdown" AS "c" ON ("j"."attempts" = "c"."attempts" - 1)) SELECT "c"."id", "c"."attempts" FROM "countdown" AS "c" ORDER BY "c"."attempts" DESC NULLS FIRST',
    params: ["00000000-0000-4000-8000-000000000002"],
  },
};

// This driver has no stream() (optional in dialect contract 3): the suite checks that streams are refused.
runConformanceSuite({ name: "PostgreSQL over postgres.js", url: POSTGRESJS_URL, dialect: postgresJsDialect, expected, streams: false });
