import type { Engine } from "tempest-db-js";
import { op, select, sql, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DrainResult } from "../src/index.js";
import { claimBatch, DeliveryAbortError, drain, enqueue, extendLease, reclaimExpired, work } from "../src/index.js";
import { freshQueue, rowsOf } from "./support/fresh-queue.js";
import { LOADED_LEASE_SECONDS } from "./support/loaded-lease.js";
import type { Span } from "./support/spans.js";
import { overlaps, slowDeliver } from "./support/spans.js";
import { engineFor, targets } from "./support/targets.js";

/** Resolves once `check` is true, polling every 50 ms (fails after `ms`). */
async function until(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const LEASE = LOADED_LEASE_SECONDS;

describe.each(targets)("heartbeat on $name", (target) => {
  let a: Engine;
  let b: Engine;
  beforeAll(() => {
    a = engineFor(target, 4);
    // SQLite: one engine per file per process (two would block each other's event loop on the file
    // lock); its loops still run side by side on it. Separate processes are in processes.test.ts.
    b = target.name === "SQLite" ? a : engineFor(target, 4);
  });
  afterAll(async () => {
    await a.close();
    if (b !== a) await b.close();
  });

  /**
   * Two work() loops on two engines (pools of their own) over 4 messages whose deliveries take 2.5
   * leases. A batch holds them all, so whichever loop claims first, the other is idle and polling:
   * it reclaims every claim whose lease runs out. The lease is long enough that a loaded machine's
   * stalls do not run it out (support/loaded-lease.ts): only the heartbeat decides.
   */
  async function race(name: string, options: { heartbeat: boolean }) {
    const { Outbound } = await freshQueue(a, name);
    await enqueue(
      a,
      Outbound,
      Array.from({ length: 4 }, (_, i) => ({ consumer: `c${i}` })),
    );
    const spans: Span[] = [];
    const stop = new AbortController();
    const common = {
      batchSize: 4,
      leaseSeconds: LEASE,
      pollIntervalMs: 50,
      maxAttempts: 3,
      backoff: () => 0,
      // Without the heartbeat, nothing but the lease decides; the default timeout would stop it first.
      deliveryTimeoutMs: options.heartbeat ? 10 * LEASE * 1000 : Number.POSITIVE_INFINITY,
      heartbeat: options.heartbeat,
      signal: stop.signal,
      stopTimeoutMs: 5000,
    };
    const workers: Promise<DrainResult>[] = [
      work(a, Outbound, slowDeliver("a", spans, 2.5 * LEASE * 1000), common),
      work(b, Outbound, slowDeliver("b", spans, 2.5 * LEASE * 1000), common),
    ];
    await until(async () => (await a.execute(select(Outbound, ["id"]).where({ status: op.in(["sent", "failed"]) })).all()).length === 4);
    stop.abort();
    const [ra, rb] = await Promise.all(workers);
    return { Outbound, spans, ra: ra as DrainResult, rb: rb as DrainResult };
  }

  it("keeps a delivery longer than the lease to one worker: no two live deliveries of a message overlap", async () => {
    const { Outbound, spans, ra, rb } = await race("hb_race", { heartbeat: true });
    expect(overlaps(spans.filter((s) => !s.aborted))).toEqual([]);
    // Nothing was lost or reclaimed: each message was delivered once, by one worker, and sent.
    expect(spans).toHaveLength(4);
    expect(new Set(spans.map((s) => s.message)).size).toBe(4);
    expect(ra.sent + rb.sent).toBe(4);
    expect(ra.stale + rb.stale + ra.reclaimed + rb.reclaimed).toBe(0);
    const rows = await rowsOf(a, Outbound);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual(Array.from({ length: 4 }, () => ["sent", 1]));
  });

  it("without the heartbeat the same run does overlap (the check above is not vacuous)", async () => {
    const { spans } = await race("hb_race_off", { heartbeat: false });
    expect(overlaps(spans).length).toBeGreaterThan(0);
  });

  it("aborts a delivery whose claim was reclaimed, and does not settle it", async () => {
    const { Outbound } = await freshQueue(a, "hb_lost");
    await enqueue(a, Outbound, { consumer: "x" });
    const reasons: unknown[] = [];
    let calls = 0;
    const running = drain(
      a,
      Outbound,
      (_message, { signal }) => {
        if (++calls > 1) return undefined; // the message's next claim succeeds at once
        return new Promise((_, reject) =>
          signal.addEventListener("abort", () => {
            reasons.push(signal.reason);
            reject(signal.reason);
          }),
        );
      },
      // Only the reclaim below may end this delivery: not a timeout, nor a stall of a loaded machine
      // that runs the lease out (support/loaded-lease.ts).
      { leaseSeconds: LEASE, deliveryTimeoutMs: Number.POSITIVE_INFINITY },
    );
    // Another worker decides the claim is dead: the row is aged past its lease and reclaimed. A
    // renewal of the heartbeat may land between the two statements and make the row young again:
    // then the reclaim finds nothing, and the row is aged again.
    await until(async () => (await b.execute(select(Outbound, ["id"]).where({ status: "sending" })).all()).length === 1);
    await until(async () => {
      await b
        .execute(
          update(Outbound)
            .set({ updatedAt: sql.nowPlusSeconds(-3600) })
            .where({ status: "sending" }),
        )
        .rowsAffected();
      return (await reclaimExpired(b, Outbound, { leaseSeconds: LEASE })) === 1;
    });
    const result = await running;
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(DeliveryAbortError);
    expect((reasons[0] as DeliveryAbortError).reason).toBe("lease-lost");
    expect(result).toMatchObject({ sent: 1, stale: 1, retried: 0, failed: 0 });
    expect(await a.execute(select(Outbound)).one()).toMatchObject({ status: "sent", attempts: 2 });
  });

  it("extendLease renews only the claims still held, and names the lost ones", async () => {
    const { Outbound } = await freshQueue(a, "hb_extend");
    await enqueue(a, Outbound, [{ consumer: "kept" }, { consumer: "gone" }]);
    const claims = await claimBatch(a, Outbound, { size: 2 });
    expect(claims).toHaveLength(2);
    const gone = claims.find((c) => c.consumer === "gone");
    await a
      .execute(
        update(Outbound)
          .set({ updatedAt: sql.nowPlusSeconds(-3600) })
          .allRows(),
      )
      .rowsAffected();
    // The lost one is reclaimed; the kept one was aged too, but is still this claim's.
    await a
      .execute(
        update(Outbound)
          .set({ status: "queued" })
          .where({ id: gone?.id as string }),
      )
      .rowsAffected();
    const result = await extendLease(a, Outbound, claims);
    expect(result.applied).toBe(1);
    expect(result.stale).toBe(1);
    expect(result.lost.map((c) => c.consumer)).toEqual(["gone"]);
    // The renewal moved the kept claim's lease to now: a reclaim with a one-minute lease leaves it.
    expect(await reclaimExpired(a, Outbound, { leaseSeconds: 60 })).toBe(0);
    expect((await a.execute(select(Outbound, ["status"]).where({ consumer: "kept" })).one()).status).toBe("sending");
  });
});
