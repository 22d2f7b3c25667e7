import type { ExecutedQuery, QueryEvent } from "tempest-db-js";
import {
  CommitOutcomeUnknownError,
  ConnectionError,
  ConstraintViolationError,
  insert,
  QueryError,
  select,
  sql,
  TransactionFailedError,
  TransactionFinishedError,
  update,
  ValidationError,
} from "tempest-db-js";
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import type { Opened, Target } from "./targets.js";
import { Entry } from "./targets.js";

const control = (events: readonly QueryEvent[]) => events.map((e) => e.sql).filter((s) => /^(BEGIN|START|COMMIT|ROLLBACK)/.test(s));

export function contractSuite(target: Target): void {
  describe(`${target.label}: awaiting execute() runs the statement`, () => {
    let db: Opened;
    beforeEach(async () => {
      db = await target.open();
    });
    afterEach(() => db.close());

    it("await engine.execute(insert) writes the row once and resolves to rows and rowsAffected", async () => {
      const outcome = await db.engine.execute(insert(Entry).values({ id: 1, value: 10 }));
      expect(outcome).toEqual({ rows: [], rowsAffected: 1 });
      expect(await db.rows()).toEqual([{ id: 1, value: 10 }]);
      expect(db.sent.filter((e) => e.sql.startsWith("INSERT"))).toHaveLength(1);
    });

    it("await tx.execute(insert) inside a transaction writes the row, which commits", async () => {
      await db.engine.transaction(async (tx) => {
        const outcome = await tx.execute(insert(Entry).values({ id: 2, value: 20 }));
        expect(outcome.rowsAffected).toBe(1);
      });
      expect(await db.rows()).toEqual([{ id: 2, value: 20 }]);
    });

    it("await, then accessors on the same result, run the statement once", async () => {
      await db.engine
        .execute(
          insert(Entry).values([
            { id: 1, value: 1 },
            { id: 2, value: 2 },
          ]),
        )
        .rowsAffected();
      db.sent.length = 0;
      const result = db.engine.execute(select(Entry).orderBy("id"));
      const awaited: ExecutedQuery<{ id: number; value: number }> = await result;
      expect(awaited).toEqual({
        rows: [
          { id: 1, value: 1 },
          { id: 2, value: 2 },
        ],
        rowsAffected: 2,
      });
      expect(await result.all()).toEqual(awaited.rows);
      expect(await result.first()).toEqual({ id: 1, value: 1 });
      expect(await result.scalar()).toBe(1);
      expect(await result.rowsAffected()).toBe(2);
      expect(await result).toBe(awaited);
      expect(db.sent).toHaveLength(1);
    });

    it("the awaited type carries the row type of the statement", async () => {
      const awaited = await db.engine.execute(select(Entry, ["id"]));
      expectTypeOf(awaited).toEqualTypeOf<ExecutedQuery<{ id: number }>>();
      expectTypeOf(awaited.rows).toEqualTypeOf<{ id: number }[]>();
      expectTypeOf(awaited.rowsAffected).toEqualTypeOf<number>();
      const raw = await db.engine.execute(sql.raw("SELECT 1 AS one"));
      expectTypeOf(raw.rows).toEqualTypeOf<Record<string, unknown>[]>();
    });

    it("a failed statement rejects the await with its typed error", async () => {
      await db.engine.execute(insert(Entry).values({ id: 1, value: 1 }));
      const error = await Promise.resolve(db.engine.execute(insert(Entry).values({ id: 1, value: 2 }))).catch((e: unknown) => e);
      expect(ConstraintViolationError.isInstance(error)).toBe(true);
    });
  });

  describe(`${target.label}: a failed statement fails the transaction it ran in`, () => {
    let db: Opened;
    beforeEach(async () => {
      db = await target.open();
    });
    afterEach(() => db.close());

    it("a caught duplicate insert: nothing commits, transaction() rejects with TransactionFailedError caused by it", async () => {
      const error = await db.engine
        .transaction(async (tx) => {
          await tx.execute(insert(Entry).values({ id: 1, value: 1 }));
          await tx.execute(insert(Entry).values({ id: 1, value: 2 })).catch(() => "caught");
          return "returned normally";
        })
        .catch((e: unknown) => e);
      expect(TransactionFailedError.isInstance(error)).toBe(true);
      const failed = error as TransactionFailedError;
      expect(ConstraintViolationError.isInstance(failed.cause)).toBe(true);
      expect(failed.retryable).toBe(false);
      expect(await db.rows()).toEqual([]);
      // COMMIT is never sent: the transaction is rolled back.
      expect(control(db.sent).slice(1)).toEqual(["ROLLBACK"]);
    });

    it("statements issued after the failure are refused without being sent", async () => {
      const later = await db.engine
        .transaction(async (tx) => {
          await tx.execute(insert(Entry).values({ id: 1, value: 1 }));
          await tx.execute(insert(Entry).values({ id: 1, value: 2 })).catch(() => undefined);
          db.sent.length = 0;
          return tx
            .execute(update(Entry).set({ value: 3 }).where({ id: 1 }))
            .rowsAffected()
            .catch((e: unknown) => e);
        })
        .catch((e: unknown) => e);
      expect(TransactionFailedError.isInstance(later)).toBe(true);
      expect(db.sent.map((e) => e.sql)).toEqual(["ROLLBACK"]);
    });

    it("a failure inside a nested transaction() that the outer callback catches only undoes the savepoint", async () => {
      await db.engine.transaction(async (tx) => {
        await tx.execute(insert(Entry).values({ id: 1, value: 1 }));
        const nested = await tx
          .transaction(async (inner) => {
            await inner.execute(insert(Entry).values({ id: 2, value: 2 }));
            await inner.execute(insert(Entry).values({ id: 1, value: 9 }));
          })
          .catch((e: unknown) => e);
        expect(ConstraintViolationError.isInstance(nested)).toBe(true);
        await tx.execute(insert(Entry).values({ id: 3, value: 3 }));
      });
      expect(await db.rows()).toEqual([
        { id: 1, value: 1 },
        { id: 3, value: 3 },
      ]);
    });

    it("a nested callback that catches its own failure rolls its savepoint back and rejects", async () => {
      const nested = await db.engine.transaction(async (tx) => {
        await tx.execute(insert(Entry).values({ id: 1, value: 1 }));
        return tx
          .transaction(async (inner) => {
            await inner.execute(insert(Entry).values({ id: 2, value: 2 }));
            await inner.execute(insert(Entry).values({ id: 1, value: 9 })).catch(() => undefined);
          })
          .catch((e: unknown) => e);
      });
      expect(TransactionFailedError.isInstance(nested)).toBe(true);
      expect(ConstraintViolationError.isInstance((nested as TransactionFailedError).cause)).toBe(true);
      expect(await db.rows()).toEqual([{ id: 1, value: 1 }]);
    });

    if (target.commitTag) {
      it("COMMIT answered with the tag ROLLBACK rejects: a failure the engine never saw still cannot report a commit", async () => {
        // The observed driver loses this statement's error, as a buggy driver would; the server still aborted.
        const hidden = await target.open({ hide: "contract_hidden_failure" });
        try {
          const error = await hidden.engine
            .transaction(async (tx) => {
              await tx.execute(insert(Entry).values({ id: 1, value: 1 }));
              await tx.execute(sql.raw("SELECT 1 / 0 AS contract_hidden_failure"));
            })
            .catch((e: unknown) => e);
          expect(TransactionFailedError.isInstance(error)).toBe(true);
          expect(control(hidden.sent).slice(1)).toEqual(["COMMIT"]);
          expect(await hidden.rows()).toEqual([]);
        } finally {
          await hidden.close();
        }
      });
    }
  });

  describe(`${target.label}: statements of one transaction run one at a time, in issue order`, () => {
    let db: Opened;
    beforeEach(async () => {
      db = await target.open();
    });
    afterEach(() => db.close());

    it("unawaited statements run in order, never two at once, and COMMIT waits for all of them", async () => {
      await db.engine.transaction(async (tx) => {
        tx.execute(insert(Entry).values({ id: 1, value: 1 }));
        tx.execute(
          update(Entry)
            .set({ value: sql.raw("value * 10") })
            .where({ id: 1 }),
        );
        tx.execute(
          update(Entry)
            .set({ value: sql.raw("value + 3") })
            .where({ id: 1 }),
        );
        void tx.execute(insert(Entry).values({ id: 2, value: 2 })).rowsAffected();
      });
      // In issue order: (1 * 10) + 3; in any other order the value differs.
      expect(await db.rows()).toEqual([
        { id: 1, value: 13 },
        { id: 2, value: 2 },
      ]);
      expect(db.traffic.maxInFlight).toBe(1);
      expect(control(db.sent).slice(-1)).toEqual(["COMMIT"]);
    });

    it("Promise.all of statements on a transaction: results in order, one at a time", async () => {
      const counts = await db.engine.transaction((tx) =>
        Promise.all([1, 2, 3, 4].map((id) => tx.execute(insert(Entry).values({ id, value: id })).rowsAffected())),
      );
      expect(counts).toEqual([1, 1, 1, 1]);
      expect(db.traffic.maxInFlight).toBe(1);
      expect((await db.rows()).map((r) => r.id)).toEqual([1, 2, 3, 4]);
    });

    it("an unawaited statement that fails fails the transaction: rolled back, TransactionFailedError", async () => {
      const error = await db.engine
        .transaction(async (tx) => {
          await tx.execute(insert(Entry).values({ id: 1, value: 1 }));
          tx.execute(insert(Entry).values({ id: 1, value: 2 }));
          tx.execute(insert(Entry).values({ id: 2, value: 2 }));
        })
        .catch((e: unknown) => e);
      expect(TransactionFailedError.isInstance(error)).toBe(true);
      expect(ConstraintViolationError.isInstance((error as TransactionFailedError).cause)).toBe(true);
      expect(await db.rows()).toEqual([]);
      // The statement after the failure was never sent.
      expect(db.sent.filter((e) => e.sql.startsWith("INSERT"))).toHaveLength(2);
    });

    it("a statement issued after the callback returned is refused with TransactionFinishedError, nothing sent", async () => {
      let handle: Parameters<Parameters<typeof db.engine.transaction>[0]>[0] | undefined;
      await db.engine.transaction(async (tx) => {
        handle = tx;
        await tx.execute(insert(Entry).values({ id: 1, value: 1 }));
      });
      db.sent.length = 0;
      const late = await Promise.resolve(handle?.execute(insert(Entry).values({ id: 2, value: 2 }))).catch((e: unknown) => e);
      expect(TransactionFinishedError.isInstance(late)).toBe(true);
      const lateNested = await handle?.transaction(async () => undefined).catch((e: unknown) => e);
      expect(TransactionFinishedError.isInstance(lateNested)).toBe(true);
      expect(db.sent).toEqual([]);
      expect(await db.rows()).toEqual([{ id: 1, value: 1 }]);
    });

    it("a statement on the outer handle while a savepoint is open on it is refused, not interleaved", async () => {
      await db.engine.transaction(async (tx) => {
        let refused: unknown;
        await tx.transaction(async (inner) => {
          refused = await Promise.resolve(tx.execute(insert(Entry).values({ id: 9, value: 9 }))).catch((e: unknown) => e);
          await inner.execute(insert(Entry).values({ id: 1, value: 1 }));
        });
        expect(ValidationError.isInstance(refused)).toBe(true);
      });
      expect(await db.rows()).toEqual([{ id: 1, value: 1 }]);
    });
  });

  const kill = target.kill;
  if (kill) {
    describe(`${target.label}: a COMMIT whose connection drops`, () => {
      let db: Opened;
      beforeEach(async () => {
        db = await target.open();
      });
      afterEach(() => db.close());

      it("has an unknown outcome: CommitOutcomeUnknownError, never retryable, never retried", async () => {
        let runs = 0;
        const error = await db.engine
          .transaction(
            async (tx) => {
              runs++;
              const id = await tx.execute(sql.raw(kill.ownId)).scalar();
              await tx.execute(insert(Entry).values({ id: 1, value: 1 }));
              // Another connection kills this one: the next thing the transaction sends is COMMIT.
              await db.engine.execute(sql.raw(kill.terminate(id)));
            },
            { retryOnDeadlock: 3 },
          )
          .catch((e: unknown) => e);
        expect(CommitOutcomeUnknownError.isInstance(error)).toBe(true);
        const unknown = error as CommitOutcomeUnknownError;
        expect(ConnectionError.isInstance(unknown)).toBe(true);
        expect(QueryError.isInstance(unknown)).toBe(true);
        expect(unknown.outcomeUnknown).toBe(true);
        expect(unknown.retryable).toBe(false);
        expect(unknown.sql).toBe("COMMIT");
        expect(runs).toBe(1);
        // The server rolled back the killed session; the pool serves the next statement.
        expect(await db.rows()).toEqual([]);
      });

      it("a connection lost before COMMIT is a statement failure, not an unknown outcome", async () => {
        const error = await db.engine
          .transaction(async (tx) => {
            const id = await tx.execute(sql.raw(kill.ownId)).scalar();
            await db.engine.execute(sql.raw(kill.terminate(id)));
            await tx.execute(insert(Entry).values({ id: 1, value: 1 })).catch(() => "caught");
          })
          .catch((e: unknown) => e);
        expect(TransactionFailedError.isInstance(error)).toBe(true);
        expect(ConnectionError.isInstance((error as TransactionFailedError).cause)).toBe(true);
        expect(CommitOutcomeUnknownError.isInstance(error)).toBe(false);
        expect(await db.rows()).toEqual([]);
      });
    });
  }
}
