import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insert } from "../builder/insert-builder.js";
import { scalar } from "../builder/query-helpers.js";
import { select } from "../builder/select.js";
import type { Engine } from "../engine/engine.js";
import { ValidationError } from "../errors.js";
import { ConformanceTicket as Ticket } from "./conformance-models.js";

const at = (minute: number) => new Date(Date.UTC(2026, 0, 4, 11, minute));

const tickets = [
  { id: 1, state: "sent" as const, doneAt: at(30) },
  { id: 2, state: "queued" as const, doneAt: null },
  { id: 3, state: "Sending" as const, doneAt: at(20) },
  { id: 4, state: null, doneAt: null },
  { id: 5, state: "failed" as const, doneAt: at(25) },
  { id: 6, state: "sent" as const, doneAt: at(40) },
];

/**
 * Projection keys sort by the rules of a plain select (an enum in declaration order, NULL as the
 * largest value), whether the key is a column, an aggregate or a distinct select's, and min/max of
 * an enum follow its declaration order. Regression cases the differential query test found: a key of
 * `.columns()` sorted NULL first on MySQL and SQLite, a distinct select sorted by an enum failed on
 * PostgreSQL, and min() of an enum compared text (in the database's collation on PostgreSQL).
 */
export function queryOrderTests(engineOf: () => Engine): void {
  describe("sorting by projection keys", () => {
    let engine: Engine;

    beforeAll(async () => {
      engine = engineOf();
      await engine.dropAll([Ticket]);
      await engine.createAll([Ticket]);
      await engine.execute(insert(Ticket).values(tickets)).rowsAffected();
    });

    afterAll(async () => {
      await engine.dropAll([Ticket]);
    });

    it("a key naming a nullable column: NULL as the largest value", async () => {
      const byDone = (direction: "asc" | "desc") =>
        select(Ticket).columns({ id: "id", done: "doneAt" }).orderBy("done", direction).orderBy("id");
      expect(await engine.execute(byDone("asc")).scalars()).toEqual([3, 5, 1, 6, 2, 4]);
      expect(await engine.execute(byDone("desc")).scalars()).toEqual([2, 4, 6, 1, 5, 3]);
    });

    it("an aggregate key: a NULL max() as the largest value, an enum's min() in declaration order", async () => {
      const latest = select(Ticket)
        .columns((q) => ({ state: "state", last: q.max("doneAt") }))
        .groupBy("state")
        .orderBy("last")
        .orderBy("state");
      expect(await engine.execute(latest).all()).toEqual([
        { state: "Sending", last: at(20) },
        { state: "failed", last: at(25) },
        { state: "sent", last: at(40) },
        { state: "queued", last: null },
        { state: null, last: null },
      ]);
      const extremes = select(Ticket).columns((q) => ({ first: q.min("state"), last: q.max("state") }));
      expect(await engine.execute(extremes).one()).toEqual({ first: "queued", last: "Sending" });
      const byState = select(Ticket)
        .columns((q) => ({ id: "id", state: q.max("state") }))
        .groupBy("id")
        .orderBy("state", "desc")
        .orderBy("id");
      expect(await engine.execute(byState).scalars()).toEqual([4, 3, 1, 6, 5, 2]);
    });

    it("distinct, sorted by an enum key in declaration order (and by a reference it shows)", async () => {
      const states = select(Ticket).columns({ state: "state" }).distinct().orderBy("state");
      expect(await engine.execute(states).scalars()).toEqual(["queued", "failed", "sent", "Sending", null]);
      const aliased = select(Ticket, "t").columns({ s: "t.state" }).distinct().orderBy("t.state", "desc").limit(2);
      expect(await engine.execute(aliased).scalars()).toEqual([null, "Sending"]);
      const hidden = select(Ticket, "t").columns({ s: "t.state" }).distinct().orderBy("t.id");
      expect(() => engine.compile(hidden)).toThrow(ValidationError);
    });

    it("distinct rows of constants, paged: one distinct row, which an offset skips", async () => {
      // MariaDB cut such a select to one row before its OFFSET (the differential query test found it).
      const count = () => scalar(select(Ticket, "x").columns((q) => ({ n: q.count() })));
      const counts = (offset: number) =>
        select(Ticket, "t").innerJoin(Ticket, "u", "u.id", "t.id").columns({ n: count(), m: count() }).distinct().limit(2).offset(offset);
      expect(await engine.execute(counts(0)).all()).toEqual([{ n: 6, m: 6 }]);
      expect(await engine.execute(counts(1)).all()).toEqual([]);
      expect(await engine.execute(counts(2).orderBy("n")).all()).toEqual([]);
    });
  });
}
