import { inspect } from "node:util";
import type { TransactionHandle } from "tempest-db-js";
import {
  ConnectionError,
  ConstraintViolationError,
  insert,
  QueryError,
  RetryableTransactionError,
  select,
  sql,
  update,
} from "tempest-db-js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Account, Child, Everything, Parent } from "./models.js";
import { closeEngines, gate, testEngine } from "./support.js";

const engine = testEngine();

async function failure(run: () => Promise<unknown>): Promise<QueryError> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!QueryError.isInstance(error)) throw new Error(`expected a QueryError, got ${inspect(error)}`);
  return error;
}

beforeAll(async () => {
  await engine.dropAll([Parent, Child, Account, Everything]);
  await engine.createAll([Parent, Child, Account, Everything]);
  await engine.execute(sql.raw("ALTER TABLE dm_parent ADD CONSTRAINT dm_parent_name_short CHECK (CHAR_LENGTH(name) < 10)")).rowsAffected();
  await engine.execute(insert(Parent).values({ id: 1, name: "one" })).rowsAffected();
  await engine.execute(insert(Child).values({ id: 1, parentId: 1 })).rowsAffected();
});

beforeEach(async () => {
  await engine.execute(sql.raw("DELETE FROM dm_account")).rowsAffected();
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

describe("server errors become typed errors", () => {
  it("unique violation, with the key's name", async () => {
    const error = await failure(() => engine.execute(insert(Parent).values({ id: 1, name: "again" })).rowsAffected());
    expect(ConstraintViolationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: "unique-violation", driverCode: "ER_DUP_ENTRY", constraint: "PRIMARY" });
  });

  it("foreign key violations, both directions", async () => {
    const child = await failure(() => engine.execute(insert(Child).values({ id: 2, parentId: 99 })).rowsAffected());
    expect(child).toMatchObject({ kind: "foreign-key-violation", driverCode: "ER_NO_REFERENCED_ROW_2" });
    expect(child.constraint).toMatch(/^dm_child_ibfk_/);
    const parent = await failure(() => engine.execute(sql.raw("DELETE FROM dm_parent WHERE id = 1")).rowsAffected());
    expect(parent).toMatchObject({ kind: "foreign-key-violation", driverCode: "ER_ROW_IS_REFERENCED_2" });
  });

  it("not-null violation", async () => {
    const error = await failure(() => engine.execute(sql.expr`INSERT INTO dm_parent (id, name) VALUES (${5}, ${null})`).rowsAffected());
    expect(ConstraintViolationError.isInstance(error)).toBe(true);
    expect(error.kind).toBe("not-null-violation");
  });

  it("check violation, with the constraint's name", async () => {
    const error = await failure(() => engine.execute(insert(Parent).values({ id: 6, name: "far too long a name" })).rowsAffected());
    expect(error).toMatchObject({ kind: "check-violation", constraint: "dm_parent_name_short" });
  });

  it("syntax error", async () => {
    const error = await failure(() => engine.execute(sql.raw("SELEC 1")).all());
    expect(error).toMatchObject({ kind: "syntax", driverCode: "ER_PARSE_ERROR" });
  });

  it("statement timeout", async () => {
    const timed = testEngine({ statementTimeoutMs: 50 });
    const error = await failure(() => timed.execute(sql.raw("SELECT SLEEP(5)")).all());
    expect(error.kind).toBe("statement-timeout");
    expect(await timed.execute(sql.raw("SELECT 1 AS one")).scalar()).toBe(1);
  });
});

describe("parameter values never reach error messages", () => {
  it("redacts the duplicate value from the error, its cause and its stack", async () => {
    const secret = "sk_live_TOPSECRET_4242";
    await engine.execute(insert(Everything).values({ id: "50000000-0000-4000-8000-000000000001", code: "x" })).rowsAffected();
    await engine.execute(sql.raw("CREATE UNIQUE INDEX dm_everything_label ON dm_everything (code)")).rowsAffected();
    await engine
      .execute(
        update(Everything)
          .set({ code: secret.slice(0, 20) })
          .where({ id: "50000000-0000-4000-8000-000000000001" }),
      )
      .rowsAffected();
    const error = await failure(() =>
      engine.execute(insert(Everything).values({ id: "50000000-0000-4000-8000-000000000002", code: secret.slice(0, 20) })).rowsAffected(),
    );
    expect(error.kind).toBe("unique-violation");
    expect(error.message).toContain("Duplicate entry '[redacted]' for key 'dm_everything_label'");
    expect(inspect(error, { depth: 10 })).not.toContain("TOPSECRET");
    expect(JSON.stringify(error)).not.toContain("TOPSECRET");
    expect(error.params).toBe("[redacted]");
  });

  it("redacts a value the server could not convert", async () => {
    const error = await failure(() =>
      engine.execute(sql.expr`UPDATE dm_parent SET id = ${"hunter2-password"} WHERE id = 1`).rowsAffected(),
    );
    expect(error.message).toContain("'[redacted]'");
    expect(inspect(error, { depth: 10 })).not.toContain("hunter2");
  });
});

describe("locks", () => {
  /** Holds a row lock on account `id` in its own transaction until `release` resolves. */
  async function holdLock(id: number, release: Promise<void>): Promise<{ done: Promise<unknown> }> {
    const held = gate();
    const holder = testEngine();
    const done = holder.transaction(async (tx) => {
      try {
        await tx.execute(select(Account, ["id"]).where({ id }).forUpdate()).all();
        held.open();
        await release;
      } finally {
        held.open();
      }
    });
    await held.wait;
    return { done };
  }

  it("NOWAIT on a locked row is lock-not-available, not a retryable timeout", async () => {
    const release = gate();
    const { done } = await holdLock(1, release.wait);
    const error = await failure(() =>
      engine.transaction((tx) => tx.execute(select(Account).where({ id: 1 }).forUpdate({ noWait: true })).all()),
    ).finally(release.open);
    await done;
    expect(error.kind).toBe("lock-not-available");
    expect(error.retryable).toBe(false);
  });

  it("a lock wait timeout is retryable", async () => {
    const release = gate();
    const { done } = await holdLock(1, release.wait);
    const error = await failure(() =>
      engine.transaction(async (tx) => {
        await tx.execute(sql.raw("SET SESSION innodb_lock_wait_timeout = 1")).rowsAffected();
        try {
          // In a savepoint, so that the failure leaves the transaction usable for the reset below.
          return await tx.transaction((inner) => inner.execute(select(Account).where({ id: 1 }).forUpdate()).all());
        } finally {
          await tx.execute(sql.raw("SET SESSION innodb_lock_wait_timeout = DEFAULT")).rowsAffected();
        }
      }),
    ).finally(release.open);
    await done;
    expect(RetryableTransactionError.isInstance(error)).toBe(true);
    expect(error.kind).toBe("lock-timeout");
  });
});

describe("deadlocks", () => {
  /**
   * Two transfers lock accounts 1 and 2 in opposite orders: a moves 10 from 1 to 2, b moves 30 from
   * 2 to 1. Each takes its first lock, waits until the other has taken its own, then asks for the
   * other's row: InnoDB finds the cycle and rolls one back. No timing is involved.
   */
  function opposite(options: { retryOnDeadlock?: number }) {
    const attempts = { a: 0, b: 0 };
    const firstA = gate();
    const firstB = gate();
    const transfer = (
      from: number,
      to: number,
      amount: number,
      mine: ReturnType<typeof gate>,
      theirs: ReturnType<typeof gate>,
      who: "a" | "b",
    ) =>
      testEngine().transaction(async (tx: TransactionHandle) => {
        attempts[who]++;
        await tx
          .execute(
            update(Account)
              .set({ balance: sql.expr`balance - ${amount}` })
              .where({ id: from }),
          )
          .rowsAffected();
        mine.open();
        await theirs.wait;
        await tx
          .execute(
            update(Account)
              .set({ balance: sql.expr`balance + ${amount}` })
              .where({ id: to }),
          )
          .rowsAffected();
        return who;
      }, options);
    return { attempts, runs: [transfer(1, 2, 10, firstA, firstB, "a"), transfer(2, 1, 30, firstB, firstA, "b")] };
  }

  async function balances(): Promise<number[]> {
    return (await engine.execute(select(Account, ["balance"]).orderBy("id")).all()).map((row) => row.balance);
  }

  it("surfaces as RetryableTransactionError with kind deadlock, the victim rolled back whole", async () => {
    const { runs } = opposite({});
    const results = await Promise.allSettled(runs);
    const rejected = results.filter((r) => r.status === "rejected");
    expect(rejected).toHaveLength(1);
    const error = (rejected[0] as PromiseRejectedResult).reason;
    expect(RetryableTransactionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: "deadlock", driverCode: "ER_LOCK_DEADLOCK", retryable: true });
    const survivor = (results.find((r) => r.status === "fulfilled") as PromiseFulfilledResult<string>).value;
    expect(await balances()).toEqual(survivor === "a" ? [90, 110] : [130, 70]);
  });

  it("is retried whole by transaction(fn, { retryOnDeadlock }) and both transfers land exactly once", async () => {
    const { runs, attempts } = opposite({ retryOnDeadlock: 3 });
    expect((await Promise.all(runs)).sort()).toEqual(["a", "b"]);
    expect(attempts.a + attempts.b).toBe(3); // the victim ran a second time
    expect(await balances()).toEqual([120, 80]);
  });
});

describe("a lost connection", () => {
  it("is a ConnectionError, the connection is discarded, and the pool keeps serving", async () => {
    const small = testEngine({ poolSize: 1 });
    const killer = testEngine();
    const error = await failure(() =>
      small.transaction(async (tx) => {
        const id = await tx.execute(sql.raw("SELECT CONNECTION_ID() AS id")).scalar();
        await killer.execute(sql.expr`KILL CONNECTION ${Number(id)}`).rowsAffected();
        return tx.execute(sql.raw("SELECT 1")).all();
      }),
    );
    expect(ConnectionError.isInstance(error)).toBe(true);
    expect(error.kind).toBe("connection");
    expect(await small.execute(sql.raw("SELECT 2 AS two")).scalar()).toBe(2);
  });
});
