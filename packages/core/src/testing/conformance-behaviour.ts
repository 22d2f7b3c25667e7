import { expect, it } from "vitest";
import { deleteFrom } from "../builder/delete-builder.js";
import { insert } from "../builder/insert-builder.js";
import { op } from "../builder/op.js";
import { select } from "../builder/select.js";
import type { Engine, EngineOptions } from "../engine/engine.js";
import type { QueryEvent } from "../engine/query-event.js";
import { ConstraintViolationError, NoResultError, QueryError, TooManyResultsError } from "../errors.js";
import { sql } from "../expression/sql.js";
import { ConformanceJob, ConformanceValue, JOB_IDS, T0 } from "./conformance-models.js";

const SECRET = "s3cr3t-parameter-value";

export const fullValues = {
  id: 1,
  uuidValue: "6f1c2a52-9d0e-4c1b-8e57-2f5a9a1d3c4b",
  textValue: `O'Reilly "quoted" \\ backslash ü 😀 $1 ? -- ;`,
  varcharValue: "short",
  integerValue: 2147483647,
  bigintValue: 2n ** 60n + 1n,
  realValue: 1.5,
  numericValue: "12345678901234567890.1234567890",
  booleanValue: true,
  datetimeValue: T0,
  dateValue: "2026-02-28",
  jsonValue: { a: [1, "x", null, { b: true }], "quote'd": "v" },
  enumValue: "green" as const,
  bytesValue: Buffer.from([0, 1, 127, 128, 255]),
  flag: true,
};

/** Behaviour every dialect must show on its real server, beyond single statements. */
export function behaviourTests(engineOf: () => Engine, makeEngine: (options: EngineOptions) => Engine): void {
  it("every column kind round-trips exactly, and nulls stay null", async () => {
    const engine = engineOf();
    await engine.execute(deleteFrom(ConformanceValue).allRows()).rowsAffected();
    const zeroes = { id: 3, integerValue: 0, bigintValue: 0n, realValue: 0, booleanValue: false, textValue: "", jsonValue: [] };
    await engine.execute(insert(ConformanceValue).values([fullValues, { id: 2 }, zeroes])).rowsAffected();
    const rows = await engine.execute(select(ConformanceValue).orderBy("id")).all();
    const nulls = Object.fromEntries(Object.keys(fullValues).map((k) => [k, null]));
    expect(rows).toEqual([fullValues, { ...nulls, id: 2, flag: false }, { ...nulls, ...zeroes, flag: false }]);
  });

  it("a bulk insert of rows naming the same fields binds every cell as written, nulls included", async () => {
    const engine = engineOf();
    await engine.execute(deleteFrom(ConformanceValue).allRows()).rowsAffected();
    // One shape for every row, so core reads them with the reader generated for it, and binds
    // the cells in bulk where the dialect's encodesAsIs says so.
    const rows = Array.from({ length: 40 }, (_, i) => ({
      id: 100 + i,
      uuidValue: i % 2 ? null : `6f1c2a52-9d0e-4c1b-8e57-2f5a9a1d3c${String(i).padStart(2, "0")}`,
      textValue: i % 3 ? `t${i} ü 😀 'q' \\` : null,
      varcharValue: i % 2 ? "v" : null,
      integerValue: i % 5 ? i * -7919 : null,
      bigintValue: i % 2 ? BigInt(i) * 2n ** 40n : null,
      realValue: i % 4 ? i + 0.25 : null,
      numericValue: i % 2 ? null : `${i}.1250000000`,
      booleanValue: i % 3 ? i % 2 === 0 : null,
      dateValue: i % 2 ? "2026-02-28" : null,
      enumValue: i % 2 ? ("green" as const) : null,
      flag: i % 2 === 0,
    }));
    await engine.execute(insert(ConformanceValue).values(rows)).rowsAffected();
    const back = await engine
      .execute(
        select(ConformanceValue)
          .where({ id: op.gte(100) })
          .orderBy("id"),
      )
      .all();
    expect(back).toEqual(rows.map((row) => ({ ...row, datetimeValue: null, jsonValue: null, bytesValue: null })));
  });

  it("datetimes written from JavaScript and by sql.now() compare and sort together", async () => {
    const engine = engineOf();
    const now = Date.now();
    const ids = ["10000000-0000-4000-8000-000000000001", "10000000-0000-4000-8000-000000000002", "10000000-0000-4000-8000-000000000003"];
    await engine.execute(deleteFrom(ConformanceJob).allRows()).rowsAffected();
    await engine
      .execute(
        insert(ConformanceJob).values([
          { id: ids[2] as string, consumer: "t", status: "queued", nextAttemptAt: new Date(now + 600_000) },
          { id: ids[1] as string, consumer: "t", status: "queued", nextAttemptAt: sql.now() },
          { id: ids[0] as string, consumer: "t", status: "queued", nextAttemptAt: new Date(now - 600_000) },
        ]),
      )
      .rowsAffected();
    const ordered = await engine.execute(select(ConformanceJob, ["id"]).orderBy("nextAttemptAt")).all();
    expect(ordered.map((r) => r.id)).toEqual(ids);
    const due = await engine
      .execute(
        select(ConformanceJob, ["id"])
          .where({ nextAttemptAt: op.lte(sql.now()) })
          .orderBy("nextAttemptAt"),
      )
      .all();
    expect(due.map((r) => r.id)).toEqual(ids.slice(0, 2));
  });

  it("a transaction commits and returns the callback's value", async () => {
    const engine = engineOf();
    const value = await engine.transaction(async (tx) => {
      await tx
        .execute(insert(ConformanceJob).values({ id: JOB_IDS[3], consumer: "tx", status: "queued", nextAttemptAt: T0 }))
        .rowsAffected();
      return "done";
    });
    expect(value).toBe("done");
    expect(await engine.execute(select(ConformanceJob, ["id"]).where({ id: JOB_IDS[3] })).all()).toHaveLength(1);
  });

  it("a failing statement rolls back the whole transaction and the pool stays usable", async () => {
    const engine = engineOf();
    const count = async () => (await engine.execute(select(ConformanceJob, ["id"])).all()).length;
    const before = await count();
    const error = await engine
      .transaction(async (tx) => {
        await tx
          .execute(insert(ConformanceJob).values({ id: JOB_IDS[3], consumer: "tx", status: "queued", nextAttemptAt: T0 }))
          .rowsAffected();
        await tx
          .execute(insert(ConformanceJob).values({ id: JOB_IDS[0], consumer: "dup", status: "queued", nextAttemptAt: T0 }))
          .rowsAffected();
      })
      .catch((e: unknown) => e);
    expect(ConstraintViolationError.isInstance(error)).toBe(true);
    expect((error as QueryError).kind).toBe("unique-violation");
    expect(await count()).toBe(before);
    for (let i = 0; i < 12; i++) expect(await count()).toBe(before);
  });

  it("a nested transaction rolls back to its savepoint only", async () => {
    const engine = engineOf();
    const row = (id: string) => ({ id, consumer: "nested", status: "queued" as const, nextAttemptAt: T0 });
    await engine.transaction(async (tx) => {
      await tx.execute(insert(ConformanceJob).values(row(JOB_IDS[3]))).rowsAffected();
      await tx
        .transaction(async (inner) => {
          await inner.execute(insert(ConformanceJob).values(row("20000000-0000-4000-8000-000000000001"))).rowsAffected();
          throw new Error("inner fails");
        })
        .catch(() => undefined);
    });
    const nested = await engine.execute(select(ConformanceJob, ["id"]).where({ consumer: "nested" })).all();
    expect(nested).toEqual([{ id: JOB_IDS[3] }]);
  });

  it("one(), oneOrNull(), first() and scalar() keep their promises", async () => {
    const engine = engineOf();
    const none = select(ConformanceJob, ["id"]).where({ consumer: "nobody" });
    const two = select(ConformanceJob, ["id"]).where({ consumer: "billing" });
    await expect(engine.execute(none).one()).rejects.toSatisfy(NoResultError.isInstance.bind(NoResultError));
    await expect(engine.execute(two).one()).rejects.toSatisfy(TooManyResultsError.isInstance.bind(TooManyResultsError));
    await expect(engine.execute(two).oneOrNull()).rejects.toSatisfy(TooManyResultsError.isInstance.bind(TooManyResultsError));
    expect(await engine.execute(none).oneOrNull()).toBeNull();
    expect(await engine.execute(none).first()).toBeUndefined();
    expect(await engine.execute(select(ConformanceJob, ["attempts"]).where({ id: JOB_IDS[1] })).scalar()).toBe(2);
  });

  it("driver errors carry the failed SQL with parameters redacted, unless logParams is on", async () => {
    const bad = insert(ConformanceJob).values({ id: JOB_IDS[0], consumer: SECRET, status: "queued", nextAttemptAt: T0 });
    const error = (await engineOf()
      .execute(bad)
      .rowsAffected()
      .catch((e: unknown) => e)) as QueryError;
    expect(QueryError.isInstance(error)).toBe(true);
    expect(error.sql).toBe(engineOf().compile(bad).sql);
    expect(error.params).toBe("[redacted]");
    expect(error.message).not.toContain(SECRET);
    const verbose = makeEngine({ logParams: true });
    try {
      const logged = (await verbose
        .execute(bad)
        .rowsAffected()
        .catch((e: unknown) => e)) as QueryError;
      expect(logged.params).toContain(SECRET);
    } finally {
      await verbose.close();
    }
  });

  it("query events report the SQL, duration and row count, and flag slow queries", async () => {
    const events: QueryEvent[] = [];
    const logged = makeEngine({ onQuery: (e) => events.push(e), slowQueryMs: 0 });
    try {
      const query = select(ConformanceJob, ["id"]).where({ consumer: "billing" });
      await logged.execute(query).all();
      const event = events.find((e) => e.sql === logged.compile(query).sql);
      expect(event).toMatchObject({ rowCount: 2, slow: true, params: undefined, error: undefined });
      expect(event?.durationMs).toBeGreaterThanOrEqual(0);
    } finally {
      await logged.close();
    }
  });

  it("raw statements run and return plain rows", async () => {
    const rows = await engineOf().execute(sql.raw("SELECT 1 AS one")).all();
    expect(Number(rows[0]?.one)).toBe(1);
  });
}
