import type { QueryEvent } from "tempest-db-js";
import { deleteFrom, insert, select, sql, UnsupportedFeatureError, update } from "tempest-db-js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TestDatabase } from "./support/engines.js";
import { openDatabase, targets } from "./support/engines.js";
import { Outbound } from "./support/models.js";

const T0 = new Date("2026-01-02T03:04:05.678Z");

function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString().padStart(12, "0")}`;
}

function message(n: number, extra: Partial<{ consumer: string; idempotencyKey: string | null; attempts: number }> = {}) {
  return { id: uuid(n), consumer: "billing", status: "queued" as const, nextAttemptAt: new Date(T0.getTime() + n * 1000), ...extra };
}

const claim = (size: number) =>
  update(Outbound)
    .set({ status: "sending", attempts: sql.raw("attempts + 1"), updatedAt: sql.now() })
    .where({ id: { in: select(Outbound).where({ status: "queued" }).orderBy("nextAttemptAt").limit(size).asSubquery("id") } })
    .returning();

const idempotent = (row: ReturnType<typeof message>) =>
  insert(Outbound)
    .values(row)
    .onConflictDoNothing(["consumer", "idempotencyKey"], { where: { idempotencyKey: { isNull: false } } })
    .returning(["id"]);

describe.each(targets)("the guide's queue statements on a %s database", (target) => {
  let db: TestDatabase;
  const events: QueryEvent[] = [];

  beforeEach(async () => {
    events.length = 0;
    db = openDatabase(target, { onQuery: (event) => events.push(event) });
    await db.engine.createAll([Outbound]);
  });

  afterEach(() => db.close());

  it("insert ... RETURNING gives back the row with its database defaults", async () => {
    const rows = await db.engine.execute(insert(Outbound).values(message(1)).returning()).all();
    expect(rows).toEqual([
      {
        id: uuid(1),
        consumer: "billing",
        idempotencyKey: null,
        status: "queued",
        attempts: 0,
        nextAttemptAt: new Date(T0.getTime() + 1000),
        updatedAt: null,
      },
    ]);
  });

  it("the single-statement claim takes the oldest batch without forUpdate, and never a row twice", async () => {
    const { engine } = db;
    await engine.execute(insert(Outbound).values(Array.from({ length: 25 }, (_, i) => message(25 - i)))).rowsAffected();
    const first = await engine.execute(claim(10)).all();
    const second = await engine.execute(claim(10)).all();
    const third = await engine.execute(claim(10)).all();
    const fourth = await engine.execute(claim(10)).all();
    expect([first.length, second.length, third.length, fourth.length]).toEqual([10, 10, 5, 0]);
    // The LIMIT travelled inside the IN: the first batch is exactly the 10 earliest.
    expect(first.map((r) => r.id).sort()).toEqual(Array.from({ length: 10 }, (_, i) => uuid(i + 1)));
    for (const row of [...first, ...second, ...third]) {
      expect(row).toMatchObject({ status: "sending", attempts: 1 });
      expect(row.updatedAt).toBeInstanceOf(Date);
    }
    expect(new Set([...first, ...second, ...third].map((r) => r.id)).size).toBe(25);
  });

  it("the claim runs inside engine.transaction() as BEGIN IMMEDIATE", async () => {
    const { engine } = db;
    await engine.execute(insert(Outbound).values([message(1), message(2), message(3)])).rowsAffected();
    const claimed = await engine.transaction(async (tx) => tx.execute(claim(2)).all());
    expect(claimed.map((r) => r.id)).toEqual([uuid(1), uuid(2)]);
    const sqls = events.map((e) => e.sql);
    const begin = sqls.lastIndexOf("BEGIN IMMEDIATE");
    expect(begin).toBeGreaterThanOrEqual(0);
    expect(sqls.slice(begin)).toEqual(["BEGIN IMMEDIATE", engine.compile(claim(2)).sql, "COMMIT"]);
  });

  it("the two-step claim (select ids, then update them) is exclusive inside a transaction", async () => {
    const { engine } = db;
    await engine.execute(insert(Outbound).values([message(1), message(2), message(3)])).rowsAffected();
    const claimTwo = () =>
      engine.transaction(async (tx) => {
        const rows = await tx.execute(select(Outbound, ["id"]).where({ status: "queued" }).orderBy("nextAttemptAt").limit(2)).all();
        const ids = rows.map((r) => r.id);
        if (ids.length > 0) {
          await tx
            .execute(
              update(Outbound)
                .set({ status: "sending", attempts: sql.raw("attempts + 1") })
                .where({ id: { in: ids } }),
            )
            .rowsAffected();
        }
        return ids;
      });
    const [a, b] = await Promise.all([claimTwo(), claimTwo()]);
    expect([...(a ?? []), ...(b ?? [])].sort()).toEqual([uuid(1), uuid(2), uuid(3)]);
  });

  it("forUpdate() and forShare() are refused at compile time and nothing reaches the database", async () => {
    const { engine } = db;
    await engine.execute(insert(Outbound).values([message(1), message(2)])).rowsAffected();
    const before = await engine.execute(select(Outbound).orderBy("id")).all();
    const sent = events.length;
    const locked = [
      update(Outbound)
        .set({ status: "sending" })
        .where({ id: { in: select(Outbound).where({ status: "queued" }).limit(10).forUpdate({ skipLocked: true }).asSubquery("id") } }),
      select(Outbound).forUpdate(),
      select(Outbound).forShare(),
    ];
    for (const query of locked) {
      const error = await engine.transaction(async (tx) => tx.execute(query).all()).catch((e: unknown) => e);
      expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
      expect((error as UnsupportedFeatureError).dialect).toBe("SQLite");
      expect((error as UnsupportedFeatureError).feature).toMatch(/row locks/);
    }
    // Only the transactions' BEGIN/ROLLBACK were sent; no locked statement ever was.
    expect(new Set(events.slice(sent).map((e) => e.sql))).toEqual(new Set(["BEGIN IMMEDIATE", "ROLLBACK"]));
    expect(await engine.execute(select(Outbound).orderBy("id")).all()).toEqual(before);
  });

  it("ON CONFLICT (consumer, idempotency_key) WHERE ... DO NOTHING deduplicates keyed rows only", async () => {
    const { engine } = db;
    expect(await engine.execute(idempotent(message(1, { idempotencyKey: "k1" }))).all()).toEqual([{ id: uuid(1) }]);
    // An idempotent repeat returns nothing and changes nothing.
    expect(await engine.execute(idempotent(message(2, { idempotencyKey: "k1" }))).all()).toEqual([]);
    // Same key, other consumer: a different message.
    expect(await engine.execute(idempotent(message(3, { idempotencyKey: "k1", consumer: "mail" }))).all()).toEqual([{ id: uuid(3) }]);
    // Rows without a key are never deduplicated.
    expect(await engine.execute(idempotent(message(4))).all()).toEqual([{ id: uuid(4) }]);
    expect(await engine.execute(idempotent(message(5))).all()).toEqual([{ id: uuid(5) }]);
    const ids = await engine.execute(select(Outbound, ["id"]).orderBy("id")).all();
    expect(ids.map((r) => r.id)).toEqual([uuid(1), uuid(3), uuid(4), uuid(5)]);
  });

  it("ON CONFLICT ... DO UPDATE ... WHERE rewrites only rows that may retry", async () => {
    const { engine } = db;
    const retryAt = new Date("2027-01-01T00:00:00.000Z");
    const requeue = (n: number) =>
      insert(Outbound)
        .values(message(n, { idempotencyKey: "k1" }))
        .onConflictDoUpdate(
          ["consumer", "idempotencyKey"],
          { status: "queued", nextAttemptAt: retryAt },
          { indexWhere: { idempotencyKey: { isNull: false } }, updateWhere: { attempts: { lt: 5 } } },
        )
        .returning(["id", "status", "nextAttemptAt"]);
    await engine
      .execute(insert(Outbound).values({ ...message(1, { idempotencyKey: "k1", attempts: 3 }), status: "failed" }))
      .rowsAffected();
    expect(await engine.execute(requeue(2)).all()).toEqual([{ id: uuid(1), status: "queued", nextAttemptAt: retryAt }]);
    await engine
      .execute(
        update(Outbound)
          .set({ attempts: 5, status: "failed" })
          .where({ id: uuid(1) }),
      )
      .rowsAffected();
    expect(await engine.execute(requeue(3)).all()).toEqual([]);
    expect(await engine.execute(select(Outbound, ["id", "status", "attempts"])).all()).toEqual([
      { id: uuid(1), status: "failed", attempts: 5 },
    ]);
  });

  it("delete ... RETURNING and rowsAffected report what changed", async () => {
    const { engine } = db;
    await engine.execute(insert(Outbound).values([message(1), message(2), { ...message(3), status: "sent" }])).rowsAffected();
    expect(await engine.execute(update(Outbound).set({ status: "failed" }).where({ status: "queued" })).rowsAffected()).toBe(2);
    expect(await engine.execute(deleteFrom(Outbound).where({ status: "sent" }).returning(["id"])).all()).toEqual([{ id: uuid(3) }]);
    expect(await engine.execute(deleteFrom(Outbound).where({ status: "failed" })).rowsAffected()).toBe(2);
  });
});
