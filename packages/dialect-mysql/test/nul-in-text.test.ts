import { column, insert, Model, select, sql, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeEngines, recordingEngine } from "./support.js";

// NUL in text is refused on MySQL/MariaDB, as on PostgreSQL and SQLite (capability nulInText). The
// server would store it, and `=` sees it, but ORDER BY does not: MariaDB sorts a short varchar by keys
// padded with NUL, so values that differ only by trailing NULs tie despite the NO PAD collation. The
// differential test found it (seed 779332839): '𐐀' and '𐐀\0' in a varchar(6) came back in id order.

class Tag extends Model {
  static tablename = "tempest_nul_tags";
  id = column.integer().primaryKey();
  label = column.varchar(6);
}

const { engine, statements } = recordingEngine({ poolSize: 1 });

beforeAll(async () => {
  await engine.execute(sql.raw("DROP TABLE IF EXISTS tempest_nul_tags")).rowsAffected();
  await engine.createAll([Tag]);
});

afterAll(async () => {
  await engine.execute(sql.raw("DROP TABLE IF EXISTS tempest_nul_tags")).rowsAffected();
  await closeEngines();
});

describe("NUL in text on MySQL/MariaDB", () => {
  it("the server misorders what differs only by trailing NULs (why the dialect refuses NUL)", async () => {
    // Written as raw SQL, which the dialect leaves alone: UNHEX makes the NUL on the server.
    await engine
      .execute(sql.raw("INSERT INTO tempest_nul_tags (id, label) VALUES (1, UNHEX('6100')), (2, 'a'), (3, UNHEX('610000'))"))
      .rowsAffected();
    const byValue = await engine.execute(sql.raw("SELECT id FROM tempest_nul_tags ORDER BY label DESC, id ASC")).all();
    // By the collation's own rule (binary, NO PAD) the order is 3, 1, 2; MariaDB 10.11 ties all three.
    expect(byValue.map((row) => Number(row.id))).toEqual([1, 2, 3]);
    // Equality does see the NUL.
    const equal = await engine.execute(sql.raw("SELECT id FROM tempest_nul_tags WHERE label = UNHEX('6100')")).all();
    expect(equal.map((row) => Number(row.id))).toEqual([1]);
  });

  it("a NUL in a value to write or compare is a ValidationError when built: nothing is sent", async () => {
    const before = statements.length;
    expect(() => engine.compile(insert(Tag).values({ id: 9, label: "a\u0000" }))).toThrow(ValidationError);
    await expect(engine.execute(insert(Tag).values({ id: 9, label: "a\u0000" })).rowsAffected()).rejects.toThrow(ValidationError);
    await expect(engine.execute(select(Tag).where({ label: "a\u0000" })).all()).rejects.toThrow(ValidationError);
    expect(statements.length).toBe(before);
    expect(engine.capabilities.nulInText).toBe(false);
  });
});
