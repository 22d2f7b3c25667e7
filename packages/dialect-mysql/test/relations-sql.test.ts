import type { QueryEvent } from "tempest-db-js";
import { createEngine, insert, op, select } from "tempest-db-js";
import { RelTicket, RelUser, relationModels } from "tempest-db-js/testing";
import { afterAll, beforeAll, expect, test } from "vitest";
import "../src/index.js";
import { TEST_URL } from "./support.js";

const events: QueryEvent[] = [];
const engine = createEngine(TEST_URL, { logParams: true, onQuery: (event) => events.push(event) });

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
    { sql: "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", params: [] },
    { sql: "START TRANSACTION READ ONLY", params: [] },
    {
      sql: "SELECT `id`, `title`, `status`, `estimate`, `opened_at`, `reporter_id`, `assignee_id`, `category_id` FROM `tempest_rel_tickets` WHERE `id` = ?",
      params: [10],
    },
    {
      sql: "SELECT `tempest_rel`.`id`, `tempest_rel`.`ticket_id`, `tempest_rel`.`author_id`, `tempest_rel`.`body`, `tempest_rel`.`likes`, `tempest_rel`.`posted_at` FROM (SELECT `tempest_rel_comments`.`id`, `tempest_rel_comments`.`ticket_id`, `tempest_rel_comments`.`author_id`, `tempest_rel_comments`.`body`, `tempest_rel_comments`.`likes`, `tempest_rel_comments`.`posted_at`, ROW_NUMBER() OVER (PARTITION BY `tempest_rel_comments`.`ticket_id` ORDER BY `tempest_rel_comments`.`likes` DESC, `tempest_rel_comments`.`id` ASC) AS `tempest_rn` FROM `tempest_rel_comments` WHERE `tempest_rel_comments`.`ticket_id` IN (SELECT j.v FROM JSON_TABLE(?, '$[*]' COLUMNS (v int PATH '$')) AS j) AND (`tempest_rel_comments`.`likes` >= ?)) AS `tempest_rel` WHERE `tempest_rel`.`tempest_rn` > 0 AND `tempest_rel`.`tempest_rn` <= 2 ORDER BY `tempest_rel`.`tempest_rn`",
      params: ["[10]", 5n],
    },
    {
      sql: "SELECT `tempest_rel_labels`.`id`, `tempest_rel_labels`.`color`, `tempest_rel_ticket_labels`.`ticket_id` AS `tempest_link` FROM `tempest_rel_labels` INNER JOIN `tempest_rel_ticket_labels` ON `tempest_rel_ticket_labels`.`label_id` = `tempest_rel_labels`.`id` WHERE `tempest_rel_ticket_labels`.`ticket_id` IN (SELECT j.v FROM JSON_TABLE(?, '$[*]' COLUMNS (v int PATH '$')) AS j) ORDER BY `tempest_rel_labels`.`id` ASC",
      params: ["[10]"],
    },
    {
      sql: "SELECT `tempest_rel_comments`.`ticket_id` AS `tempest_link`, COUNT(*) AS `tempest_count` FROM `tempest_rel_comments` WHERE `tempest_rel_comments`.`ticket_id` IN (SELECT j.v FROM JSON_TABLE(?, '$[*]' COLUMNS (v int PATH '$')) AS j) GROUP BY `tempest_rel_comments`.`ticket_id`",
      params: ["[10]"],
    },
    { sql: "COMMIT", params: [] },
  ]);
});
