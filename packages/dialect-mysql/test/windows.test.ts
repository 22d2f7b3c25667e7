import { createEngine, select, UnsupportedFeatureError } from "tempest-db-js";
import { ConformanceOrder as Order } from "tempest-db-js/testing";
import { describe, expect, it } from "vitest";
import { OFFLINE_MARIADB, OFFLINE_MYSQL } from "./support.js";

// The conformance suite runs the window cases on the server; these pin the text each server gets.
const maria = createEngine(OFFLINE_MARIADB);
const mysql8 = createEngine(OFFLINE_MYSQL);
const window = { partitionBy: ["o.customerId"], orderBy: [["o.shippedAt", "desc"], "o.id"] } as const;
const previous = select(Order, "o").columns((q) => ({ id: "o.id", previous: q.lag("o.total", { default: 0 }).over(window) }));

describe("window functions on MySQL and MariaDB", () => {
  it("MariaDB: LAG's default as a CASE in the same window, NULLs sorted last by an IS NULL key", () => {
    const over = "OVER (PARTITION BY `o`.`customer_id` ORDER BY `o`.`shipped_at` IS NULL DESC, `o`.`shipped_at` DESC, `o`.`id` ASC)";
    expect(maria.compile(previous)).toMatchObject({
      sql: `SELECT \`o\`.\`id\` AS \`id\`, CASE WHEN LAG(1, 1) ${over} IS NULL THEN ? ELSE LAG(\`o\`.\`total\`, 1) ${over} END AS \`previous\` FROM \`tempest_conformance_orders\` AS \`o\``,
      params: [0],
    });
  });

  it("MySQL 8: LAG's third argument", () => {
    expect(mysql8.compile(previous).sql).toContain("LAG(`o`.`total`, 1, ?) OVER (PARTITION BY `o`.`customer_id`");
  });

  it("GROUPS frames and a second window in one select are refused by name", () => {
    const groups = select(Order).columns((q) => ({
      n: q.count().over({ orderBy: ["status"], frame: { groups: ["unboundedPreceding", "currentRow"] } }),
    }));
    const two = select(Order).columns((q) => ({ a: q.rank().over({ orderBy: ["id"] }), b: q.count().over({}) }));
    for (const engine of [maria, mysql8]) {
      expect(() => engine.compile(groups)).toThrow(UnsupportedFeatureError);
      expect(() => engine.compile(groups)).toThrow(/GROUPS window frames/);
      expect(() => engine.compile(two)).toThrow(/2 different windows in one select/);
    }
  });
});
