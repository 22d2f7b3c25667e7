import { ConstraintViolationError, insert, type QueryError, select, sql, TempestError, update } from "tempest-db-js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TestDatabase } from "./support/engines.js";
import { openDatabase, targets } from "./support/engines.js";
import { Outbound, Sample } from "./support/models.js";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe.each(targets)("types on a %s database", (target) => {
  let db: TestDatabase;

  beforeEach(async () => {
    db = openDatabase(target);
    await db.engine.createAll([Outbound, Sample]);
  });

  afterEach(() => db.close());

  const full = {
    id: "6f1c2a52-9d0e-4c1b-8e57-2f5a9a1d3c4b",
    label: `O'Reilly "quoted" \\ ü 😀 ? -- ;`,
    code: "abc",
    count: -2147483648,
    big: 2n ** 60n + 1n,
    ratio: 0.1 + 0.2,
    amount: "12345678901234567890.123",
    flag: false,
    at: new Date("2026-11-29T23:02:33.123Z"),
    day: "2026-02-28",
    doc: { nested: { list: [1, "two", null, { deep: true }], empty: {} }, "quote'd": "v" },
    kind: "large" as const,
    blob: Buffer.from([0, 1, 127, 128, 255]),
    active: true,
  };

  it("every kind round-trips exactly, read back by select and by RETURNING", async () => {
    const { engine } = db;
    const returned = await engine.execute(insert(Sample).values(full).returning()).one();
    const selected = await engine.execute(select(Sample).where({ id: full.id })).one();
    for (const row of [returned, selected]) {
      expect(row).toEqual({ ...full, createdAt: expect.any(Date) });
      expect(typeof row.big).toBe("bigint");
      expect(typeof row.count).toBe("number");
      expect(Buffer.isBuffer(row.blob)).toBe(true);
      expect(row.at?.getTime()).toBe(full.at.getTime());
    }
  });

  it("nulls stay null, defaults apply, and a bigint beyond 2^53 is also exact when negative", async () => {
    const { engine } = db;
    const min = -(2n ** 63n);
    await engine.execute(insert(Sample).values([{ id: "00000000-0000-4000-8000-000000000001" }, { big: min }])).rowsAffected();
    const rows = await engine.execute(select(Sample).orderBy("big")).all();
    // NULL sorts as the largest value on every dialect.
    expect(rows.map((r) => r.big)).toEqual([min, null]);
    const empty = rows[1];
    expect(empty).toMatchObject({ label: null, count: null, flag: null, at: null, doc: null, blob: null, amount: null, active: true });
    // defaultRandom() has no SQLite function: the builder filled a uuid in.
    expect(rows[1]?.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("stores datetimes as the toISOString() text and numeric as its exact digits, in the ordered form", async () => {
    const { engine } = db;
    await engine.execute(insert(Sample).values(full)).rowsAffected();
    const raw = await engine
      .execute(sql.raw(`SELECT "at", "amount", typeof("amount") AS t, "flag", "doc", "created_at" FROM "samples"`))
      .one();
    expect(raw).toMatchObject({
      at: "2026-11-29T23:02:33.123Z",
      // 0.12345678901234567890123 x 10^20: "P", the exponent + 5000, the digits (sqlite-numeric.ts).
      amount: "P502012345678901234567890123",
      t: "text",
      flag: 0,
      doc: JSON.stringify(full.doc),
    });
    // sql.now() (the created_at default) writes the same format.
    expect(raw.created_at).toMatch(ISO);
  });

  it("finds rows by bigint, boolean, json and datetime values", async () => {
    const { engine } = db;
    await engine.execute(insert(Sample).values([full, { flag: true, big: 7n }])).rowsAffected();
    const byBig = await engine.execute(select(Sample, ["id"]).where({ big: 2n ** 60n + 1n })).all();
    const byFlag = await engine.execute(select(Sample, ["big"]).where({ flag: true })).all();
    const byDoc = await engine.execute(select(Sample, ["id"]).where({ doc: { eq: full.doc } })).all();
    const byAt = await engine.execute(select(Sample, ["id"]).where({ at: { gte: full.at, lt: new Date(full.at.getTime() + 1) } })).all();
    expect(byBig).toEqual([{ id: full.id }]);
    expect(byFlag).toEqual([{ big: 7n }]);
    expect(byDoc).toEqual([{ id: full.id }]);
    expect(byAt).toEqual([{ id: full.id }]);
  });

  it("Dates written from JavaScript and by sql.now() compare and sort together, to the millisecond", async () => {
    const { engine } = db;
    const row = (id: string, nextAttemptAt: Date | ReturnType<typeof sql.now>) => ({
      id,
      consumer: "t",
      status: "queued" as const,
      nextAttemptAt,
    });
    const now = Date.now();
    const ids = ["10000000-0000-4000-8000-000000000001", "10000000-0000-4000-8000-000000000002", "10000000-0000-4000-8000-000000000003"];
    await engine
      .execute(
        insert(Outbound).values([
          row(ids[2] as string, new Date(now + 3_600_000)),
          row(ids[1] as string, sql.now()),
          row(ids[0] as string, new Date(now - 3_600_000)),
        ]),
      )
      .rowsAffected();
    const ordered = await engine.execute(select(Outbound, ["id"]).orderBy("nextAttemptAt")).all();
    expect(ordered.map((r) => r.id)).toEqual(ids);
    const due = await engine
      .execute(
        select(Outbound, ["id"])
          .where({ nextAttemptAt: { lte: sql.now() } })
          .orderBy("nextAttemptAt"),
      )
      .all();
    expect(due.map((r) => r.id)).toEqual(ids.slice(0, 2));

    // The value sql.now() wrote is a Date that, written back from JavaScript, is the same text.
    const written = await engine.execute(select(Outbound, ["nextAttemptAt"]).where({ id: ids[1] as string })).one();
    const same = await engine.execute(select(Outbound, ["id"]).where({ nextAttemptAt: written.nextAttemptAt })).all();
    expect(same).toEqual([{ id: ids[1] }]);
    const later = await engine
      .execute(select(Outbound, ["id"]).where({ nextAttemptAt: { gt: new Date(written.nextAttemptAt.getTime() + 1) } }))
      .all();
    expect(later).toEqual([{ id: ids[2] }]);
  });

  it("sql.nowPlusSeconds shifts by exactly the bound seconds, also fractional and negative", async () => {
    const { engine } = db;
    const id = "10000000-0000-4000-8000-000000000009";
    await engine.execute(insert(Outbound).values({ id, consumer: "t", status: "queued", nextAttemptAt: new Date() })).rowsAffected();
    for (const seconds of [30, 1.5, -90]) {
      const row = await engine
        .execute(
          update(Outbound)
            .set({ updatedAt: sql.now(), nextAttemptAt: sql.nowPlusSeconds(seconds) })
            .where({ id })
            .returning(["updatedAt", "nextAttemptAt"]),
        )
        .one();
      // 'now' is fixed within one statement, so the difference is exact.
      expect(row.nextAttemptAt.getTime() - (row.updatedAt as Date).getTime()).toBe(seconds * 1000);
    }
  });

  it("reads SQLite's own datetime() text as UTC, and refuses text that is no datetime", async () => {
    const { engine } = db;
    const id = "10000000-0000-4000-8000-000000000010";
    await engine
      .execute(
        sql.expr`INSERT INTO "outbound_messages" ("id", "consumer", "status", "next_attempt_at", "updated_at") VALUES (${id}, 't', 'queued', '2026-01-02 03:04:05', 'soon')`,
      )
      .rowsAffected();
    const read = engine.execute(select(Outbound, ["nextAttemptAt"]).where({ id })).one();
    expect((await read).nextAttemptAt.toISOString()).toBe("2026-01-02T03:04:05.000Z");
    const error = await engine
      .execute(select(Outbound, ["updatedAt"]).where({ id }))
      .one()
      .catch((e: unknown) => e);
    expect(TempestError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(`outbound_messages.updated_at holds "soon"`);
  });

  it("reads every stored ISO datetime back as the same instant (years 0000-9999, month ends, leap days)", async () => {
    const { engine } = db;
    const id = "10000000-0000-4000-8000-000000000011";
    const texts = [
      "0000-01-01T00:00:00.000Z",
      "0099-12-31T23:59:59.999Z",
      "0100-03-01T00:00:00.000Z",
      "1970-01-01T00:00:00.000Z",
      "2024-02-29T12:34:56.789Z",
      "2023-02-28T23:59:59.999Z",
      "2026-12-31T23:59:59.999Z",
      "9999-12-31T23:59:59.999Z",
    ];
    for (let i = 0; i < 200; i++) texts.push(new Date(Date.UTC(0, 0, 1) * (1 - i / 100) + i * 7.3e10).toISOString());
    for (const text of texts.filter((t) => t.length === 24)) {
      await engine.execute(sql.expr`DELETE FROM "outbound_messages"`).rowsAffected();
      await engine
        .execute(
          sql.expr`INSERT INTO "outbound_messages" ("id", "consumer", "status", "next_attempt_at") VALUES (${id}, 't', 'queued', ${text})`,
        )
        .rowsAffected();
      const read = await engine.execute(select(Outbound, ["nextAttemptAt"]).where({ id })).one();
      expect(read.nextAttemptAt.getTime(), text).toBe(new Date(text).getTime());
    }
  });

  it("rows sharing a datetime text and rows that differ read back as their own instants, each a Date of its own", async () => {
    const { engine } = db;
    // A claim's shape: one sql.now() text in every row beside a text of each row's own, decoded in turn.
    const shared = "2026-05-06T07:08:09.123Z";
    const own = ["2026-01-01T00:00:00.001Z", "2026-01-01T00:00:00.002Z", shared, "2025-12-31T23:59:59.999Z", "2026-01-01T00:00:00.001Z"];
    const ids = own.map((_, i) => `20000000-0000-4000-8000-00000000000${i}`);
    for (let i = 0; i < own.length; i++) {
      await engine
        .execute(
          sql.expr`INSERT INTO "outbound_messages" ("id", "consumer", "status", "next_attempt_at", "updated_at") VALUES (${ids[i]}, 't', 'queued', ${own[i]}, ${shared})`,
        )
        .rowsAffected();
    }
    const rows = await engine.execute(select(Outbound, ["id", "nextAttemptAt", "updatedAt"]).orderBy("id")).all();
    expect(rows.map((r) => [r.nextAttemptAt.toISOString(), r.updatedAt?.toISOString()])).toEqual(own.map((text) => [text, shared]));
    const dates = rows.flatMap((r) => [r.nextAttemptAt, r.updatedAt]);
    expect(new Set(dates).size).toBe(dates.length);
    (dates[1] as Date).setTime(0);
    expect(rows[1]?.updatedAt?.toISOString()).toBe(shared);
  });

  it("the enum CHECK refuses a value that bypasses the builder", async () => {
    const error = await db.engine
      .execute(
        sql.raw(
          `INSERT INTO "outbound_messages" ("id", "consumer", "status", "next_attempt_at") VALUES ('x', 't', 'lost', '2026-01-01T00:00:00.000Z')`,
        ),
      )
      .rowsAffected()
      .catch((e: unknown) => e);
    expect(ConstraintViolationError.isInstance(error)).toBe(true);
    expect((error as QueryError).kind).toBe("check-violation");
    expect((error as QueryError).driverCode).toBe("SQLITE_CONSTRAINT_CHECK");
  });
});
