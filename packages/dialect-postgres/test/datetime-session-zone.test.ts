import { column, createEngine, insert, Model, select, sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresDialect } from "../src/index.js";
import { PG_URL } from "./pg-url.js";

class Stamp extends Model {
  static tablename = "tempest_pg_zone_stamps";
  id = column.integer().primaryKey();
  at = column.datetime().notNull();
}

const engine = createEngine(PG_URL, { dialect: postgresDialect, poolSize: 2 });
// The day Amsterdam moves its clocks forward, São Paulo's day boundary, and Kathmandu's quarter-hour offset.
const stamps = [
  { id: 1, at: new Date("2026-03-28T12:00:00.000Z") },
  { id: 2, at: new Date("2026-01-05T02:30:00.000Z") },
  { id: 3, at: new Date("2025-12-31T20:00:00.000Z") },
];

beforeAll(async () => {
  await engine.dropAll([Stamp]);
  await engine.createAll([Stamp]);
  await engine.execute(insert(Stamp).values(stamps)).rowsAffected();
});
afterAll(async () => {
  await engine.dropAll([Stamp]);
  await engine.close();
});

const query = select(Stamp)
  .columns((q) => ({
    id: "id",
    day: q.dateTrunc("day", "at"),
    week: q.dateTrunc("week", "at"),
    year: q.dateTrunc("year", "at"),
    hour: q.extract("hour", "at"),
    dow: q.extract("isoDayOfWeek", "at"),
    nextDay: q.addInterval("at", 1, "days"),
    nextMonth: q.addInterval("at", 1, "months"),
    sinceDay: q.diffSeconds("at", q.dateTrunc("day", "at")),
  }))
  .orderBy("id");

describe("date and time functions do not depend on the session's TimeZone", () => {
  it("writes each instant AT TIME ZONE 'UTC' before it is cut, read or shifted", () => {
    const { sql: text, params } = engine.compile(query);
    expect({ sql: text, params }).toMatchInlineSnapshot(`
      {
        "params": [
          1,
          1,
        ],
        "sql": "SELECT "tempest_pg_zone_stamps"."id" AS "id", (DATE_TRUNC('day', "tempest_pg_zone_stamps"."at" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') AS "day", (DATE_TRUNC('week', "tempest_pg_zone_stamps"."at" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') AS "week", (DATE_TRUNC('year', "tempest_pg_zone_stamps"."at" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') AS "year", CAST(FLOOR(EXTRACT(HOUR FROM "tempest_pg_zone_stamps"."at" AT TIME ZONE 'UTC')) AS BIGINT) AS "hour", CAST(FLOOR(EXTRACT(ISODOW FROM "tempest_pg_zone_stamps"."at" AT TIME ZONE 'UTC')) AS BIGINT) AS "dow", NULLIF(NULLIF(GREATEST(LEAST(((("tempest_pg_zone_stamps"."at" AT TIME ZONE 'UTC') + CAST($1 AS BIGINT) * INTERVAL '1 day') AT TIME ZONE 'UTC'), TIMESTAMPTZ '10000-01-01 00:00:00+00'), TIMESTAMPTZ '0001-12-31 23:59:59.999+00 BC'), TIMESTAMPTZ '10000-01-01 00:00:00+00'), TIMESTAMPTZ '0001-12-31 23:59:59.999+00 BC') AS "nextDay", NULLIF(NULLIF(GREATEST(LEAST(((("tempest_pg_zone_stamps"."at" AT TIME ZONE 'UTC') + CAST($2 AS BIGINT) * INTERVAL '1 month') AT TIME ZONE 'UTC'), TIMESTAMPTZ '10000-01-01 00:00:00+00'), TIMESTAMPTZ '0001-12-31 23:59:59.999+00 BC'), TIMESTAMPTZ '10000-01-01 00:00:00+00'), TIMESTAMPTZ '0001-12-31 23:59:59.999+00 BC') AS "nextMonth", (CAST((CAST(EXTRACT(EPOCH FROM "tempest_pg_zone_stamps"."at") * 1000 AS BIGINT) - CAST(EXTRACT(EPOCH FROM (DATE_TRUNC('day', "tempest_pg_zone_stamps"."at" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')) * 1000 AS BIGINT)) AS DOUBLE PRECISION) / 1000) AS "sinceDay" FROM "tempest_pg_zone_stamps" ORDER BY "tempest_pg_zone_stamps"."id" ASC",
      }
    `);
  });

  it("the same rows in UTC, Europe/Amsterdam, America/Sao_Paulo and Asia/Kathmandu sessions", async () => {
    const inUtc = await engine.transaction(async (tx) => {
      await tx.execute(sql.raw("SET LOCAL TIME ZONE 'UTC'")).rowsAffected();
      return tx.execute(query).all();
    });
    expect(inUtc[0]).toEqual({
      id: 1,
      day: new Date("2026-03-28T00:00:00.000Z"),
      week: new Date("2026-03-23T00:00:00.000Z"),
      year: new Date("2026-01-01T00:00:00.000Z"),
      hour: 12,
      dow: 6,
      // 24 hours later in UTC, although Amsterdam's day in between has 23.
      nextDay: new Date("2026-03-29T12:00:00.000Z"),
      nextMonth: new Date("2026-04-28T12:00:00.000Z"),
      sinceDay: 43_200,
    });
    for (const zone of ["Europe/Amsterdam", "America/Sao_Paulo", "Asia/Kathmandu"]) {
      const rows = await engine.transaction(async (tx) => {
        await tx.execute(sql.raw(`SET LOCAL TIME ZONE '${zone}'`)).rowsAffected();
        return tx.execute(query).all();
      });
      expect(rows, zone).toEqual(inUtc);
    }
    // The comparison that shows why: PostgreSQL's own date_trunc follows the session.
    const local = await engine.transaction(async (tx) => {
      await tx.execute(sql.raw("SET LOCAL TIME ZONE 'Asia/Kathmandu'")).rowsAffected();
      return tx.execute(sql.typed(sql.raw("SELECT date_trunc('day', '2026-01-05T02:30:00Z'::timestamptz) AS d"), { d: "datetime" })).one();
    });
    expect(local.d).toEqual(new Date("2026-01-04T18:15:00.000Z"));
    expect(inUtc[1]?.day).toEqual(new Date("2026-01-05T00:00:00.000Z"));
  });
});
