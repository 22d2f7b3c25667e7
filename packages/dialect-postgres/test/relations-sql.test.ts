import type { QueryEvent } from "tempest-db-js";
import { createEngine, insert, op, select } from "tempest-db-js";
import { RelTicket, RelUser, relationModels } from "tempest-db-js/testing";
import { afterAll, beforeAll, expect, test } from "vitest";
import "../src/index.js";
import { PG_URL } from "./pg-url.js";

const events: QueryEvent[] = [];
const engine = createEngine(PG_URL, { logParams: true, onQuery: (event) => events.push(event) });

beforeAll(async () => {
  await engine.dropAll(relationModels);
  await engine.createAll(relationModels);
  await engine.execute(insert(RelUser).values({ id: 1, name: "Ada", joinedAt: new Date(0) })).rowsAffected();
  await engine
    .execute(insert(RelTicket).values({ id: 10, title: "t", status: "open", openedAt: new Date(0), reporterId: 1 }))
    .rowsAffected();
});

afterAll(async () => {
  await engine.dropAll(relationModels);
  await engine.close();
});

/** The statements a load sends on this dialect, exactly: the keys as one parameter, the per-row limit. */
test("a relation load's statements", async () => {
  events.length = 0;
  await engine
    .execute(
      select(RelTicket)
        .where({ id: 10 })
        .with({
          comments: (c) =>
            c
              .where({ likes: op.gte(5n) })
              .orderBy("likes", "desc")
              .limit(2),
          labels: true,
        })
        .withCount({ comments: true }),
    )
    .all();
  expect(events.map((e) => ({ sql: e.sql, params: e.params }))).toEqual([
    { sql: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", params: [] },
    {
      sql: 'SELECT "id", "title", "status", "estimate", "opened_at", "reporter_id", "assignee_id", "category_id" FROM "tempest_rel_tickets" WHERE "id" = $1',
      params: [10],
    },
    {
      sql: 'SELECT "tempest_rel"."id", "tempest_rel"."ticket_id", "tempest_rel"."author_id", "tempest_rel"."body", "tempest_rel"."likes", "tempest_rel"."posted_at" FROM (SELECT DISTINCT "tempest_rel_tickets"."id" AS "tempest_key" FROM "tempest_rel_tickets" WHERE "tempest_rel_tickets"."id" = ANY($1)) AS "tempest_owner" CROSS JOIN LATERAL (SELECT "tempest_rel_comments"."id", "tempest_rel_comments"."ticket_id", "tempest_rel_comments"."author_id", "tempest_rel_comments"."body", "tempest_rel_comments"."likes", "tempest_rel_comments"."posted_at", ROW_NUMBER() OVER (ORDER BY "tempest_rel_comments"."likes" DESC, "tempest_rel_comments"."id" ASC) AS "tempest_rn" FROM "tempest_rel_comments" WHERE "tempest_rel_comments"."ticket_id" = "tempest_owner"."tempest_key" AND ("tempest_rel_comments"."likes" >= $2) ORDER BY "tempest_rel_comments"."likes" DESC, "tempest_rel_comments"."id" ASC LIMIT 2) AS "tempest_rel" ORDER BY "tempest_rel"."tempest_rn"',
      params: [[10], "5"],
    },
    {
      sql: 'SELECT "tempest_rel_labels"."id", "tempest_rel_labels"."color", "tempest_rel_ticket_labels"."ticket_id" AS "tempest_link" FROM "tempest_rel_labels" INNER JOIN "tempest_rel_ticket_labels" ON "tempest_rel_ticket_labels"."label_id" = "tempest_rel_labels"."id" WHERE "tempest_rel_ticket_labels"."ticket_id" = ANY($1) ORDER BY "tempest_rel_labels"."id" ASC',
      params: [[10]],
    },
    {
      sql: 'SELECT "tempest_rel_comments"."ticket_id" AS "tempest_link", COUNT(*) AS "tempest_count" FROM "tempest_rel_comments" WHERE "tempest_rel_comments"."ticket_id" = ANY($1) GROUP BY "tempest_rel_comments"."ticket_id"',
      params: [[10]],
    },
    { sql: "COMMIT", params: [] },
  ]);
});
