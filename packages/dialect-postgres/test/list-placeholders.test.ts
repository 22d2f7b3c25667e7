import { column, createEngine, insert, Model, op, prepare, select, sql, update, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresDialect } from "../src/index.js";
import { PG_URL } from "./pg-url.js";

class Item extends Model {
  static tablename = "tempest_pg_list_items";
  id = column.integer().primaryKey();
  ref = column.uuid().notNull();
  label = column.text().notNull();
  flag = column.boolean().notNull().default(false);
}

class Tag extends Model {
  static tablename = "tempest_pg_list_tags";
  id = column.integer().primaryKey();
  itemId = column.integer().notNull();
  name = column.text().notNull();
}

const REFS = ["8f14e45f-ceea-467f-a0e6-1b4f2c9d1a01", "8f14e45f-ceea-467f-a0e6-1b4f2c9d1a02", "8f14e45f-ceea-467f-a0e6-1b4f2c9d1a03"];

const engine = createEngine(PG_URL, { dialect: postgresDialect, poolSize: 2 });

beforeAll(async () => {
  for (const table of [Item.tablename, Tag.tablename]) await engine.execute(sql.raw(`DROP TABLE IF EXISTS "${table}"`)).rowsAffected();
  await engine.createAll([Item, Tag]);
  await engine.execute(insert(Item).values(REFS.map((ref, i) => ({ id: i + 1, ref, label: `item ${i + 1}` })))).rowsAffected();
  await engine.execute(insert(Tag).values([{ id: 1, itemId: 1, name: "a" }])).rowsAffected();
});

afterAll(async () => {
  for (const table of [Item.tablename, Tag.tablename]) await engine.execute(sql.raw(`DROP TABLE IF EXISTS "${table}"`)).rowsAffected();
  await engine.close();
});

describe("list placeholders (op.in(p.ids)) on PostgreSQL", () => {
  it("bind a whole list as one array parameter: the text is the built statement's, whatever the list's length", async () => {
    const byIds = engine.prepare({ ids: "integer[]" }, (p) =>
      select(Item, ["id"])
        .where({ id: op.in(p.ids) })
        .orderBy("id"),
    );
    expect(byIds.sql).toBe(
      engine.compile(
        select(Item, ["id"])
          .where({ id: op.in([1, 2]) })
          .orderBy("id"),
      ).sql,
    );
    expect(byIds.sql).toMatch(/"id" = ANY\(\$1\)/);
    expect(await byIds.execute({ ids: [3, 1] }).all()).toEqual([{ id: 1 }, { id: 3 }]);
    expect(await byIds.execute({ ids: [2] }).all()).toEqual([{ id: 2 }]);
    // An empty list matches nothing, as op.in([]) does; notIn of it matches every row.
    expect(await byIds.execute({ ids: [] }).all()).toEqual([]);
    const notIn = engine.prepare({ refs: "uuid[]" }, (p) =>
      select(Item, ["id"])
        .where({ ref: op.notIn(p.refs) })
        .orderBy("id"),
    );
    expect(notIn.sql).toMatch(/"ref" <> ALL\(\$1\)/);
    expect(await notIn.execute({ refs: [REFS[0] as string] }).all()).toEqual([{ id: 2 }, { id: 3 }]);
    expect(await notIn.execute({ refs: [] }).all()).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
  });

  it("checks every element against the column, as op.in([...]) does, and names no value in the error", async () => {
    const byRefs = engine.prepare({ refs: "uuid[]", label: "text" }, (p) =>
      update(Item)
        .set({ label: p.label })
        .where({ ref: op.in(p.refs) }),
    );
    const secret = "not-a-uuid-secret";
    expect(() => byRefs.execute({ refs: [REFS[0] as string, secret], label: "x" })).toThrow(ValidationError);
    expect(() => byRefs.execute({ refs: [REFS[0] as string, secret], label: "x" })).toThrow(/\[1\]/);
    expect(() => byRefs.execute({ refs: [REFS[0] as string, secret], label: "x" })).not.toThrow(new RegExp(secret));
    expect(() => byRefs.execute({ refs: [null as unknown as string], label: "x" })).toThrow(ValidationError);
    expect(() => byRefs.execute({ refs: REFS[0] as unknown as string[], label: "x" })).toThrow(/is a list .*expects an array/);
    expect(() => byRefs.execute({ refs: [`${REFS[0]}\u0000`], label: "x" })).toThrow(ValidationError);
    expect(() => byRefs.execute({ label: "x" } as never)).toThrow(/no value for placeholder "refs"/);
    expect(await byRefs.execute({ refs: [REFS[1] as string, REFS[2] as string], label: "changed" }).rowsAffected()).toBe(2);
    expect(await engine.execute(select(Item, ["id"]).where({ label: "changed" }).orderBy("id")).all()).toEqual([{ id: 2 }, { id: 3 }]);
  });

  it("stands only in op.in / op.notIn, of a column of its kind's group", () => {
    expect(() => engine.prepare({ ids: "integer[]" }, (p) => select(Item).where({ id: p.ids as never }))).toThrow(
      /is a list \(declared "integer\[\]"\): it stands only in op.in/,
    );
    expect(() => engine.prepare({ ids: "integer[]" }, (p) => update(Item).set({ id: p.ids as never }))).toThrow(/is a list/);
    expect(() => engine.prepare({ ids: "text[]" }, (p) => select(Item).where({ id: op.in(p.ids as never) }))).toThrow(
      /declared text\[\] but stands for id, a integer column/,
    );
    expect(() => engine.prepare({ id: "integer" }, (p) => select(Item).where({ id: op.in(p.id as never) }))).toThrow(
      /expects an array or select\(\.\.\.\)\.asSubquery\(field\) \(prepared: a list placeholder/,
    );
    expect(() => engine.prepare({ ids: "integer[] | null" as never }, (p) => select(Item).where({ id: op.in(p.ids as never) }))).toThrow(
      /placeholder "ids" has kind/,
    );
  });

  it("a list of a kind PostgreSQL does not bind as an array (boolean) is refused by name", () => {
    expect(() => engine.prepare({ flags: "boolean[]" }, (p) => select(Item).where({ flag: op.in(p.flags) }))).toThrow(
      /list placeholder in op.in/,
    );
  });

  it("prepare(db, ...) makes the engine's statement from a transaction, and it runs on any executor of the engine", async () => {
    const byIds = await engine.transaction(async (tx) => {
      const statement = prepare(tx, { ids: "integer[]" }, (p) => select(Item, ["id"]).where({ id: op.in(p.ids) }));
      expect(await statement.execute({ ids: [1] }, tx).all()).toEqual([{ id: 1 }]);
      return statement;
    });
    expect(await byIds.execute({ ids: [2] }, engine).all()).toEqual([{ id: 2 }]);
    expect(() => prepare({} as never, {}, () => select(Item))).toThrow(/must be an engine/);
  });

  it("a joined select runs prepared with the rows nested per source, as execute() returns them", async () => {
    const joined = (ids: unknown) =>
      select(Item, "i")
        .leftJoin(Tag, "t", "t.itemId", "i.id")
        .where({ "i.id": op.in(ids as never) })
        .orderBy("i.id");
    const statement = engine.prepare({ ids: "integer[]" }, (p) => joined(p.ids));
    const rows = await statement.execute({ ids: [1, 2] }).all();
    expect(rows).toEqual(await engine.execute(joined([1, 2])).all());
    expect((rows as { i: { id: number }; t: { name: string } | null }[]).map((r) => [r.i.id, r.t?.name ?? null])).toEqual([
      [1, "a"],
      [2, null],
    ]);
  });
});
