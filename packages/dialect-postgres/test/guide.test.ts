import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import "../src/index.js";
import { createEngine, deleteFrom, insert, select, sql, update, ValidationError } from "tempest-db-js";
import { ensureAppDatabase } from "./guide/app-database.js";
import * as guide from "./guide/outbox-guide.js";

const { Outbound, context } = guide;
let engine: typeof guide.engine;

const queued = (n: number, consumer = "billing") =>
  Array.from({ length: n }, (_, i) => ({
    id: randomUUID(),
    consumer,
    idempotencyKey: null,
    status: "queued" as const,
    nextAttemptAt: new Date(Date.now() - (n - i) * 1000),
  }));

beforeAll(async () => {
  await ensureAppDatabase();
  engine = guide.engine;
  context.session = engine.session();
  await engine.dropAll([Outbound]);
  await engine.createAll([Outbound]);
  // The guide's index, as the guide writes it.
  await engine
    .execute(
      sql.raw(`CREATE UNIQUE INDEX outbound_idempotency_unique
    ON outbound_messages (consumer, idempotency_key)
    WHERE idempotency_key IS NOT NULL;`),
    )
    .rowsAffected();
});

afterAll(async () => {
  await engine.close();
});

beforeEach(async () => {
  await engine.execute(deleteFrom(Outbound).allRows()).rowsAffected();
});

describe("the outbox guide on PostgreSQL, as written", () => {
  it("concurrent claimers take disjoint batches on separate connections and engines", async () => {
    await engine.execute(insert(Outbound).values(queued(200))).rowsAffected();
    const other = createEngine("postgresql://app@localhost/app", { poolSize: 4 });
    try {
      // 8 concurrent claims from the guide's engine (pool of 10) plus 4 from a second engine.
      const batches = await Promise.all([
        ...Array.from({ length: 8 }, () => guide.claimBatch(10)),
        ...Array.from({ length: 4 }, () => claimOn(other)),
      ]);
      const all = batches.flat();
      expect(batches.every((b) => b.length === 10)).toBe(true);
      expect(new Set(all).size).toBe(all.length);
      const sending = await engine.execute(select(Outbound, ["id", "attempts"]).where({ status: "sending" })).all();
      expect(sending.map((r) => r.id).sort()).toEqual([...all].sort());
      expect(sending.every((r) => r.attempts === 1)).toBe(true);
    } finally {
      await other.close();
    }
  });

  it("the single-statement claim returns the claimed rows, never more than its LIMIT", async () => {
    await engine.execute(insert(Outbound).values(queued(35))).rowsAffected();
    const claims = await Promise.all(Array.from({ length: 5 }, () => guide.claimInOneStatement()));
    const ids = claims.flat().map((r) => r.id);
    expect(claims.every((c) => c.length <= 10)).toBe(true);
    expect(ids).toHaveLength(35);
    expect(new Set(ids).size).toBe(35);
    for (const row of claims.flat()) {
      expect(row).toMatchObject({ status: "sending", attempts: 1 });
      expect(row.updatedAt).toBeInstanceOf(Date);
    }
    expect(await guide.claimInOneStatement()).toEqual([]);
  });

  it("an idempotent repeat inserts nothing; rows without a key are never deduplicated", async () => {
    context.message = { id: randomUUID(), consumer: "billing", idempotencyKey: "order-42", status: "queued", nextAttemptAt: new Date() };
    const first = await guide.enqueueIdempotently();
    expect(first.inserted).toHaveLength(1);
    expect(first.inserted[0]).toMatchObject({ consumer: "billing", idempotencyKey: "order-42", attempts: 0 });
    context.message = { ...context.message, id: randomUUID() };
    const repeat = await guide.enqueueIdempotently();
    expect(repeat).toEqual({ inserted: [], repeated: true });
    // The same key for another consumer is a different message.
    context.message = { ...context.message, id: randomUUID(), consumer: "mail" };
    expect((await guide.enqueueIdempotently()).inserted).toHaveLength(1);
    for (let i = 0; i < 3; i++) {
      context.message = { id: randomUUID(), consumer: "billing", idempotencyKey: null, status: "queued", nextAttemptAt: new Date() };
      expect((await guide.enqueueIdempotently()).inserted).toHaveLength(1);
    }
    expect(await engine.execute(select(Outbound, ["id"])).all()).toHaveLength(5);
  });

  it("onConflictDoUpdate honours the index predicate and updateWhere", async () => {
    const id = randomUUID();
    await engine
      .execute(
        insert(Outbound).values({
          id,
          consumer: "billing",
          idempotencyKey: "k",
          status: "failed",
          attempts: 2,
          nextAttemptAt: new Date(0),
        }),
      )
      .rowsAffected();
    context.message = { id: randomUUID(), consumer: "billing", idempotencyKey: "k", status: "queued", nextAttemptAt: new Date() };
    context.retryAt = new Date("2030-01-01T00:00:00.000Z");
    await engine.execute(guide.upsertForRetry()).rowsAffected();
    expect(await engine.execute(select(Outbound).where({ id })).one()).toMatchObject({
      status: "queued",
      nextAttemptAt: context.retryAt,
      attempts: 2,
    });
    await engine.execute(update(Outbound).set({ status: "failed", attempts: 5 }).where({ id })).rowsAffected();
    context.retryAt = new Date("2031-01-01T00:00:00.000Z");
    await engine.execute(guide.upsertForRetry()).rowsAffected();
    expect(await engine.execute(select(Outbound).where({ id })).one()).toMatchObject({ status: "failed", attempts: 5 });
    expect(await engine.execute(select(Outbound, ["id"])).all()).toHaveLength(1);
  });

  it("the backoff expression binds its parameter and the increment happens in SQL", async () => {
    const id = randomUUID();
    await engine
      .execute(insert(Outbound).values({ id, consumer: "billing", status: "queued", attempts: 3, nextAttemptAt: new Date() }))
      .rowsAffected();
    context.id = id;
    context.backoff = 120;
    const compiled = engine.compile(guide.backoffUpdate());
    expect(compiled.sql).toBe(
      `UPDATE "outbound_messages" SET "attempts" = attempts + 1, "next_attempt_at" = now() + $1 * interval '1 second', "updated_at" = now() WHERE "id" = $2`,
    );
    expect(compiled.params).toEqual([120, id]);
    await engine.execute(guide.backoffUpdate()).rowsAffected();
    const row = await engine.execute(select(Outbound).where({ id })).one();
    expect(row.attempts).toBe(4);
    const delay = row.nextAttemptAt.getTime() - (row.updatedAt as Date).getTime();
    expect(delay).toBeGreaterThanOrEqual(119_000);
    expect(delay).toBeLessThanOrEqual(121_000);
  });

  it("a stray object in set throws ValidationError while the query is built", async () => {
    const id = randomUUID();
    await engine
      .execute(insert(Outbound).values({ id, consumer: "billing", status: "queued", attempts: 3, nextAttemptAt: new Date() }))
      .rowsAffected();
    expect(() =>
      // @ts-expect-error -- the guide's pre-0.5 mistake: an unbranded object where an expression belongs
      update(Outbound).set({ attempts: { raw: "attempts + 1" } }),
    ).toThrow(ValidationError);
    expect((await engine.execute(select(Outbound).where({ id })).one()).attempts).toBe(3);
  });

  it("drain sends what delivers and requeues what fails, with backoff", async () => {
    const rows = queued(12);
    await engine.execute(insert(Outbound).values(rows)).rowsAffected();
    const failing = new Set<string>(rows.slice(0, 3).map((r) => r.id));
    const delivered: string[] = [];
    context.deliver = async (id) => {
      if (failing.has(id)) throw new Error("downstream is down");
      delivered.push(id);
    };
    context.backoffSeconds = 300;
    await guide.drain();
    expect(delivered).toHaveLength(7);
    const after = await engine.execute(select(Outbound).orderBy("nextAttemptAt")).all();
    const byStatus = (s: string) => after.filter((r) => r.status === s);
    expect(
      byStatus("sent")
        .map((r) => r.id)
        .sort(),
    ).toEqual([...delivered].sort());
    expect(byStatus("queued").filter((r) => failing.has(r.id))).toHaveLength(3);
    for (const r of byStatus("queued").filter((r) => failing.has(r.id))) {
      expect(r.attempts).toBe(1);
      expect(r.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 250_000);
    }
    // Two rows were never claimed (batch of 10): still queued, untouched.
    expect(byStatus("queued").filter((r) => !failing.has(r.id))).toHaveLength(2);
  });
});

async function claimOn(other: ReturnType<typeof createEngine>): Promise<string[]> {
  return other.transaction(async (tx) => {
    const rows = await tx
      .execute(select(Outbound, ["id"]).where({ status: "queued" }).orderBy("nextAttemptAt").limit(10).forUpdate({ skipLocked: true }))
      .all();
    const ids = rows.map((r) => r.id);
    if (ids.length > 0)
      await tx
        .execute(
          update(Outbound)
            .set({ status: "sending", attempts: sql.raw("attempts + 1") })
            .where({ id: { in: ids } }),
        )
        .rowsAffected();
    return ids;
  });
}
