import { createEngine, insert, select, UnsupportedFeatureError } from "tempest-db-js";
import { ConformanceOrder as Order, shopOrders } from "tempest-db-js/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MysqlCompiler, mysqlCapabilities } from "../src/index.js";
import { closeEngines, OFFLINE_MARIADB, testEngine } from "./support.js";

// MariaDB runs a chain of set operators in one temporary table, and its code for INTERSECT ALL /
// EXCEPT ALL in such a chain misbehaves: 10.11.19 loops forever on `SELECT 1 INTERSECT ALL SELECT 2
// EXCEPT ALL SELECT 1` (KILL and max_statement_time do not stop it), and MDEV-38722 crashes on
// `SELECT 1 INTERSECT SELECT 1 UNION ALL SELECT 1 EXCEPT ALL SELECT 1`. So there the chain before an
// INTERSECT ALL / EXCEPT ALL is a derived table. The conformance case `set.intersectAllThenExceptAll`
// pins the first shape; these pin the others, then run them all on the server.

const maria = createEngine(OFFLINE_MARIADB);
const mysql8031 = new MysqlCompiler(mysqlCapabilities({ flavor: "mysql", major: 8, minor: 0, patch: 31 }));

type Status = "open" | "paid" | "shipped";
/** The shop has two orders of each status, so every part holds duplicates. */
const part = (...statuses: Status[]) => select(Order, ["status"]).where({ status: { in: statuses } });
const text = (n: number) =>
  `SELECT \`status\` FROM \`tempest_conformance_orders\` WHERE \`status\` IN (${Array.from({ length: n }, () => "?").join(", ")})`;
const derived = (sql: string) => `SELECT \`status\` FROM (${sql}) AS \`tempest_set\``;

// Each chain's rows worked out by hand, left to right (o, p, s: two open, paid, shipped orders).
const chains = {
  // (oopp ∩ ppss) - oo: the hang's shape, with a row of the left part that the intersection dropped.
  intersectAllExceptAll: {
    build: () => part("open", "paid").intersectAll(part("paid", "shipped")).exceptAll(part("open")),
    mariadb: `${derived(`${text(2)} INTERSECT ALL ${text(2)}`)} EXCEPT ALL ${text(1)}`,
    rows: ["paid", "paid"],
  },
  // MDEV-38722's shape: ((oo ∩ oopp) ∪ oo) - oo = (o + oo) - oo.
  intersectUnionAllExceptAll: {
    build: () => part("open").intersect(part("open", "paid")).unionAll(part("open")).exceptAll(part("open")),
    mariadb: `${derived(`${text(1)} INTERSECT ${text(2)} UNION ALL ${text(1)}`)} EXCEPT ALL ${text(1)}`,
    rows: ["open"],
  },
  // (oopp ∩ pp) ∩ ppss: INTERSECT ALL after INTERSECT ALL.
  intersectAllTwice: {
    build: () => part("open", "paid").intersectAll(part("paid")).intersectAll(part("paid", "shipped")),
    mariadb: `${derived(`${text(2)} INTERSECT ALL ${text(1)}`)} INTERSECT ALL ${text(2)}`,
    rows: ["paid", "paid"],
  },
  // A DISTINCT operator after INTERSECT ALL keeps the flat chain (MariaDB answers it right): (oopp ∩ ppss) - ss.
  intersectAllExcept: {
    build: () => part("open", "paid").intersectAll(part("paid", "shipped")).except(part("shipped")),
    mariadb: `${text(2)} INTERSECT ALL ${text(2)} EXCEPT ${text(1)}`,
    rows: ["paid"],
  },
};

describe("set operator chains on MariaDB", () => {
  for (const [name, chain] of Object.entries(chains)) {
    it(`${name}: the text MariaDB gets`, () => {
      expect(maria.compile(chain.build()).sql).toBe(chain.mariadb);
    });
  }

  it("MySQL 8.0.31 keeps the chain flat (its INTERSECT ALL / EXCEPT ALL are not measured here)", () => {
    const { sql } = mysql8031.compile(chains.intersectAllExceptAll.build().toNode());
    expect(sql).toBe(`${text(2)} INTERSECT ALL ${text(2)} EXCEPT ALL ${text(1)}`);
  });
});

describe("set operator chains on the server", () => {
  const engine = testEngine({ poolSize: 1 });
  beforeAll(async () => {
    await engine.dropAll([Order]);
    await engine.createAll([Order]);
    await engine.execute(insert(Order).values(shopOrders)).rowsAffected();
  });
  afterAll(async () => {
    await engine.dropAll([Order]);
    await closeEngines();
  });

  for (const [name, chain] of Object.entries(chains)) {
    it(`${name}: the rows of the chain, left to right`, async () => {
      if (!engine.capabilities.intersectAll) {
        expect(() => engine.compile(chain.build())).toThrow(UnsupportedFeatureError);
        return;
      }
      const rows = await engine.execute(chain.build()).all();
      expect(rows.map((r) => r.status).sort()).toEqual(chain.rows);
    });
  }
});
