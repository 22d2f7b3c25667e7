import type { Engine } from "tempest-db-js";
import { insert, select, sql, UnsupportedFeatureError, update, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, drain, enqueue, settleAndClaim } from "../src/index.js";
import { countBy, freshQueue, freshTokenQueue, rowsOf } from "./support/fresh-queue.js";
import { priorityModel } from "./support/models.js";
import { engineFor, targets } from "./support/targets.js";

const postgres = targets.filter((t) => t.name === "PostgreSQL");
const others = targets.filter((t) => t.name !== "PostgreSQL");
type TokenQueue = Awaited<ReturnType<typeof freshTokenQueue>>["Outbound"];

describe.each(postgres)("settleAndClaim on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 6);
  });
  afterAll(async () => {
    await engine.close();
  });

  /** Three messages claimed 1, 2 and 3 times before: a batch of three token values. */
  async function claimThreeTokens(name: string) {
    const { Outbound } = await freshTokenQueue(engine, name);
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 3 }, () => ({ consumer: "c" })),
    );
    const all = await rowsOf(engine, Outbound);
    for (const [i, row] of all.entries())
      await engine.execute(update(Outbound).set({ claimToken: i }).where({ id: row.id })).rowsAffected();
    const batch = await claimBatch(engine, Outbound, { size: 3 });
    expect(new Set(batch.map((m) => m.claimToken)).size).toBe(3);
    return { Outbound, batch };
  }

  /** 300 messages drained fused, 3 lanes of 16; every seventh fails its first attempt and is retried at once. */
  async function drainFailingEverySeventh(Outbound: TokenQueue, options: { onSent?: "delete" }) {
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 300 }, (_, i) => ({ consumer: `c${i % 5}`, idempotencyKey: `k${i}` })),
    );
    const deliveries = new Map<string, number>();
    const failOnce = new Set<string>();
    const totals = await drain(
      engine,
      Outbound,
      (m) => {
        deliveries.set(m.id, (deliveries.get(m.id) ?? 0) + 1);
        if (Number(m.idempotencyKey?.slice(1)) % 7 === 0 && !failOnce.has(m.id)) {
          failOnce.add(m.id);
          throw new Error("boom");
        }
      },
      { fused: true, ...options, batchSize: 16, concurrency: 3, backoff: () => 0 },
    );
    return { totals, deliveries, failOnce };
  }

  /** Four messages queued, two claimed; the first of them then reclaimed by another worker, under a newer token. */
  async function claimTwoLosingTheFirst(name: string) {
    const { Outbound } = await freshTokenQueue(engine, name);
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 4 }, () => ({ consumer: "c" })),
    );
    const mine = await claimBatch(engine, Outbound, { size: 2 });
    const lost = mine[0] as (typeof mine)[number];
    await engine
      .execute(
        update(Outbound)
          .set({ claimToken: lost.claimToken + 1 })
          .where({ id: lost.id }),
      )
      .rowsAffected();
    return { Outbound, mine, lost };
  }

  it("settles one batch and claims the next in one statement", async () => {
    const { Outbound } = await freshTokenQueue(engine, "fused_one");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 7 }, (_, i) => ({ consumer: `c${i}` })),
    );
    const first = await claimBatch(engine, Outbound, { size: 3 });
    expect(first).toHaveLength(3);
    const spy = engineFor(target, 1);
    try {
      const { settled, claimed } = await settleAndClaim(spy, Outbound, first, { size: 3 });
      expect(settled).toEqual({ applied: 3, stale: 0 });
      expect(claimed).toHaveLength(3);
      // The claim never takes a row of the batch it settles.
      const firstIds = new Set(first.map((m) => m.id));
      expect(claimed.some((m) => firstIds.has(m.id))).toBe(false);
      expect(claimed.every((m) => m.status === "sending" && m.claimToken === 1)).toBe(true);
      // Rows come back decoded as the claim's do (Date, numbers), oldest first.
      expect(claimed[0]?.nextAttemptAt).toBeInstanceOf(Date);
      const times = claimed.map((m) => m.nextAttemptAt.getTime());
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    } finally {
      await spy.close();
    }
    const statuses = countBy(await rowsOf(engine, Outbound), (r) => r.status);
    expect(statuses).toEqual({ sent: 3, sending: 3, queued: 1 });
  });

  it("is one statement on the wire", async () => {
    const { Outbound } = await freshQueue(engine, "fused_wire");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 4 }, () => ({ consumer: "c" })),
    );
    const sqls: string[] = [];
    const { createEngine } = await import("tempest-db-js");
    const spy = createEngine(target.url, { poolSize: 1, onQuery: (e) => sqls.push(e.sql) });
    try {
      const first = await claimBatch(spy, Outbound, { size: 2 });
      sqls.length = 0;
      const { settled, claimed } = await settleAndClaim(spy, Outbound, first, { size: 2 });
      expect(settled.applied).toBe(2);
      expect(claimed).toHaveLength(2);
      expect(sqls).toHaveLength(1);
      expect(sqls[0]).toMatch(/^WITH "tempest_settled" AS \(UPDATE .* RETURNING "id"\), "tempest_settled_count" AS \(SELECT count\(\*\)/i);
      expect(sqls[0]).toMatch(/FOR UPDATE SKIP LOCKED/);
      // The always-true gate that runs the claim first (see "claims before it settles").
      expect(sqls[0]).toMatch(/ WHERE \(EXISTS \(SELECT count\(\*\) AS "k" FROM "tempest_claimed"\)\)$/i);
      // Nothing due: the settlement is still reported, with no claimed row.
      sqls.length = 0;
      const last = await settleAndClaim(spy, Outbound, claimed, { size: 2 });
      expect(last).toEqual({ settled: { applied: 2, stale: 0 }, claimed: [] });
      expect(sqls).toHaveLength(1);
    } finally {
      await spy.close();
    }
    expect(countBy(await rowsOf(engine, Outbound), (r) => r.status)).toEqual({ sent: 4 });
  });

  it("claims before it settles: while the settlement waits on a row lock, the batch it claimed is already held", async () => {
    // Every part of the statement reads the snapshot taken when it starts. Were the settlement run
    // first and made to wait (another transaction holding a row of the batch), rows claimed by others
    // meanwhile would still look queued to the late claim, which would lock each one only to drop it.
    const { Outbound } = await freshTokenQueue(engine, "fused_claim_first");
    const base = Date.UTC(2024, 0, 1);
    const rows = [1, 2, 3].map((n) => ({
      id: crypto.randomUUID(),
      consumer: `c${n}`,
      status: "queued" as const,
      nextAttemptAt: new Date(base + n * 1000),
    }));
    await engine.execute(insert(Outbound).values(rows)).rowsAffected();
    const first = await claimBatch(engine, Outbound, { size: 1 });
    expect(first.map((m) => m.consumer)).toEqual(["c1"]);
    const worker = engineFor(target, 1);
    try {
      const [backend] = await worker.execute(sql.raw("SELECT pg_backend_pid() AS pid")).all();
      const pid = Number((backend as { pid: unknown }).pid);
      let fused: ReturnType<typeof settleAndClaim<typeof Outbound>> | undefined;
      await engine.transaction(async (tx) => {
        await tx
          .execute(
            select(Outbound, ["id"])
              .where({ id: first[0]?.id as string })
              .forUpdate(),
          )
          .all();
        fused = settleAndClaim(worker, Outbound, first, { size: 1 });
        // Wait until the fused statement is blocked on the held row.
        for (;;) {
          const [state] = await engine.execute(sql.raw(`SELECT wait_event_type AS w FROM pg_stat_activity WHERE pid = ${pid}`)).all();
          if ((state as { w: unknown } | undefined)?.w === "Lock") break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        // Its claim has run already and holds c2: a claim beside it gets c3.
        const other = await claimBatch(engine, Outbound, { size: 1 });
        expect(other.map((m) => m.consumer)).toEqual(["c3"]);
      });
      const result = await fused;
      expect(result?.settled).toEqual({ applied: 1, stale: 0 });
      expect(result?.claimed.map((m) => m.consumer)).toEqual(["c2"]);
    } finally {
      await worker.close();
    }
  });

  it("fences the settlement: a claim reclaimed and taken again is stale, and is not marked sent", async () => {
    const { Outbound, mine, lost } = await claimTwoLosingTheFirst("fused_fence");
    const { settled, claimed } = await settleAndClaim(engine, Outbound, mine, { size: 5 });
    expect(settled).toEqual({ applied: 1, stale: 1 });
    expect(claimed).toHaveLength(2);
    const rows = await rowsOf(engine, Outbound);
    expect(rows.find((r) => r.id === lost.id)?.status).toBe("sending");
    expect(rows.find((r) => r.id === mine[1]?.id)?.status).toBe("sent");
  });

  it("settles claims of different tokens in the same statement", async () => {
    const { Outbound, batch } = await claimThreeTokens("fused_tokens");
    const { settled, claimed } = await settleAndClaim(engine, Outbound, batch, { size: 3 });
    expect(settled).toEqual({ applied: 3, stale: 0 });
    expect(claimed).toEqual([]);
  });

  it("with onSent: delete, deletes the settled batch and claims the next in one statement", async () => {
    const { Outbound } = await freshTokenQueue(engine, "fused_del_one");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 7 }, (_, i) => ({ consumer: `c${i}` })),
    );
    const first = await claimBatch(engine, Outbound, { size: 3 });
    const sqls: string[] = [];
    const { createEngine } = await import("tempest-db-js");
    const spy = createEngine(target.url, { poolSize: 1, onQuery: (e) => sqls.push(e.sql) });
    try {
      const { settled, claimed } = await settleAndClaim(spy, Outbound, first, { size: 3, onSent: "delete" });
      expect(settled).toEqual({ applied: 3, stale: 0 });
      expect(claimed).toHaveLength(3);
      const firstIds = new Set(first.map((m) => m.id));
      expect(claimed.some((m) => firstIds.has(m.id))).toBe(false);
      expect(claimed.every((m) => m.status === "sending" && m.claimToken === 1)).toBe(true);
    } finally {
      await spy.close();
    }
    expect(sqls).toHaveLength(1);
    expect(sqls[0]).toMatch(/^WITH .*DELETE FROM .*RETURNING/s);
    const rows = await rowsOf(engine, Outbound);
    expect(rows.some((r) => first.some((m) => m.id === r.id))).toBe(false);
    expect(countBy(rows, (r) => r.status)).toEqual({ sending: 3, queued: 1 });
  });

  it("with onSent: delete, fences the settlement: a claim taken again by another worker is stale and not deleted", async () => {
    const { Outbound, mine, lost } = await claimTwoLosingTheFirst("fused_del_fence");
    // Another one was reclaimed and is queued again, token unchanged: not `sending`, not deleted either.
    const requeued = mine[1] as (typeof mine)[number];
    await engine.execute(update(Outbound).set({ status: "queued" }).where({ id: requeued.id })).rowsAffected();
    const { settled, claimed } = await settleAndClaim(engine, Outbound, mine, { size: 5, onSent: "delete" });
    expect(settled).toEqual({ applied: 0, stale: 2 });
    // The requeued row was queued in the statement's snapshot: the claim takes it with the other two.
    expect(claimed).toHaveLength(3);
    const rows = await rowsOf(engine, Outbound);
    expect(rows).toHaveLength(4);
    expect(rows.find((r) => r.id === lost.id)?.claimToken).toBe(lost.claimToken + 1);
  });

  it("with onSent: delete, settles claims of different tokens in the same statement", async () => {
    const { Outbound, batch } = await claimThreeTokens("fused_del_tokens");
    const { settled, claimed } = await settleAndClaim(engine, Outbound, batch, { size: 3, onSent: "delete" });
    expect(settled).toEqual({ applied: 3, stale: 0 });
    expect(claimed).toEqual([]);
    expect(await rowsOf(engine, Outbound)).toEqual([]);
  });

  it("refuses an unknown onSent by name, before anything is sent", async () => {
    const { Outbound } = await freshQueue(engine, "fused_del_bad");
    await enqueue(engine, Outbound, [{ consumer: "c" }]);
    await expect(settleAndClaim(engine, Outbound, [], { size: 1, onSent: "drop" } as never)).rejects.toThrow(
      /onSent is "mark" or "delete"/,
    );
    expect(countBy(await rowsOf(engine, Outbound), (r) => r.status)).toEqual({ queued: 1 });
  });

  it("refuses a priority column and perConsumer by name", async () => {
    const Prioritized = priorityModel("qr_fused_priority");
    const { Outbound } = await freshQueue(engine, "fused_refuse");
    await expect(settleAndClaim(engine, Prioritized, [], { size: 1 })).rejects.toThrow(ValidationError);
    await expect(settleAndClaim(engine, Outbound, [], { size: 1, perConsumer: 1 })).rejects.toThrow(/perConsumer/);
    await expect(drain(engine, Prioritized, () => {}, { fused: true })).rejects.toThrow(/priority/);
  });

  it("a drain with { fused: true } sends every message once, with failures retried after their backoff", async () => {
    const { Outbound } = await freshTokenQueue(engine, "fused_drain");
    const { totals, deliveries, failOnce } = await drainFailingEverySeventh(Outbound, {});
    expect(totals.sent).toBe(300);
    expect(totals.retried).toBe(failOnce.size);
    expect(totals.stale).toBe(0);
    const rows = await rowsOf(engine, Outbound);
    expect(countBy(rows, (r) => r.status)).toEqual({ sent: 300 });
    for (const row of rows) {
      const failed = failOnce.has(row.id);
      expect(deliveries.get(row.id)).toBe(failed ? 2 : 1);
      // attempts counts failures (claim token on); the error is kept.
      expect(row.attempts).toBe(failed ? 1 : 0);
      if (failed) expect(row.lastError).toMatch(/boom/);
    }
  });
  it("a drain with { fused: true, onSent: delete } delivers every message once and leaves no row behind", async () => {
    const { Outbound } = await freshTokenQueue(engine, "fused_del_drain");
    const { totals, deliveries, failOnce } = await drainFailingEverySeventh(Outbound, { onSent: "delete" });
    expect(totals.sent).toBe(300);
    expect(totals.retried).toBe(failOnce.size);
    expect(failOnce.size).toBeGreaterThan(0);
    expect(totals.stale).toBe(0);
    expect(deliveries.size).toBe(300);
    for (const [id, count] of deliveries) expect(count).toBe(failOnce.has(id) ? 2 : 1);
    expect(await rowsOf(engine, Outbound)).toEqual([]);
  });
});

describe.each(others)("settleAndClaim on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 2);
  });
  afterAll(async () => {
    await engine.close();
  });

  it("is refused by name, with the two-statement cycle as the way out", async () => {
    const { Outbound } = await freshQueue(engine, "fused_refused");
    await enqueue(engine, Outbound, [{ consumer: "c" }]);
    const error = await settleAndClaim(engine, Outbound, [], { size: 1 }).catch((e: unknown) => e);
    expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/fused settle-and-claim/);
    expect((error as Error).message).toMatch(/two-statement cycle/);
    await expect(drain(engine, Outbound, () => {}, { fused: true })).rejects.toThrow(UnsupportedFeatureError);
    // Nothing was claimed by the refused calls.
    expect((await engine.execute(select(Outbound, ["status"])).all()).map((r) => r.status)).toEqual(["queued"]);
  });
});
