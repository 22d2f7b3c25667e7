import { describe, expect, test } from "vitest";
import { NoResultError, QueryResult, TooManyResultsError } from "../src/index.js";

function result<R>(rows: R[], rowsAffected = rows.length) {
  let runs = 0;
  const q = new QueryResult<R>(async () => {
    runs++;
    return { rows, rowsAffected };
  });
  return { q, runs: () => runs };
}

describe("QueryResult accessors", () => {
  test("all, first, one, oneOrNull, scalar, rowsAffected on one row", async () => {
    const { q } = result([{ id: "a", n: 1 }]);
    expect(await q.all()).toEqual([{ id: "a", n: 1 }]);
    expect(await q.first()).toEqual({ id: "a", n: 1 });
    expect(await q.one()).toEqual({ id: "a", n: 1 });
    expect(await q.oneOrNull()).toEqual({ id: "a", n: 1 });
    expect(await q.scalar()).toBe("a");
    expect(await q.rowsAffected()).toBe(1);
  });

  test("no rows: one() throws NoResultError, the others answer empty", async () => {
    const { q } = result<{ id: string }>([], 0);
    await expect(q.one()).rejects.toSatisfy((e) => NoResultError.isInstance(e) && (e as NoResultError).code === "NO_RESULT");
    expect(await q.oneOrNull()).toBeNull();
    expect(await q.first()).toBeUndefined();
    expect(await q.scalar()).toBeUndefined();
    expect(await q.all()).toEqual([]);
    expect(await q.rowsAffected()).toBe(0);
  });

  test("several rows: one() and oneOrNull() throw TooManyResultsError with the count", async () => {
    const { q } = result([{ id: "a" }, { id: "b" }, { id: "c" }]);
    await expect(q.one()).rejects.toMatchObject({ name: "TooManyResultsError", count: 3 });
    await expect(q.oneOrNull()).rejects.toBeInstanceOf(TooManyResultsError);
    expect(await q.first()).toEqual({ id: "a" });
  });

  test("rowsAffected is the driver's count, not the number of rows returned", async () => {
    const { q } = result([], 7);
    expect(await q.rowsAffected()).toBe(7);
  });

  test("the statement runs once, lazily, however many accessors are awaited", async () => {
    const { q, runs } = result([{ id: "a" }]);
    expect(runs()).toBe(0);
    await Promise.all([q.all(), q.first(), q.rowsAffected()]);
    await q.oneOrNull();
    expect(runs()).toBe(1);
  });

  test("a failed run rejects every accessor with the same error", async () => {
    const boom = new Error("boom");
    let runs = 0;
    const q = new QueryResult(async () => {
      runs++;
      throw boom;
    });
    await expect(q.all()).rejects.toBe(boom);
    await expect(q.rowsAffected()).rejects.toBe(boom);
    expect(runs).toBe(1);
  });
});

describe("QueryResult is a thenable", () => {
  test("await runs the statement once and resolves to rows and rowsAffected; accessors after it reuse the run", async () => {
    const { q, runs } = result([{ id: "a" }, { id: "b" }], 2);
    expect(runs()).toBe(0);
    const awaited = await q;
    expect(awaited).toEqual({ rows: [{ id: "a" }, { id: "b" }], rowsAffected: 2 });
    expect(await q.all()).toBe(awaited.rows);
    expect(await q.rowsAffected()).toBe(2);
    expect(await q).toBe(awaited);
    expect(runs()).toBe(1);
  });

  test("accessors first, then await: still one run", async () => {
    const { q, runs } = result([{ id: "a" }]);
    expect(await q.first()).toEqual({ id: "a" });
    expect((await q).rows).toEqual([{ id: "a" }]);
    expect(runs()).toBe(1);
  });

  test("a result produced synchronously reaches then() callbacks asynchronously, as a promise's would", async () => {
    let runs = 0;
    const q = new QueryResult(() => {
      runs++;
      return { rows: [{ n: 1 }], rowsAffected: 1 };
    });
    const seen: string[] = [];
    const pending = q.then((r) => seen.push(`rows ${r.rows.length}`));
    seen.push("after then()");
    await pending;
    expect(seen).toEqual(["after then()", "rows 1"]);
    expect(await q.scalar()).toBe(1);
    expect(runs).toBe(1);
  });

  test("a failure rejects the await; catch and finally behave as on a promise", async () => {
    const boom = new Error("boom");
    let runs = 0;
    const q = new QueryResult<{ id: string }>(() => {
      runs++;
      throw boom;
    });
    await expect(Promise.resolve(q)).rejects.toBe(boom);
    expect(await q.catch((e: unknown) => (e === boom ? "caught" : "other"))).toBe("caught");
    let finallyRan = false;
    await expect(
      q.finally(() => {
        finallyRan = true;
      }),
    ).rejects.toBe(boom);
    expect(finallyRan).toBe(true);
    await expect(q.rowsAffected()).rejects.toBe(boom);
    expect(runs).toBe(1);
  });

  test("an issued result never starts a run of its own", async () => {
    const q = QueryResult.issued(Promise.resolve({ rows: [{ id: "x" }], rowsAffected: 1 }));
    expect(await q.one()).toEqual({ id: "x" });
    expect((await q).rowsAffected).toBe(1);
  });
});
