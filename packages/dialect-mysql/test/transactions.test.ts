import { insert, QueryError, select, sql, update } from "tempest-db-js";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { Account } from "./models.js";
import { closeEngines, recordingEngine, testEngine } from "./support.js";

const engine = testEngine();

async function balances(): Promise<Record<number, number>> {
  const rows = await engine.execute(select(Account).orderBy("id")).all();
  return Object.fromEntries(rows.map((r) => [r.id, r.balance]));
}

beforeEach(async () => {
  await engine.dropAll([Account]);
  await engine.createAll([Account]);
  await engine
    .execute(
      insert(Account).values([
        { id: 1, balance: 100 },
        { id: 2, balance: 100 },
      ]),
    )
    .rowsAffected();
});

afterAll(closeEngines);

describe("transactions", () => {
  it("roll everything back when a statement fails inside, and the pool stays usable", async () => {
    const single = testEngine({ poolSize: 1 });
    const error = await single
      .transaction(async (tx) => {
        await tx.execute(update(Account).set({ balance: 0 }).where({ id: 1 })).rowsAffected();
        await tx.execute(insert(Account).values({ id: 3, balance: 5 })).rowsAffected();
        await tx.execute(insert(Account).values({ id: 2, balance: 1 })).rowsAffected(); // duplicate key
      })
      .catch((e: unknown) => e);
    expect(QueryError.isInstance(error)).toBe(true);
    expect(await balances()).toEqual({ 1: 100, 2: 100 });
    // The one pooled connection came back out of the transaction: autocommit works on it again,
    // so another pool sees the write at once.
    await single.execute(update(Account).set({ balance: 7 }).where({ id: 2 })).rowsAffected();
    expect(await balances()).toEqual({ 1: 100, 2: 7 });
  });

  it("roll back when the callback throws, and commit when it returns", async () => {
    await expect(
      engine.transaction(async (tx) => {
        await tx.execute(update(Account).set({ balance: 1 }).where({ id: 1 })).rowsAffected();
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    await engine.transaction((tx) => tx.execute(update(Account).set({ balance: 2 }).where({ id: 2 })).rowsAffected());
    expect(await balances()).toEqual({ 1: 100, 2: 2 });
  });

  it("nest as savepoints: an inner failure undoes only the inner work", async () => {
    await engine.transaction(async (tx) => {
      await tx.execute(update(Account).set({ balance: 50 }).where({ id: 1 })).rowsAffected();
      await tx
        .transaction(async (inner) => {
          await inner.execute(update(Account).set({ balance: 0 }).where({ id: 2 })).rowsAffected();
          throw new Error("inner");
        })
        .catch(() => undefined);
    });
    expect(await balances()).toEqual({ 1: 50, 2: 100 });
  });

  it("set the isolation level before START TRANSACTION, and READ ONLY refuses writes", async () => {
    const { engine: watched, statements } = recordingEngine();
    const one = await watched.transaction((tx) => tx.execute(select(Account, ["balance"]).where({ id: 1 })).one(), {
      isolation: "serializable",
      readOnly: true,
    });
    expect(one.balance).toBe(100);
    expect(statements.map((s) => s.sql)).toEqual([
      "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
      "START TRANSACTION READ ONLY",
      "SELECT `balance` FROM `dm_account` WHERE `id` = ?",
      "COMMIT",
    ]);
    const error = await watched
      .transaction((tx) => tx.execute(update(Account).set({ balance: 0 }).where({ id: 1 })).rowsAffected(), { readOnly: true })
      .catch((e: unknown) => e);
    expect(QueryError.isInstance(error)).toBe(true);
    expect(await balances()).toEqual({ 1: 100, 2: 100 });
  });

  it("run at READ COMMITTED by default, like PostgreSQL, and at the level a transaction asks for", async () => {
    expect(await engine.execute(sql.raw("SELECT @@SESSION.tx_isolation AS level")).scalar()).toBe("READ-COMMITTED");
    const other = testEngine();
    // Reads the balance twice with another connection's commit in between.
    const twice = (isolation?: "repeatable read") =>
      engine.transaction(
        async (tx) => {
          const read = async () => (await tx.execute(select(Account, ["balance"]).where({ id: 1 })).one()).balance;
          const before = await read();
          await other
            .execute(
              update(Account)
                .set({ balance: sql.raw("balance + 1") })
                .where({ id: 1 }),
            )
            .rowsAffected();
          return [before, await read()];
        },
        isolation ? { isolation } : {},
      );
    expect(await twice()).toEqual([100, 101]); // READ COMMITTED sees the other commit
    expect(await twice("repeatable read")).toEqual([101, 101]); // its snapshot does not
    expect(await balances()).toEqual({ 1: 102, 2: 100 });
  });

  it("report rows affected as matched rows", async () => {
    expect(
      await engine
        .execute(
          update(Account)
            .set({ balance: 100 })
            .where({ id: { in: [1, 2] } }),
        )
        .rowsAffected(),
    ).toBe(2);
  });
});
