import { column, createEngine, deleteFrom, insert, Model, select, sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresDialect } from "../src/index.js";
import { PG_URL } from "./pg-url.js";

class Kinds extends Model {
  static tablename = "tempest_pg_in_kinds";
  id = column.integer().primaryKey();
  ref = column.uuid().notNull();
  big = column.bigint().notNull();
  amount = column.numeric(12, 2).notNull();
  day = column.date().notNull();
  state = column.enum("queued", "sent").notNull();
  code = column.varchar(20).notNull();
  ratio = column.real().notNull();
  at = column.datetime().notNull();
}

const U1 = "8f14e45f-ceea-467f-a0e6-1b4f2c9d1a01";
const U2 = "8F14E45F-CEEA-467F-A0E6-1B4F2C9D1A02";
const rows = [
  {
    id: 1,
    ref: U1,
    big: 2n ** 60n + 1n,
    amount: "10.50",
    day: "2024-02-29",
    state: "queued" as const,
    code: `a"b\\c,{}`,
    ratio: 0.5,
    at: new Date(0),
  },
  {
    id: 2,
    ref: U2.toLowerCase(),
    big: 2n ** 60n,
    amount: "3.00",
    day: "2024-03-01",
    state: "sent" as const,
    code: "NULL",
    ratio: 1.5,
    at: new Date(1000),
  },
];

const events: string[] = [];
const engine = createEngine(PG_URL, { dialect: postgresDialect, poolSize: 1, onQuery: (e) => events.push(e.sql) });

beforeAll(async () => {
  await engine.dropAll([Kinds]);
  await engine.createAll([Kinds]);
  await engine.execute(insert(Kinds).values(rows)).rowsAffected();
});

afterAll(async () => {
  await engine.dropAll([Kinds]);
  await engine.close();
});

const ids = async (where: object) =>
  (
    await engine
      .execute(
        select(Kinds, ["id"])
          .where(where as never)
          .orderBy("id"),
      )
      .all()
  ).map((r) => r.id);

describe("IN lists on PostgreSQL: one array parameter", () => {
  it("compiles to = ANY($n) / <> ALL($n) with the encoded values as one parameter", () => {
    const compiled = engine.compile(select(Kinds, ["id"]).where({ big: { in: [1n, 2n] }, code: { notIn: ["x"] } }));
    expect(compiled.sql).toBe('SELECT "id" FROM "tempest_pg_in_kinds" WHERE "big" = ANY($1) AND "code" <> ALL($2)');
    expect(compiled.params).toEqual([["1", "2"], ["x"]]);
  });

  it("finds exactly the listed rows for every array-bound kind, and notIn the others", async () => {
    expect(await ids({ ref: { in: [U2, "00000000-0000-0000-0000-000000000000"] } })).toEqual([2]);
    expect(await ids({ big: { in: [2n ** 60n + 1n] } })).toEqual([1]);
    expect(await ids({ big: { notIn: [2n ** 60n + 1n] } })).toEqual([2]);
    expect(await ids({ amount: { in: ["10.5", 3] } })).toEqual([1, 2]);
    expect(await ids({ day: { in: ["2024-03-01"] } })).toEqual([2]);
    expect(await ids({ state: { in: ["sent", "queued"] } })).toEqual([1, 2]);
    expect(await ids({ code: { in: [`a"b\\c,{}`, "NULL"] } })).toEqual([1, 2]);
    expect(await ids({ code: { in: ["NULL"] } })).toEqual([2]);
    expect(await ids({ ratio: { notIn: [0.5] } })).toEqual([2]);
    expect(await ids({ id: { in: [2, 1, 2] } })).toEqual([1, 2]);
    // Datetimes travel as ISO-8601 UTC text, so they are one array too; lists holding an expression stay IN (...).
    expect(engine.compile(select(Kinds, ["id"]).where({ at: { in: [new Date(0)] } })).sql).toContain('"at" = ANY($1)');
    expect(await ids({ at: { in: [new Date(1000)] } })).toEqual([2]);
    // The types allow values only; at run time an expression in the list is SQL, kept in place.
    const mixed = [1, sql.raw("2")] as unknown as number[];
    expect(engine.compile(select(Kinds, ["id"]).where({ id: { in: mixed } })).sql).toContain('"id" IN ($1, 2)');
    expect(await ids({ id: { in: mixed } })).toEqual([1, 2]);
  });

  it("one statement text, and one prepared statement, serve every list length", async () => {
    events.length = 0;
    for (const list of [[1], [1, 2], [2, 1, 99], [1], [1, 2]]) {
      await engine.execute(deleteFrom(Kinds).where({ id: { in: list.map((n) => n + 1000) } })).rowsAffected();
    }
    expect(new Set(events).size).toBe(1);
    const prepared = await engine.transaction(async (tx) => {
      for (let i = 0; i < 2; i++) await tx.execute(select(Kinds, ["id"]).where({ id: { in: i === 0 ? [1] : [1, 2, 3] } })).all();
      return tx.execute(sql.raw("SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%= ANY($1)%'")).all();
    });
    expect(prepared.map((r) => r.statement)).toContain('SELECT "id" FROM "tempest_pg_in_kinds" WHERE "id" = ANY($1)');
  });
});
