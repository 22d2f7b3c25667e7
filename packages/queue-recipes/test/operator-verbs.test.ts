import type { Engine } from "tempest-db-js";
import { select, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cancelQueued, claimBatch, enqueue, markFailed, markSent, reschedule, retryFailed } from "../src/index.js";
import { countBy, freshDeadLetterQueue, freshQueue } from "./support/fresh-queue.js";
import { engineFor, targets } from "./support/targets.js";

describe.each(targets)("operator verbs on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 4);
  });
  afterAll(async () => {
    await engine.close();
  });

  it("retryFailed brings failed messages back by consumer, error text and time, in batches, and says which", async () => {
    const { Outbound } = await freshDeadLetterQueue(engine, "ops_retry");
    await enqueue(
      engine,
      Outbound,
      ["a", "a", "a", "b", "b"].map((consumer, i) => ({ consumer, idempotencyKey: `k${i}` })),
    );
    const claims = await claimBatch(engine, Outbound, { size: 10 });
    const errors = new Map(claims.map((c) => [c.id, c.idempotencyKey === "k1" ? "timeout: 100% of 3_s" : "503 from the receiver"]));
    await markFailed(engine, Outbound, claims, { errorOf: (c) => new Error(errors.get((c as { id: string }).id)) });

    // A value from a request body stays a value: LIKE's wildcards in it match only themselves.
    expect((await retryFailed(engine, Outbound, { errorContains: "100%_of", batchSize: 2 })).count).toBe(0);
    const one = await retryFailed(engine, Outbound, { errorContains: "100% of 3_s" });
    expect(one).toEqual({ count: 1, ids: [claims.find((c) => c.idempotencyKey === "k1")?.id], idsComplete: true });

    // Two of consumer a's are left failed; batches of 1, at most 5 ids: every one named.
    const byConsumer = await retryFailed(engine, Outbound, { consumer: "a", batchSize: 1 });
    expect(byConsumer.count).toBe(2);
    expect(new Set(byConsumer.ids)).toEqual(
      new Set(claims.filter((c) => c.consumer === "a" && c.idempotencyKey !== "k1").map((c) => c.id)),
    );
    expect(byConsumer.idsComplete).toBe(true);

    // A time range on when they failed: nothing failed in the future, both of b's before it.
    const future = new Date(Date.now() + 3_600_000);
    expect((await retryFailed(engine, Outbound, { since: future })).count).toBe(0);
    const rest = await retryFailed(engine, Outbound, { until: future, maxIds: 1, delaySeconds: 3600 });
    expect(rest.count).toBe(2);
    expect(rest.ids).toHaveLength(1);
    expect(rest.idsComplete).toBe(false);

    const rows = await engine.execute(select(Outbound).orderBy("idempotencyKey")).all();
    expect(countBy(rows, (r) => r.status)).toEqual({ queued: 5 });
    // A fresh budget (the claim token is the fence), the last error and the history kept.
    for (const row of rows) {
      expect([row.attempts, row.reclaims, row.deadReason]).toEqual([0, 0, null]);
      expect(row.lastError).toMatch(/^Error: /);
      expect(row.attemptHistory).toHaveLength(1);
    }
    // b's were given a due time an hour away; a's are due now and claimable.
    expect((await claimBatch(engine, Outbound, { size: 10 })).map((c) => c.consumer).sort()).toEqual(["a", "a", "a"]);
  });

  it("retryFailed with limit changes at most that many, in batches", async () => {
    const { Outbound } = await freshDeadLetterQueue(engine, "ops_limit");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 7 }, () => ({ consumer: "c" })),
    );
    await markFailed(engine, Outbound, await claimBatch(engine, Outbound, { size: 7 }));
    expect((await retryFailed(engine, Outbound, { limit: 3, batchSize: 2 })).count).toBe(3);
    expect((await retryFailed(engine, Outbound, { batchSize: 2 })).count).toBe(4);
    expect((await retryFailed(engine, Outbound)).count).toBe(0);
  });

  it("cancelQueued cancels only queued messages, never one being delivered, and retryFailed leaves them cancelled", async () => {
    const { Outbound } = await freshDeadLetterQueue(engine, "ops_cancel");
    const { inserted } = await enqueue(engine, Outbound, [{ consumer: "x" }, { consumer: "x" }, { consumer: "x" }]);
    const ids = inserted.map((m) => m.id as string);
    const [held] = await claimBatch(engine, Outbound, { size: 1 });
    const result = await cancelQueued(engine, Outbound, { ids, reason: "customer unsubscribed" });
    expect(result.count).toBe(2);
    expect(new Set(result.ids)).toEqual(new Set(ids.filter((id) => id !== held?.id)));
    // The delivery in flight settles as usual: the cancel did not touch its claim.
    expect(await markSent(engine, Outbound, [held!])).toEqual({ applied: 1, stale: 0 });
    const rows = await engine.execute(select(Outbound, ["status", "deadReason", "lastError"]).where({ status: "failed" })).all();
    expect(rows).toEqual([
      { status: "failed", deadReason: "cancelled", lastError: "cancelled: customer unsubscribed" },
      { status: "failed", deadReason: "cancelled", lastError: "cancelled: customer unsubscribed" },
    ]);
    expect((await retryFailed(engine, Outbound)).count).toBe(0);
    // A second cancel finds nothing queued.
    expect((await cancelQueued(engine, Outbound, { ids })).count).toBe(0);
    expect((await retryFailed(engine, Outbound, { includeCancelled: true })).count).toBe(2);
  });

  it("reschedule moves queued messages' due time, in batches by id, and not the ones being delivered", async () => {
    const { Outbound } = await freshDeadLetterQueue(engine, "ops_resched");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 5 }, () => ({ consumer: "r" })),
    );
    const [held] = await claimBatch(engine, Outbound, { size: 1 });
    const later = new Date(Date.now() + 86_400_000);
    const moved = await reschedule(engine, Outbound, { consumer: "r", at: later, batchSize: 2 });
    expect(moved.count).toBe(4);
    expect(moved.ids).not.toContain(held?.id);
    expect(await claimBatch(engine, Outbound, { size: 10 })).toEqual([]);
    // Back to now, on the database clock: all four are due again.
    expect((await reschedule(engine, Outbound, { consumer: "r", delaySeconds: 0 })).count).toBe(4);
    expect(await claimBatch(engine, Outbound, { size: 10 })).toHaveLength(4);
    const due = await engine.execute(select(Outbound, ["nextAttemptAt"]).where({ id: held!.id })).one();
    expect(due.nextAttemptAt.getTime()).toBeLessThan(later.getTime());
  });

  it("refuses filters that are not values, empty filters where they would sweep the queue, and cancel without deadReason", async () => {
    const { Outbound } = await freshDeadLetterQueue(engine, "ops_refuse");
    const { Outbound: Guide } = await freshQueue(engine, "ops_refuse_guide");
    await enqueue(engine, Outbound, { consumer: "v" });
    const body = JSON.parse('{"consumer": {"ne": "nobody"}, "ids": ["1\' OR \'1\'=\'1"]}');
    await expect(retryFailed(engine, Outbound, { consumer: body.consumer })).rejects.toThrow(ValidationError);
    await expect(retryFailed(engine, Outbound, { colour: "red" } as never)).rejects.toThrow(/unknown option "colour"/);
    await expect(retryFailed(engine, Outbound, { since: new Date("nope") })).rejects.toThrow(/since must be a valid Date/);
    await expect(retryFailed(engine, Outbound, { batchSize: 0 })).rejects.toThrow(/batchSize must be an integer/);
    await expect(cancelQueued(engine, Outbound, {})).rejects.toThrow(/name the messages/);
    await expect(reschedule(engine, Outbound, { consumer: "v" })).rejects.toThrow(/give the new due time/);
    await expect(cancelQueued(engine, Guide, { consumer: "v" })).rejects.toThrow(/needs the deadReason column/);
    await expect(retryFailed(engine, Guide, { errorContains: "x" })).rejects.toThrow(/needs the lastError column/);
    // An id that looks like SQL is a value of the wrong type for a uuid column: refused, nothing written.
    await expect(cancelQueued(engine, Outbound, { ids: body.ids })).rejects.toThrow(/id expects a uuid string/);
    expect(countBy(await engine.execute(select(Outbound, ["status"])).all(), (r) => r.status)).toEqual({ queued: 1 });
  });

  it("retries a failed message of the guide's model: attempts is the fence and stays, one more delivery", async () => {
    const { Outbound } = await freshQueue(engine, "ops_guide");
    await enqueue(engine, Outbound, { consumer: "g" });
    const [first] = await claimBatch(engine, Outbound, { size: 1 });
    await markFailed(engine, Outbound, [first!]);
    expect((await retryFailed(engine, Outbound, { consumer: "g" })).count).toBe(1);
    const [again] = await claimBatch(engine, Outbound, { size: 1 });
    expect(again?.attempts).toBe(2);
    // The first claim's late settlement is turned away: the fence moved on.
    expect(await markSent(engine, Outbound, [first!])).toEqual({ applied: 0, stale: 1 });
  });
});
