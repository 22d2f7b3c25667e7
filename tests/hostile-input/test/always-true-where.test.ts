import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine, QueryEvent } from "tempest-db-js";
import { and, column, createEngine, deleteFrom, insert, Model, not, op, or, select, sql, update, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { MYSQL_URL, PG_URL } from "./support/targets.js";

/**
 * update / deleteFrom without a where are refused unless .allRows() says so. A where that holds for
 * every row, however it is spelt (an empty object from a request, `not(in [])`, IS NOT NULL on a NOT
 * NULL column, `like "%"`), is no where at all: refused the same way, on either operators mode.
 */
class Member extends Model {
  static tablename = "tempest_always_true_members";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  name = column.text().notNull();
  nickname = column.text();
  score = column.integer().notNull();
}

const sqliteDir = mkdtempSync(join(tmpdir(), "tempest-always-true-"));
const databases = [
  { name: "PostgreSQL", url: PG_URL },
  { name: "MariaDB", url: MYSQL_URL },
  { name: "SQLite", url: `sqlite://${join(sqliteDir, "always-true.db")}` },
];

const ROWS = [
  { id: 1, name: "ann", nickname: null, score: 1 },
  { id: 2, name: "ben", nickname: "b", score: 2 },
  { id: 3, name: "cy", nickname: null, score: 3 },
];

/** Conditions true for every row of Member, the way a careless caller or a request body spells them. */
const ALWAYS_TRUE: [string, () => unknown][] = [
  ['{} from JSON.parse("{}")', () => JSON.parse("{}")],
  ['or(JSON.parse("{}"), { id: 1 })', () => or(JSON.parse("{}"), { id: 1 })],
  ["not({ id: op.in([]) })", () => not({ id: op.in([]) })],
  ["{ id: op.notIn([]) }", () => ({ id: op.notIn([]) })],
  ["{ id: { notIn: [] } } from JSON", () => JSON.parse('{"id": {"notIn": []}}')],
  ["and(or({ id: 1 }, not(or())), {})", () => and(or({ id: 1 }, not(or())), {})],
  ["not(not({}))", () => not(not({}))],
  ["{ name: op.isNull(false) } (name is NOT NULL)", () => ({ name: op.isNull(false) })],
  ["not({ id: op.isNull() }) (id is the primary key)", () => not({ id: op.isNull() })],
  ['{ name: op.like("%") }', () => ({ name: op.like("%") })],
  ['{ name: op.ilike("%%") }', () => ({ name: op.ilike("%%") })],
  ["or({ score: 1 }, not({ id: op.in([]) }))", () => or({ score: 1 }, not({ id: op.in([]) }))],
];

describe.each(databases)("$name: a where that holds for every row is no where", ({ url }) => {
  const engines: Record<string, Engine> = {};
  const sent: QueryEvent[] = [];

  beforeAll(async () => {
    for (const operators of ["plain-objects", "helpers-only"] as const)
      engines[operators] = createEngine(url, { poolSize: 2, operators, onQuery: (event) => sent.push(event) });
    await engines["plain-objects"]?.dropAll([Member]);
    await engines["plain-objects"]?.createAll([Member]);
  });

  beforeEach(async () => {
    const engine = engines["plain-objects"] as Engine;
    await engine.execute(deleteFrom(Member).allRows()).rowsAffected();
    await engine.execute(insert(Member).values(ROWS)).rowsAffected();
  });

  afterAll(async () => {
    await engines["plain-objects"]?.dropAll([Member]);
    for (const engine of Object.values(engines)) await engine.close();
  });

  it.each(ALWAYS_TRUE)("%s: update and delete are refused before anything is sent, in both modes", async (_, where) => {
    for (const engine of Object.values(engines)) {
      sent.length = 0;
      expect(() =>
        engine.execute(
          update(Member)
            .set({ score: 0 })
            .where(where() as never),
        ),
      ).toThrow(ValidationError);
      expect(() =>
        engine.execute(
          update(Member)
            .set({ score: 0 })
            .where(where() as never),
        ),
      ).toThrow(/update\(Member\) has a where that holds for every row.*allRows/);
      expect(() => engine.execute(deleteFrom(Member).where(where() as never))).toThrow(
        /deleteFrom\(Member\) has a where that holds for every row/,
      );
      expect(sent).toEqual([]);
    }
    expect(await engines["plain-objects"]?.execute(select(Member).orderBy("id")).all()).toEqual(ROWS);
  });

  it("conditions that depend on the row still run; allRows() still opts in", async () => {
    const engine = engines["helpers-only"] as Engine;
    expect(
      await engine
        .execute(
          update(Member)
            .set({ score: 9 })
            .where({ nickname: op.isNull(false) }),
        )
        .rowsAffected(),
    ).toBe(1);
    expect(
      await engine
        .execute(
          update(Member)
            .set({ score: 8 })
            .where(or({ id: 1 }, not({ id: op.in([2, 3]) }))),
        )
        .rowsAffected(),
    ).toBe(1);
    expect(await engine.execute(deleteFrom(Member).where({ name: op.like("c%") })).rowsAffected()).toBe(1);
    // SQL text is the caller's own decision: it is not second-guessed.
    expect(await engine.execute(update(Member).set({ score: 7 }).where(sql.expr`1 = 1`)).rowsAffected()).toBe(2);
    expect(
      await engine
        .execute(
          update(Member)
            .set({ score: 0 })
            .where(not({ id: op.in([]) }))
            .allRows(),
        )
        .rowsAffected(),
    ).toBe(2);
    expect(await engine.execute(select(Member, ["id", "score"]).orderBy("id")).all()).toEqual([
      { id: 1, score: 0 },
      { id: 2, score: 0 },
    ]);
  });
});

afterAll(() => {
  rmSync(sqliteDir, { recursive: true, force: true });
});
