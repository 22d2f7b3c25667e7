import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine } from "tempest-db-js";
import { column, createEngine, deleteFrom, insert, Model, select, UnsupportedFeatureError, ValidationError } from "tempest-db-js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { MYSQL_URL, PG_URL } from "./support/targets.js";

/** Every option either works or is refused: none is silently dropped. */
class Entry extends Model {
  static tablename = "tempest_ignored_options_entries";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  rank = column.integer();
}

const sqliteDir = mkdtempSync(join(tmpdir(), "tempest-options-"));
const databases = [
  { name: "PostgreSQL", url: PG_URL, statementTimeout: true },
  { name: "MariaDB", url: MYSQL_URL, statementTimeout: true },
  { name: "SQLite", url: `sqlite://${join(sqliteDir, "options.db")}`, statementTimeout: false },
];

const ROWS = [
  { id: 1, rank: 2 },
  { id: 2, rank: null },
  { id: 3, rank: 1 },
];

describe.each(databases)("$name: options that used to be ignored", ({ url, statementTimeout }) => {
  let engine: Engine;
  const saved = process.env.TEMPEST_OPERATORS;

  beforeAll(async () => {
    engine = createEngine(url, { poolSize: 2 });
    await engine.dropAll([Entry]);
    await engine.createAll([Entry]);
    await engine.execute(deleteFrom(Entry).allRows()).rowsAffected();
    await engine.execute(insert(Entry).values(ROWS)).rowsAffected();
  });

  afterEach(() => {
    if (saved === undefined) delete process.env.TEMPEST_OPERATORS;
    else process.env.TEMPEST_OPERATORS = saved;
  });

  afterAll(async () => {
    await engine.dropAll([Entry]);
    await engine.close();
  });

  it("orderBy(field, direction, { nulls }) on a select without an alias puts the NULLs where asked", async () => {
    const ids = async (direction: "asc" | "desc", nulls: "first" | "last" | undefined) =>
      (await engine.execute(select(Entry, ["id"]).orderBy("rank", direction, nulls ? { nulls } : undefined)).all()).map((r) => r.id);
    expect(await ids("asc", "first")).toEqual([2, 3, 1]);
    expect(await ids("asc", "last")).toEqual([3, 1, 2]);
    expect(await ids("desc", "last")).toEqual([1, 3, 2]);
    expect(await ids("desc", "first")).toEqual([2, 1, 3]);
    // Without the option NULL sorts as the largest value, on every database.
    expect(await ids("asc", undefined)).toEqual([3, 1, 2]);
    expect(await ids("desc", undefined)).toEqual([2, 1, 3]);
    // The same through a set operation's ORDER BY.
    const union = select(Entry, ["id", "rank"])
      .where({ id: 1 })
      .union(select(Entry, ["id", "rank"]).where({ id: 2 }));
    expect((await engine.execute(union.orderBy("rank", "asc", { nulls: "first" })).all()).map((r) => r.id)).toEqual([2, 1]);
  });

  it(statementTimeout ? "statementTimeoutMs is taken" : "statementTimeoutMs is refused, not ignored", async () => {
    if (statementTimeout) {
      const timed = createEngine(url, { poolSize: 1, statementTimeoutMs: 5_000 });
      expect(await timed.execute(select(Entry, ["id"]).orderBy("id")).all()).toHaveLength(3);
      await timed.close();
    } else {
      expect(() => createEngine(url, { statementTimeoutMs: 5_000 })).toThrow(UnsupportedFeatureError);
      expect(() => createEngine(url, { statementTimeoutMs: 5_000 })).toThrow(/does not support statementTimeoutMs.*transactionTimeoutMs/);
    }
    for (const bad of [0, -1, 1.5, Number.NaN, "100" as unknown as number])
      expect(() => createEngine(url, { statementTimeoutMs: bad })).toThrow(ValidationError);
  });

  it("a misspelt TEMPEST_OPERATORS is refused instead of leaving the engine lenient", async () => {
    for (const misspelt of ["helpers_only", "helpersonly", "Helpers-Only", "strict"]) {
      process.env.TEMPEST_OPERATORS = misspelt;
      expect(() => createEngine(url)).toThrow(/TEMPEST_OPERATORS must be "helpers-only" or "plain-objects"/);
      // The option, when given, decides.
      const explicit = createEngine(url, { operators: "plain-objects" });
      await explicit.close();
    }
    process.env.TEMPEST_OPERATORS = "helpers-only";
    const strict = createEngine(url, { poolSize: 1 });
    expect(() => strict.execute(select(Entry).where(JSON.parse('{"rank": {"ne": 0}}')))).toThrow(/came from a plain object/);
    await strict.close();
    process.env.TEMPEST_OPERATORS = "";
    const lenient = createEngine(url, { poolSize: 1 });
    expect(await lenient.execute(select(Entry, ["id"]).where(JSON.parse('{"rank": {"ne": 0}}'))).all()).toHaveLength(2);
    await lenient.close();
  });

  it("an unknown engine option is refused, naming it", () => {
    expect(() => createEngine(url, { statementTimeout: 100 } as never)).toThrow(/unknown option "statementTimeout"/);
    expect(() => createEngine(url, { pool_size: 2 } as never)).toThrow(ValidationError);
  });
});

afterAll(() => {
  rmSync(sqliteDir, { recursive: true, force: true });
});
