import { column, createEngine, Model, select, sql, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "../src/index.js";

// Rows written by versions before the ordered numeric form and lower-case uuids: plain decimal text
// and upper-case uuid text. They read back canonical at once; after the documented rewrite
// (docs/dialects.md) they compare as the rules say too.
class Priced extends Model {
  static tablename = "legacy_priced";
  id = column.integer().primaryKey();
  ref = column.uuid().notNull();
  amount = column.numeric(10, 2).notNull();
  free = column.numeric();
}

const engine = createEngine("sqlite::memory:");
const UPPER = "8F14E45F-CEEA-467F-A0E6-1B4F2C9D1A01";

beforeAll(async () => {
  await engine.createAll([Priced]);
  // What earlier versions wrote: numerics as their text, uuids as given.
  await engine
    .execute(
      sql.raw(
        `INSERT INTO "legacy_priced" ("id", "ref", "amount", "free") VALUES (1, '${UPPER}', '9', '1.50'), (2, 'aa14e45f-ceea-467f-a0e6-1b4f2c9d1a02', '10.5', '10')`,
      ),
    )
    .rowsAffected();
});

afterAll(() => engine.close());

describe("values stored by earlier versions", () => {
  it("read back as the rules say: lower-case uuids, numerics at their scale or without trailing zeros", async () => {
    const rows = await engine.execute(select(Priced).orderBy("id")).all();
    expect(rows).toEqual([
      { id: 1, ref: UPPER.toLowerCase(), amount: "9.00", free: "1.5" },
      { id: 2, ref: "aa14e45f-ceea-467f-a0e6-1b4f2c9d1a02", amount: "10.50", free: "10" },
    ]);
  });

  it("compare correctly after the documented one-line conversions", async () => {
    await engine.execute(sql.raw(`UPDATE "legacy_priced" SET "ref" = lower("ref")`)).rowsAffected();
    for (const r of await engine.execute(select(Priced, ["id", "amount", "free"])).all())
      await engine.execute(update(Priced).set({ amount: r.amount, free: r.free }).where({ id: r.id })).rowsAffected();
    const ids = async (where: object) =>
      (
        await engine
          .execute(
            select(Priced, ["id"])
              .where(where as never)
              .orderBy("id"),
          )
          .all()
      ).map((r) => r.id);
    expect(await ids({ ref: UPPER })).toEqual([1]);
    expect(await ids({ amount: { gt: "9.5" } })).toEqual([2]);
    expect(await ids({ free: "1.50" })).toEqual([1]);
    expect((await engine.execute(select(Priced, ["id"]).orderBy("amount", "desc")).all()).map((r) => r.id)).toEqual([2, 1]);
  });
});
