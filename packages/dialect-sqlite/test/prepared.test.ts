import type { QueryEvent } from "tempest-db-js";
import {
  column,
  createEngine,
  deleteFrom,
  insert,
  Model,
  op,
  select,
  sql,
  UnsupportedFeatureError,
  update,
  ValidationError,
} from "tempest-db-js";
import { hostileStrings } from "tempest-db-js/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TestDatabase } from "./support/engines.js";
import { openDatabase, targets } from "./support/engines.js";

class Person extends Model {
  static tablename = "prepared_people";
  id = column.integer().primaryKey();
  handle = column.uuid().notNull();
  name = column.varchar(10).notNull();
  nickname = column.text();
  score = column.real().notNull().default(0);
  born = column.date();
}

const HANDLE = "0b4c7a4e-5f0e-4f3a-9c55-2a3b9d1e6f01";

describe.each(targets)("prepared statements on a %s database", (target) => {
  let db: TestDatabase;
  const events: QueryEvent[] = [];

  beforeEach(async () => {
    events.length = 0;
    db = openDatabase(target, { onQuery: (event) => events.push(event) });
    await db.engine.createAll([Person]);
    events.length = 0;
  });

  afterEach(() => db.close());

  const addPerson = () =>
    db.engine.prepare({ id: "integer", handle: "uuid", name: "varchar", nickname: "text | null" }, (p) =>
      insert(Person).values({ id: p.id, handle: p.handle, name: p.name, nickname: p.nickname }),
    );

  it("runs a select with the SQL of the built statement and returns the rows .all() returns", async () => {
    const { engine } = db;
    await engine
      .execute(insert(Person).values([1, 2, 3].map((id) => ({ id, handle: HANDLE, name: `p${id}`, born: "2001-02-03" }))))
      .rowsAffected();
    const byId = engine.prepare({ id: "integer" }, (p) => select(Person).where({ id: p.id }));
    expect(byId.sql).toBe(engine.compile(select(Person).where({ id: 2 })).sql);
    for (const id of [1, 2, 3, 4]) {
      expect(await byId.execute({ id }).all()).toEqual(await engine.execute(select(Person).where({ id })).all());
    }
    expect(await byId.execute({ id: 3 }).first()).toEqual({
      id: 3,
      handle: HANDLE,
      name: "p3",
      nickname: null,
      score: 0,
      born: "2001-02-03",
    });
    expect(byId.compile({ id: 7 })).toMatchObject({ sql: byId.sql, params: [7] });
  });

  it("inserts, updates and deletes inside a transaction with execute(values, tx), and a rollback undoes them", async () => {
    const { engine } = db;
    const add = addPerson();
    const rename = engine.prepare({ id: "integer", name: "varchar" }, (p) => update(Person).set({ name: p.name }).where({ id: p.id }));
    const remove = engine.prepare({ id: "integer" }, (p) => deleteFrom(Person).where({ id: p.id }));
    await engine.transaction(async (tx) => {
      for (let id = 1; id <= 50; id++) {
        expect(await add.execute({ id, handle: HANDLE, name: `n${id}`, nickname: id % 2 ? null : "even" }, tx).rowsAffected()).toBe(1);
      }
      expect(await rename.execute({ id: 7, name: "seven" }, tx).rowsAffected()).toBe(1);
      expect(await remove.execute({ id: 50 }, tx).rowsAffected()).toBe(1);
    });
    const rows = await engine.execute(select(Person, ["id", "name", "nickname"]).orderBy("id")).all();
    expect(rows).toHaveLength(49);
    expect(rows[6]).toEqual({ id: 7, name: "seven", nickname: null });
    expect(rows[1]).toEqual({ id: 2, name: "n2", nickname: "even" });
    await expect(
      engine.transaction(async (tx) => {
        await add.execute({ id: 100, handle: HANDLE, name: "gone", nickname: null }, tx).rowsAffected();
        throw new Error("undo");
      }),
    ).rejects.toThrow("undo");
    expect(await engine.execute(select(Person).where({ id: 100 })).first()).toBeUndefined();
  });

  it("on a transaction a prepared statement is issued at once, in order with the transaction's other statements", async () => {
    const { engine } = db;
    const add = addPerson();
    const count = await engine.transaction(async (tx) => {
      // Not awaited one by one: each joins the transaction's queue when execute() is called.
      const pending = [1, 2, 3].map((id) => add.execute({ id, handle: HANDLE, name: `q${id}`, nickname: null }, tx));
      tx.execute(update(Person).set({ nickname: "seen" }).where({ id: 3 }));
      const rows = await tx.execute(select(Person, ["id", "nickname"]).orderBy("id")).all();
      expect(await Promise.all(pending.map((p) => p.rowsAffected()))).toEqual([1, 1, 1]);
      return rows;
    });
    expect(count).toEqual([
      { id: 1, nickname: null },
      { id: 2, nickname: null },
      { id: 3, nickname: "seen" },
    ]);
  });

  it("a placeholder value gets exactly the checks a literal value gets at the same place, and a refused one sends nothing", async () => {
    const { engine } = db;
    const add = addPerson();
    const byName = engine.prepare({ name: "varchar" }, (p) => select(Person).where({ name: p.name }));
    const strings = [...hostileStrings, "0123456789", "01234567890", "\u{1F600}".repeat(10), "\u{1F600}".repeat(11), "a\0b", "\ud800"];
    const candidates: unknown[] = [
      ...strings,
      1,
      1.5,
      -0,
      Number.NaN,
      Infinity,
      2 ** 53,
      10n,
      true,
      null,
      {},
      [],
      new Date(),
      HANDLE,
      HANDLE.toUpperCase(),
    ];
    let refused = 0;
    for (const value of candidates) {
      const literalOutcome = outcome(() =>
        engine.compile(insert(Person).values({ id: 1, handle: HANDLE, name: value as string, nickname: null })),
      );
      const preparedOutcome = outcome(() => add.compile({ id: 1, handle: HANDLE, name: value as string, nickname: null }));
      expect(preparedOutcome, `name = ${String(value)}`).toBe(literalOutcome);
      const whereLiteral = outcome(() => engine.compile(select(Person).where({ name: op.eq(value as string) })));
      expect(
        outcome(() => byName.compile({ name: value as string })),
        `where name = ${String(value)}`,
      ).toBe(whereLiteral);
      for (const field of ["id", "handle", "nickname"] as const) {
        const values = { id: 1, handle: HANDLE, name: "ok", nickname: null, [field]: value };
        const literal = outcome(() => engine.compile(insert(Person).values(values as never)));
        expect(
          outcome(() => add.compile(values as never)),
          `${field} = ${String(value)}`,
        ).toBe(literal);
      }
      if (preparedOutcome !== "ok") {
        refused++;
        expect(() => add.execute({ id: 1, handle: HANDLE, name: value as string, nickname: null })).toThrow(ValidationError);
      }
    }
    expect(refused).toBeGreaterThan(10);
    expect(events).toEqual([]);
    expect(await engine.execute(select(Person)).all()).toEqual([]);
  });

  it("refuses a values object with a missing, undefined or unknown key", () => {
    const add = addPerson();
    expect(() => add.compile({ id: 1, handle: HANDLE, name: "a" } as never)).toThrow(/no value for placeholder "nickname"/);
    expect(() => add.compile({ id: 1, handle: HANDLE, name: "a", nickname: undefined } as never)).toThrow(/"nickname" is undefined/);
    expect(() => add.compile({ id: 1, handle: HANDLE, name: "a", nickname: null, extra: 1 } as never)).toThrow(
      /no placeholder named "extra"/,
    );
    expect(() => add.compile({ id: 1, handle: HANDLE, name: "a", nick: null } as never)).toThrow(/no value for placeholder "nickname"/);
    expect(() => add.compile(null as never)).toThrow(ValidationError);
  });

  it("refuses at prepare a placeholder that cannot stand where it is used", () => {
    const { engine } = db;
    expect(() => engine.prepare({ id: "text" }, (p) => select(Person).where({ id: p.id }))).toThrow(
      /declared text but stands for id, a integer column/,
    );
    expect(() => engine.prepare({ nick: "text | null" }, (p) => select(Person).where({ nickname: p.nick }))).toThrow(/IS NULL/);
    expect(() => engine.prepare({ name: "varchar | null" }, (p) => insert(Person).values({ id: 1, handle: HANDLE, name: p.name }))).toThrow(
      /NOT NULL/,
    );
    expect(() => engine.prepare({ id: "integer", other: "integer" }, (p) => select(Person).where({ id: p.id }))).toThrow(
      /"other" declared but not used/,
    );
    expect(() => engine.prepare({ id: "int" as never }, (p) => select(Person).where({ id: p.id }))).toThrow(/the kinds are/);
    expect(() => engine.prepare({ n: "text" }, (p) => select(Person).where(sql.expr`"name" = ${p.n}`))).toThrow(/no column gives its type/);
    expect(() => engine.prepare({ n: "text" }, (p) => select(Person).where({ name: { like: p.n } }))).toThrow(/no column gives its type/);
  });

  it("a placeholder outside engine.prepare is refused before anything runs", async () => {
    const { engine } = db;
    let leaked: unknown;
    engine.prepare({ id: "integer" }, (p) => {
      leaked = p.id;
      return select(Person).where({ id: p.id });
    });
    expect(() => engine.execute(select(Person).where({ id: leaked as number }))).not.toThrow();
    await expect(engine.execute(select(Person).where({ id: leaked as number })).all()).rejects.toThrow(/runs only through engine.prepare/);
    expect(() => engine.compile(select(Person).where({ id: leaked as number }))).toThrow(/runs only through engine.prepare/);
    expect(events).toEqual([]);
  });

  it("a list placeholder (op.in(p.ids), one array parameter) is refused by name: SQLite binds no arrays", () => {
    expect(() => db.engine.prepare({ ids: "integer[]" }, (p) => select(Person).where({ id: op.in(p.ids) }))).toThrow(
      UnsupportedFeatureError,
    );
    expect(() => db.engine.prepare({ ids: "integer[]" }, (p) => select(Person).where({ id: op.in(p.ids) }))).toThrow(
      /list placeholder in op.in/,
    );
  });

  it("runs on a transaction or session of its own engine only", async () => {
    const { engine } = db;
    const other = createEngine("sqlite::memory:");
    try {
      const byId = engine.prepare({ id: "integer" }, (p) => select(Person).where({ id: p.id }));
      await other.transaction(async (tx) => {
        expect(() => byId.execute({ id: 1 }, tx)).toThrow(/of the engine that prepared the statement/);
      });
      expect(await byId.execute({ id: 1 }, engine.session()).all()).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("on a helpers-only engine a prepared statement with a plain operator object is refused", async () => {
    const strict = openDatabase("memory", { operators: "helpers-only" });
    try {
      expect(() => strict.engine.prepare({ n: "integer" }, (p) => select(Person).where({ id: { gt: p.n } }))).toThrow(ValidationError);
      await strict.engine.createAll([Person]);
      const byId = strict.engine.prepare({ n: "integer" }, (p) => select(Person).where({ id: op.gt(p.n) }));
      expect(await byId.execute({ n: 0 }).all()).toEqual([]);
    } finally {
      await strict.close();
    }
  });
});

function outcome(fn: () => unknown): string {
  try {
    fn();
    return "ok";
  } catch (error) {
    return ValidationError.isInstance(error) ? "ValidationError" : `other: ${String(error)}`;
  }
}
