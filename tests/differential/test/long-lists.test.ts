import type { QueryEvent } from "tempest-db-js";
import { column, createEngine, insert, Model, select } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MYSQL_URL, PG_URL } from "./support/databases.js";

// An in/notIn list longer than any dialect's parameter limit (SQLite 32,766, MySQL 65,535) is one
// statement with one list parameter on every database, so LIMIT, ORDER BY and notIn keep their meaning.
class Listed extends Model {
  static tablename = "differential_long_lists";
  id = column.integer().primaryKey();
  ref = column.uuid().notNull();
  big = column.bigint().notNull();
  at = column.datetime().notNull();
}

const ROWS = 300;
const LIST = 70_000;
const uuidOf = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
const rows = Array.from({ length: ROWS }, (_, i) => ({
  id: i + 1,
  ref: uuidOf(i + 1),
  big: 2n ** 60n + BigInt(i),
  at: new Date(Date.UTC(1900, 0, 1) + i * 1000),
}));

for (const [label, url] of [
  ["PostgreSQL", PG_URL],
  ["MariaDB", MYSQL_URL],
  ["SQLite", "sqlite::memory:"],
] as const) {
  describe(`${label}: a ${LIST}-value list`, () => {
    const events: QueryEvent[] = [];
    const engine = createEngine(url, { poolSize: 1, onQuery: (e) => events.push(e) });

    beforeAll(async () => {
      await engine.dropAll([Listed]);
      await engine.createAll([Listed]);
      await engine.execute(insert(Listed).values(rows)).rowsAffected();
    });

    afterAll(async () => {
      await engine.dropAll([Listed]);
      await engine.close();
    });

    it("in: every third id, upper-case uuids, ordered and limited in one statement", async () => {
      // The wanted refs plus tens of thousands that match nothing; written upper-case.
      const refs = [
        ...Array.from({ length: LIST - 100 }, (_, i) => uuidOf(1_000_000 + i)),
        ...rows.filter((r) => r.id % 3 === 0).map((r) => r.ref.toUpperCase()),
      ];
      events.length = 0;
      const found = await engine
        .execute(
          select(Listed, ["id"])
            .where({ ref: { in: refs } })
            .orderBy("id", "desc")
            .limit(5),
        )
        .all();
      expect(found.map((r) => r.id)).toEqual([300, 297, 294, 291, 288]);
      expect(events).toHaveLength(1);
      expect((events[0] as QueryEvent).sql).not.toMatch(/\?, \?|\$2/);
    });

    it("notIn over bigints and datetimes keeps its meaning", async () => {
      const bigs = Array.from({ length: LIST }, (_, i) => 2n ** 60n + BigInt(i + 10));
      const ats = Array.from({ length: LIST }, (_, i) => new Date(Date.UTC(1900, 0, 1) + (i + 2) * 1000));
      const kept = await engine
        .execute(
          select(Listed, ["id"])
            .where({ big: { notIn: bigs } })
            .orderBy("id"),
        )
        .all();
      expect(kept.map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      const early = await engine
        .execute(
          select(Listed, ["id"])
            .where({ at: { notIn: ats } })
            .orderBy("id"),
        )
        .all();
      expect(early.map((r) => r.id)).toEqual([1, 2]);
    });
  });
}
