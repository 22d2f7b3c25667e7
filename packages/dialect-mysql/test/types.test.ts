import { insert, select, sql, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Defaults, Everything } from "./models.js";
import { closeEngines, scalar, testEngine } from "./support.js";

const engine = testEngine();

const full = {
  id: "7d444840-9dc0-11d1-b245-5ffdce74fad2",
  label: 'héllo 😀 \\ back\'slash "quote"\nnew line\ttab',
  code: "ABC-123",
  small: -2147483648,
  big: 2n ** 60n + 1n,
  ratio: 0.1 + 0.2,
  amount: "12345678901234567890.0123456789",
  anyNumber: "3.14159",
  flag: true,
  at: new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 999)),
  day: "2024-02-29",
  doc: { a: [1, { b: "c", deep: { deeper: [null, true, 1.5, "é"] } }], s: "😀", n: null, t: false },
  state: "it's" as const,
  blob: Uint8Array.from({ length: 256 }, (_, i) => i),
};

const edges = {
  id: "00000000-0000-4000-8000-000000000001",
  label: "",
  code: "",
  small: 2147483647,
  big: -(2n ** 63n),
  ratio: -1e-300,
  amount: "-0.0000000001",
  anyNumber: "-98765432109876543210.123456789012345678901234567891",
  flag: false,
  at: new Date(0),
  day: "1000-01-01",
  doc: "just a string",
  state: "off" as const,
  blob: new Uint8Array(0),
};

const nulls = {
  id: "00000000-0000-4000-8000-000000000002",
  label: null,
  code: null,
  small: null,
  big: null,
  ratio: null,
  amount: null,
  anyNumber: null,
  flag: null,
  at: null,
  day: null,
  doc: null,
  state: null,
  blob: null,
};

beforeAll(async () => {
  await engine.dropAll([Everything, Defaults]);
  await engine.createAll([Everything, Defaults]);
  await engine.execute(insert(Everything).values([full, edges, nulls])).rowsAffected();
});

afterAll(closeEngines);

/** Buffers compare by content; the model's bytes type is Uint8Array. */
function normalized(row: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!row) return row;
  const blob = row.blob;
  return { ...row, blob: blob instanceof Uint8Array ? Uint8Array.from(blob) : blob };
}

describe("every type round-trips exactly", () => {
  for (const row of [full, edges, nulls]) {
    it(`through a prepared statement (${row.id.slice(-1)})`, async () => {
      const read = await engine.execute(select(Everything).where({ id: row.id })).one();
      expect(normalized(read)).toEqual(row);
    });
  }

  it("through the text protocol (no parameters)", async () => {
    const rows = await engine.execute(select(Everything).orderBy("id")).all();
    expect(rows.map(normalized)).toEqual([edges, nulls, full]);
  });

  it("delivers each value with its JavaScript type", async () => {
    const read = await engine.execute(select(Everything).where({ id: full.id })).one();
    expect(typeof read.big).toBe("bigint");
    expect(read.at).toBeInstanceOf(Date);
    expect(read.flag).toBe(true);
    expect(typeof read.amount).toBe("string");
    expect(read.blob).toBeInstanceOf(Uint8Array);
  });

  it("compares a bigint beyond 2^53 exactly", async () => {
    const exact = await engine.execute(select(Everything, ["id"]).where({ big: 2n ** 60n + 1n })).all();
    const neighbour = await engine.execute(select(Everything, ["id"]).where({ big: 2n ** 60n })).all();
    expect(exact).toEqual([{ id: full.id }]);
    expect(neighbour).toEqual([]);
  });

  it("keeps every decimal digit in arithmetic done by the server", async () => {
    await engine
      .execute(
        update(Everything)
          .set({ amount: sql.raw("amount + 0.0000000001") })
          .where({ id: full.id }),
      )
      .rowsAffected();
    const read = await engine.execute(select(Everything, ["amount"]).where({ id: full.id })).one();
    expect(read.amount).toBe("12345678901234567890.0123456790");
    await engine.execute(update(Everything).set({ amount: full.amount }).where({ id: full.id })).rowsAffected();
  });

  it("finds a uuid whatever its case, and reads it back lower-case", async () => {
    const upper = "7D444840-9DC0-11D1-B245-5FFDCE74FAD2";
    const found = await engine.execute(select(Everything, ["id"]).where({ id: upper })).one();
    expect(found.id).toBe(full.id);
  });

  it("stores json as real JSON the server can query", async () => {
    expect(await scalar(engine, `SELECT JSON_EXTRACT(doc, '$.a[1].deep.deeper[3]') FROM dm_everything WHERE id = '${full.id}'`)).toBe(
      '"é"',
    );
    expect(await scalar(engine, `SELECT JSON_TYPE(doc) FROM dm_everything WHERE id = '${edges.id}'`)).toBe("STRING");
  });

  it("compares strings exactly: case and trailing spaces matter, as in JavaScript", async () => {
    expect(await engine.execute(select(Everything, ["id"]).where({ code: "abc-123" })).all()).toEqual([]);
    expect(await engine.execute(select(Everything, ["id"]).where({ code: "ABC-123 " })).all()).toEqual([]);
    expect(await engine.execute(select(Everything, ["id"]).where({ code: { ilike: "abc-%" } })).all()).toEqual([{ id: full.id }]);
  });
});

describe("defaults from DDL", () => {
  it("applies literal and expression defaults, backslashes intact", async () => {
    const before = Date.now();
    await engine.execute(insert(Defaults).values({})).rowsAffected();
    const after = Date.now();
    const row = await engine.execute(select(Defaults)).one();
    expect(row.seq).toBe(7);
    expect(row.note).toBe("a\\b 'quoted'");
    // The server's UTC clock and the JavaScript clock are the same clock on this machine.
    expect(row.createdAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(row.createdAt.getTime()).toBeLessThanOrEqual(after);
  });
});
