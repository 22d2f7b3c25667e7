import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine, QueryEvent } from "tempest-db-js";
import {
  and,
  column,
  createEngine,
  deleteFrom,
  exists,
  insert,
  Model,
  not,
  op,
  or,
  select,
  sql,
  update,
  ValidationError,
} from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { MYSQL_URL, PG_URL } from "./support/targets.js";

/**
 * and/or/not nest at most 500 levels, a statement tree at most 1,000 nodes deep: past that a typed
 * ValidationError stating the limit, while building, never a RangeError from the stack nor a server
 * error. At the limit the statement runs, with the right answer, on every database.
 */
class Item extends Model {
  static tablename = "tempest_deep_items";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  label = column.text().notNull();
}

const sqliteDir = mkdtempSync(join(tmpdir(), "tempest-deep-"));
const databases = [
  { name: "PostgreSQL", url: PG_URL },
  { name: "MariaDB", url: MYSQL_URL },
  { name: "SQLite", url: `sqlite://${join(sqliteDir, "deep.db")}` },
];

/** `levels` of and/or/not around `{ label: "b" }`, each keeping its meaning: the rows labelled b. */
function nested(levels: number): unknown {
  let where: unknown = { label: "b" };
  for (let i = 0; i < levels; i++) {
    const kind = i % 3;
    where = kind === 0 ? and(where as never, { id: op.gte(0) }) : kind === 1 ? or(where as never, { id: -1 }) : not(not(where as never));
    if (kind === 2) i++; // not(not(...)) is two levels
  }
  return where;
}

describe.each(databases)("$name: deep nesting", ({ url }) => {
  let engine: Engine;
  const sent: QueryEvent[] = [];

  beforeAll(async () => {
    engine = createEngine(url, { poolSize: 2, operators: "helpers-only", onQuery: (event) => sent.push(event) });
    await engine.dropAll([Item]);
    await engine.createAll([Item]);
    await engine
      .execute(
        insert(Item).values([
          { id: 1, label: "a" },
          { id: 2, label: "b" },
        ]),
      )
      .rowsAffected();
  });

  afterAll(async () => {
    await engine.dropAll([Item]);
    await engine.close();
  });

  it("500 levels of and/or/not run and answer right", async () => {
    expect(await engine.execute(select(Item, ["id"]).where(nested(500) as never)).all()).toEqual([{ id: 2 }]);
    expect(
      await engine
        .execute(
          update(Item)
            .set({ label: "b" })
            .where(nested(500) as never),
        )
        .rowsAffected(),
    ).toBe(1);
  });

  it.each([501, 2_000, 3_000, 20_000])("%i levels: a ValidationError stating the limit, while building", (levels) => {
    const where = nested(levels) as never;
    sent.length = 0;
    for (const build of [
      () => select(Item).where(where),
      () => update(Item).set({ label: "x" }).where(where),
      () => deleteFrom(Item).where(where),
    ]) {
      let error: unknown;
      try {
        build();
      } catch (e) {
        error = e;
      }
      expect(ValidationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/nests deeper than 500 levels of and\/or\/not/);
    }
    expect(sent).toEqual([]);
  });

  it("expressions inside expressions and subqueries inside subqueries: the tree's limit, typed", () => {
    let expression = sql.expr`label = ${"b"}`;
    for (let i = 0; i < 3_000; i++) expression = sql.expr`(${expression})`;
    expect(() => select(Item).where(expression)).toThrow(/nests deeper than 1000 levels of nodes/);
    let query = select(Item, ["id"]).where({ label: "b" });
    for (let i = 0; i < 1_200; i++) query = select(Item, ["id"]).where(exists(query));
    expect(() => engine.execute(query)).toThrow(/nests deeper than 1000 levels of nodes/);
    expect(() => engine.compile(query)).toThrow(ValidationError);
  });
});

afterAll(() => {
  rmSync(sqliteDir, { recursive: true, force: true });
});
