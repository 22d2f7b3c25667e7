import { ConstraintViolationError, insert, select, sql, UnsupportedFeatureError, update } from "tempest-db-js";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { MysqlCapabilities } from "../src/index.js";
import { Outbound } from "./models.js";
import { closeEngines, recordingEngine, testEngine } from "./support.js";

const engine = testEngine();
const at = new Date(Date.UTC(2024, 5, 1, 12));
const A = "40000000-0000-4000-8000-00000000000a";
const B = "40000000-0000-4000-8000-00000000000b";
const C = "40000000-0000-4000-8000-00000000000c";

function message(id: string, key: string | null, extra: Partial<{ attempts: number }> = {}) {
  return { id, consumer: "billing", idempotencyKey: key, status: "queued" as const, nextAttemptAt: at, ...extra };
}

async function table() {
  return engine.execute(select(Outbound, ["id", "idempotencyKey", "status", "attempts"]).orderBy("id")).all();
}

beforeEach(async () => {
  await engine.dropAll([Outbound]);
  await engine.createAll([Outbound]);
  await engine.execute(insert(Outbound).values(message(A, "key-1"))).rowsAffected();
});

afterAll(closeEngines);

describe("refused conflict targets leave the table untouched", () => {
  const refusedStatements = () => [
    insert(Outbound)
      .values(message(B, "key-1"))
      .onConflictDoNothing(["consumer", "idempotencyKey"], { where: { idempotencyKey: { isNull: false } } }),
    insert(Outbound).values(message(A, "key-2")).onConflictDoUpdate(["id"], { status: "failed" }),
  ];

  for (const [i, statement] of refusedStatements().entries()) {
    it(`statement ${i + 1}`, async () => {
      const before = await table();
      const { engine: watched, statements } = recordingEngine();
      const error = await watched
        .execute(statement)
        .rowsAffected()
        .catch((e: unknown) => e);
      expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
      expect((error as UnsupportedFeatureError).hint).toMatch(/onDuplicateKeyUpdate\(set\).*ignoreDuplicates\(\)/);
      expect(statements.filter((s) => s.sql.startsWith("INSERT"))).toEqual([]);
      expect(await table()).toEqual(before);
    });
  }

  it("also refuses RETURNING on UPDATE without touching a row", async () => {
    const error = await engine
      .execute(update(Outbound).set({ status: "sent" }).where({ id: A }).returning())
      .all()
      .catch((e: unknown) => e);
    expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
    expect(await table()).toEqual([{ id: A, idempotencyKey: "key-1", status: "queued", attempts: 0 }]);
  });
});

describe("MySQL's own conflict handling", () => {
  it("onDuplicateKeyUpdate inserts new rows (1 affected) and updates existing ones (2 affected)", async () => {
    const upsert = (id: string) =>
      insert(Outbound)
        .values(message(id, null, { attempts: 5 }))
        .onDuplicateKeyUpdate({ attempts: sql.expr`${sql.ref("attempts")} + ${sql.excluded("attempts")}`, status: "failed" });
    expect(await engine.execute(upsert(A)).rowsAffected()).toBe(2);
    expect(await engine.execute(upsert(B)).rowsAffected()).toBe(1);
    expect(await table()).toEqual([
      { id: A, idempotencyKey: "key-1", status: "failed", attempts: 5 },
      { id: B, idempotencyKey: null, status: "queued", attempts: 5 },
    ]);
  });

  it("onDuplicateKeyUpdate that changes nothing reports 1 (matched rows)", async () => {
    const same = insert(Outbound).values(message(A, "key-1")).onDuplicateKeyUpdate({ status: "queued" });
    expect(await engine.execute(same).rowsAffected()).toBe(1);
    expect(await table()).toEqual([{ id: A, idempotencyKey: "key-1", status: "queued", attempts: 0 }]);
  });

  it("ignoreDuplicates also turns other errors into warnings, as the README warns", async () => {
    const long = "k".repeat(300); // text in a key is varchar(255); the builder does not bound text
    expect(await engine.execute(insert(Outbound).values(message(B, long)).ignoreDuplicates()).rowsAffected()).toBe(1);
    const kept = await engine.execute(select(Outbound, ["idempotencyKey"]).where({ id: B })).one();
    expect(kept.idempotencyKey).toBe("k".repeat(255));
    // Without IGNORE, strict mode refuses the same row.
    const error = await engine
      .execute(insert(Outbound).values(message(C, long)))
      .rowsAffected()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "other", driverCode: "ER_DATA_TOO_LONG" });
  });

  it("ignoreDuplicates skips colliding rows and inserts the others", async () => {
    const affected = await engine
      .execute(
        insert(Outbound)
          .values([message(A, "other"), message(B, "key-1"), message(C, "key-3")])
          .ignoreDuplicates(),
      )
      .rowsAffected();
    expect(affected).toBe(1); // A collides on the primary key, B on the idempotency index
    expect(await table()).toEqual([
      { id: A, idempotencyKey: "key-1", status: "queued", attempts: 0 },
      { id: C, idempotencyKey: "key-3", status: "queued", attempts: 0 },
    ]);
  });

  it("onConflictDoNothing() without a target does the same", async () => {
    expect(await engine.execute(insert(Outbound).values(message(B, "key-1")).onConflictDoNothing()).rowsAffected()).toBe(0);
    expect(await engine.execute(insert(Outbound).values(message(B, "key-2")).onConflictDoNothing()).rowsAffected()).toBe(1);
  });
});

describe("the guide's idempotency rule on a plain unique index", () => {
  it("refuses a repeated (consumer, key) and never deduplicates rows without a key", async () => {
    const error = await engine
      .execute(insert(Outbound).values(message(B, "key-1")))
      .rowsAffected()
      .catch((e: unknown) => e);
    expect(ConstraintViolationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: "unique-violation", constraint: "dm_outbound_idempotency" });
    await engine.execute(insert(Outbound).values([message(B, null), message(C, null)])).rowsAffected();
    expect((await table()).map((r) => r.id)).toEqual([A, B, C]);
  });

  it("lets the guide's repeat-detection work with ignoreDuplicates().returning() where the server has INSERT ... RETURNING", async () => {
    await engine.execute(select(Outbound, ["id"]).limit(1)).all(); // the capability table is the server's after the first statement
    if (!engine.capabilities.returningInsert) {
      expect((engine.capabilities as MysqlCapabilities).server).toMatchObject({ flavor: "mysql" });
      return;
    }
    const first = await engine.execute(insert(Outbound).values(message(B, "key-2")).ignoreDuplicates().returning(["id"])).all();
    const repeat = await engine.execute(insert(Outbound).values(message(C, "key-2")).ignoreDuplicates().returning(["id"])).all();
    expect(first).toEqual([{ id: B }]);
    expect(repeat).toEqual([]);
  });
});
