import type { TransactionHandle } from "tempest-db-js";
import { createEngine, insert, PoolTimeoutError, QueryError, select, sql, TransactionTimeoutError } from "tempest-db-js";
import { afterEach, describe, expect, it } from "vitest";
import type { Opened, Target } from "./targets.js";
import { Entry } from "./targets.js";

const never = new Promise<never>(() => {});

/** A promise that resolves when told, to release a callback the test held. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

export function timeoutSuite(target: Target, slowStatement: string | undefined): void {
  describe(`${target.label}: a stuck transaction cannot hang the engine`, () => {
    const opened: Opened[] = [];
    const open = async (options: Parameters<Target["open"]>[0]) => {
      const db = await target.open(options);
      opened.push(db);
      return db;
    };
    afterEach(async () => {
      for (const db of opened.splice(0)) await db.close();
    });

    it("an idle callback is rolled back at idleInTransactionTimeoutMs; its later statements are refused unsent", async () => {
      const db = await open({ idleInTransactionTimeoutMs: 300 });
      const release = gate();
      let late: unknown;
      const started = performance.now();
      const error = await db.engine
        .transaction(async (tx) => {
          await tx.execute(insert(Entry).values({ id: 1, value: 1 }));
          await release.wait; // stuck: waits on something that does not come in time
          late = await Promise.resolve(tx.execute(insert(Entry).values({ id: 2, value: 2 }))).catch((e: unknown) => e);
        })
        .catch((e: unknown) => e);
      const waited = performance.now() - started;
      expect(TransactionTimeoutError.isInstance(error), String(error)).toBe(true);
      expect((error as TransactionTimeoutError).kind).toBe("transaction-timeout");
      expect((error as TransactionTimeoutError).retryable).toBe(false);
      expect(waited).toBeGreaterThanOrEqual(250);
      expect(await db.rows()).toEqual([]);
      // The callback wakes up later: its statement is refused before anything is sent.
      const sentBefore = db.sent.length;
      release.open();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(TransactionTimeoutError.isInstance(late)).toBe(true);
      expect(db.sent.length).toBe(sentBefore);
      // The connection went back (or was replaced): the engine serves the next transaction.
      await db.engine.transaction(async (tx) => {
        await tx.execute(insert(Entry).values({ id: 3, value: 3 }));
      });
      expect(await db.rows()).toEqual([{ id: 3, value: 3 }]);
    });

    it("a busy transaction is not idle: statements one after another keep it alive past the idle limit", async () => {
      const db = await open({ idleInTransactionTimeoutMs: 300 });
      await db.engine.transaction(async (tx) => {
        for (let i = 1; i <= 6; i++) {
          await tx.execute(insert(Entry).values({ id: i, value: i }));
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      });
      expect((await db.rows()).length).toBe(6);
    });

    it("transactionTimeoutMs counts from BEGIN: rolled back, and transaction() rejects though the callback resolves later", async () => {
      const db = await open({ transactionTimeoutMs: 300, idleInTransactionTimeoutMs: 0 });
      const release = gate();
      const outcome = db.engine.transaction(async (tx) => {
        await tx.execute(insert(Entry).values({ id: 1, value: 1 }));
        await release.wait;
        return "finished late";
      });
      const error = await outcome.catch((e: unknown) => e);
      release.open();
      expect(TransactionTimeoutError.isInstance(error), String(error)).toBe(true);
      expect(String((error as Error).message)).toContain("transactionTimeoutMs");
      expect(await db.rows()).toEqual([]);
    });

    if (slowStatement !== undefined) {
      it("a statement running when transactionTimeoutMs passes is cancelled on the server", async () => {
        const db = await open({ transactionTimeoutMs: 400 });
        const started = performance.now();
        let statementError: unknown;
        const error = await db.engine
          .transaction(async (tx) => {
            await tx.execute(insert(Entry).values({ id: 1, value: 1 }));
            statementError = await Promise.resolve(tx.execute(sql.raw(slowStatement))).catch((e: unknown) => e);
          })
          .catch((e: unknown) => e);
        const waited = performance.now() - started;
        expect(TransactionTimeoutError.isInstance(error), String(error)).toBe(true);
        // The 30 s statement did not run to its end: it was cancelled soon after the limit.
        expect(waited).toBeLessThan(5000);
        expect(QueryError.isInstance(statementError)).toBe(true);
        expect(await db.rows()).toEqual([]);
      });
    }

    it("acquireTimeoutMs: with every connection held, a statement fails with a retryable PoolTimeoutError", async () => {
      const db = await open({ poolSize: 1, acquireTimeoutMs: 200 });
      const release = gate();
      let held!: () => void;
      const holding = new Promise<void>((resolve) => {
        held = resolve;
      });
      const blocker = db.engine.transaction(async (tx: TransactionHandle) => {
        await tx.execute(insert(Entry).values({ id: 1, value: 1 }));
        held();
        await release.wait;
      });
      await holding;
      // Outside the transaction's async context, so SQLite's self-deadlock check does not apply.
      const error = await new Promise((resolve) => setImmediate(resolve)).then(() =>
        Promise.resolve(db.engine.execute(sql.raw("SELECT 1 AS one"))).catch((e: unknown) => e),
      );
      release.open();
      await blocker;
      expect(PoolTimeoutError.isInstance(error), String(error)).toBe(true);
      expect((error as PoolTimeoutError).kind).toBe("pool-timeout");
      expect((error as PoolTimeoutError).retryable).toBe(true);
      // The connection that arrived too late went back to the pool.
      expect(await db.engine.execute(sql.raw("SELECT 1 AS one")).scalar()).toBe(1);
    });

    it("close() rolls back a transaction whose callback never settles, and returns within its bound", async () => {
      const db = await target.open({ closeTimeoutMs: 2000 });
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const stuck = db.engine
        .transaction(async (tx) => {
          await tx.execute(insert(Entry).values({ id: 1, value: 1 }));
          entered();
          await never;
        })
        .catch((e: unknown) => e);
      await inside;
      const started = performance.now();
      await db.engine.close();
      expect(performance.now() - started).toBeLessThan(3000);
      const error = await stuck;
      expect(TransactionTimeoutError.isInstance(error), String(error)).toBe(true);
      expect(String((error as Error).message)).toContain("closing");
      // Another engine on the same database sees nothing of it, and no lock left behind.
      if (db.url !== undefined) {
        const other = createEngine(db.url, { poolSize: 1 });
        try {
          expect(await other.execute(select(Entry)).all()).toEqual([]);
          await other.execute(insert(Entry).values({ id: 1, value: 2 }));
          await other.dropAll([Entry]);
        } finally {
          await other.close();
        }
      }
    });
  });
}
