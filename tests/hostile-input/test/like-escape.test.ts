import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine } from "tempest-db-js";
import { column, createEngine, deleteFrom, escapeLike, insert, Model, op, select, ValidationError } from "tempest-db-js";
import { hostileStrings } from "tempest-db-js/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { MYSQL_URL, PG_URL } from "./support/targets.js";

/**
 * op.contains / startsWith / endsWith (and escapeLike) match user text as itself: `%`, `_` and `\`
 * in it are characters, not a pattern. Each helper's rows equal what String.prototype.includes /
 * startsWith / endsWith pick, for every hostile string as the needle, on every database.
 */
class Note extends Model {
  static tablename = "tempest_like_escape_notes";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  body = column.text().notNull();
}

const sqliteDir = mkdtempSync(join(tmpdir(), "tempest-like-"));
const databases = [
  { name: "PostgreSQL", url: PG_URL },
  { name: "MariaDB", url: MYSQL_URL },
  { name: "SQLite", url: `sqlite://${join(sqliteDir, "like.db")}` },
];

// Text every dialect stores (no NUL, no lone surrogate), plus near misses of the wildcards.
const TEXTS = [
  ...new Set([...hostileStrings, "50%", "50x", "a_b", "axb", "100%_done", "C:\\dir", "C:xdir", "ABC", "abc", "%", "_", "\\"]),
].filter((s) => !s.includes("\0") && !/\p{Surrogate}/u.test(s) && s.length > 0);
const ROWS = TEXTS.map((body, i) => ({ id: i + 1, body }));
const NEEDLES = ["%", "_", "\\", "50%", "a_b", "\\%", "%_", "C:\\", "'", "''", "$1", "?", "abc", "ABC", "b"];
const foldAZ = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

describe.each(databases)("$name: LIKE helpers match user text as itself", ({ url }) => {
  let engine: Engine;

  beforeAll(async () => {
    engine = createEngine(url, { poolSize: 2, operators: "helpers-only" });
    await engine.dropAll([Note]);
    await engine.createAll([Note]);
    await engine.execute(insert(Note).values(ROWS)).rowsAffected();
  });

  afterAll(async () => {
    await engine.dropAll([Note]);
    await engine.close();
  });

  const ids = async (where: object) =>
    (
      await engine
        .execute(
          select(Note, ["id"])
            .where(where as never)
            .orderBy("id"),
        )
        .all()
    ).map((r) => r.id);
  const expected = (keep: (body: string) => boolean) => ROWS.filter((r) => keep(r.body)).map((r) => r.id);

  it.each(NEEDLES)("needle %s: contains, startsWith, endsWith, and their ignoreCase forms", async (needle) => {
    expect(await ids({ body: op.contains(needle) })).toEqual(expected((b) => b.includes(needle)));
    expect(await ids({ body: op.startsWith(needle) })).toEqual(expected((b) => b.startsWith(needle)));
    expect(await ids({ body: op.endsWith(needle) })).toEqual(expected((b) => b.endsWith(needle)));
    expect(await ids({ body: op.contains(needle, { ignoreCase: true }) })).toEqual(expected((b) => foldAZ(b).includes(foldAZ(needle))));
    expect(await ids({ body: op.like(`${escapeLike(needle)}%`) })).toEqual(expected((b) => b.startsWith(needle)));
  });

  it("a non-string is refused without its value; contains('') is every row, so no delete takes it", async () => {
    for (const bad of [{ ne: "x" }, 42, null, ["%"]]) {
      expect(() => op.contains(bad as never)).toThrow(ValidationError);
      expect(() => escapeLike(bad as never)).toThrow(/take a string, got (a plain object|a number|null|an array)$/);
    }
    expect(await ids({ body: op.contains("") })).toHaveLength(ROWS.length);
    expect(() => engine.execute(deleteFrom(Note).where({ body: op.contains("") }))).toThrow(/holds for every row/);
  });
});

afterAll(() => {
  rmSync(sqliteDir, { recursive: true, force: true });
});
