import type { Engine } from "tempest-db-js";
import { op, select, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeliveryAbortError, DrainResult } from "../src/index.js";
import { drain, enqueue, work } from "../src/index.js";
import { freshQueue, freshTokenQueue } from "./support/fresh-queue.js";
import { LOADED_LEASE_SECONDS } from "./support/loaded-lease.js";
import { engineFor, targets } from "./support/targets.js";

async function until(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The lease of the tests where only the heartbeat may keep the claim (support/loaded-lease.ts). */
const LEASE = LOADED_LEASE_SECONDS;
/** A handler that ignores its signal and takes 2.5 leases. */
const LATE_MS = 2.5 * LEASE * 1000;
/** The default delivery timeout's report: two thirds of the lease. */
const TIMED_OUT = `delivery timed out after ${Math.round((LEASE * 1000 * 2) / 3)} ms`;

/**
 * Deliveries counted per message while they run: `max` is the most that were ever running at once.
 * A handler counts as running from its call until its promise settles, whatever its signal says.
 */
function liveCounter() {
  const live = new Map<string, number>();
  const max = new Map<string, number>();
  const calls = new Map<string, number>();
  return {
    max,
    calls,
    async around<T>(id: string, body: () => Promise<T>): Promise<T> {
      const now = (live.get(id) ?? 0) + 1;
      live.set(id, now);
      max.set(id, Math.max(max.get(id) ?? 0, now));
      calls.set(id, (calls.get(id) ?? 0) + 1);
      try {
        return await body();
      } finally {
        live.set(id, (live.get(id) ?? 1) - 1);
      }
    },
  };
}

describe.each(targets)("deliveries that ignore their signal on $name", (target) => {
  let a: Engine;
  let b: Engine;
  beforeAll(() => {
    a = engineFor(target, 4);
    // SQLite: one engine per file per process (see heartbeat.test.ts); the two loops share it.
    b = target.name === "SQLite" ? a : engineFor(target, 4);
  });
  afterAll(async () => {
    await a.close();
    if (b !== a) await b.close();
  });

  it("keeps the claim past the lease until the handler returns; a late success is sent, a late throw retried", async () => {
    const { Outbound } = await freshTokenQueue(a, "overrun_token");
    await enqueue(a, Outbound, [{ consumer: "quick" }, { consumer: "late-ok" }, { consumer: "late-throw" }]);
    const counter = liveCounter();
    const timedOut: string[] = [];
    let quickStatusAtLateReturn: unknown;
    const stop = new AbortController();
    const common = {
      leaseSeconds: LEASE,
      batchSize: 3,
      pollIntervalMs: 50,
      // The late failure is not retried during the test.
      backoff: () => 60,
      signal: stop.signal,
    };
    const handler = (db: Engine) => (message: { id: string; consumer: string }) =>
      counter.around(message.id, async () => {
        if (message.consumer === "quick") return;
        // Ignores its signal: takes 2.5 leases whatever the timeout (at two thirds of one) says.
        await sleep(LATE_MS);
        if (message.consumer === "late-throw") throw new Error("the receiver answered 500");
        // The quick one was settled at the timeout, not held back for the slowest of its batch.
        quickStatusAtLateReturn = (await db.execute(select(Outbound, ["status"]).where({ consumer: "quick" })).one()).status;
      });
    const first = work(a, Outbound, handler(a), { ...common, onDeliveryTimeout: (_e, m) => timedOut.push(m.consumer) });
    // The second loop starts once the first holds the batch: all it can do is poll and reclaim.
    await until(async () => (await a.execute(select(Outbound, ["id"]).where({ status: "sending" })).all()).length > 0);
    const second = work(b, Outbound, handler(b), common);
    await until(async () => (await a.execute(select(Outbound, ["id"]).where({ status: op.in(["sent", "queued"]) })).all()).length === 3);
    stop.abort();
    const [ra, rb] = (await Promise.all([first, second])) as [DrainResult, DrainResult];

    expect([...counter.calls.values()]).toEqual([1, 1, 1]);
    expect([...counter.max.values()]).toEqual([1, 1, 1]);
    expect(quickStatusAtLateReturn).toBe("sent");
    expect(timedOut.sort()).toEqual(["late-ok", "late-throw"]);
    expect(ra).toMatchObject({ sent: 2, retried: 1, failed: 0, stale: 0, reclaimed: 0 });
    expect(rb).toMatchObject({ sent: 0, retried: 0, failed: 0, stale: 0, reclaimed: 0 });
    const rows = await a.execute(select(Outbound, ["consumer", "status", "attempts", "claimToken", "lastError"]).orderBy("consumer")).all();
    expect(rows).toEqual([
      { consumer: "late-ok", status: "sent", attempts: 0, claimToken: 1, lastError: `DeliveryAbortError: ${TIMED_OUT}` },
      { consumer: "late-throw", status: "queued", attempts: 1, claimToken: 1, lastError: "Error: the receiver answered 500" },
      { consumer: "quick", status: "sent", attempts: 0, claimToken: 1, lastError: null },
    ]);
  });

  it("works the same on the guide's model (no claim token, no lastError): the event is the report", async () => {
    const { Outbound } = await freshQueue(a, "overrun_guide");
    await enqueue(a, Outbound, { consumer: "late-ok" });
    const counter = liveCounter();
    const timedOut: DeliveryAbortError[] = [];
    const stop = new AbortController();
    const common = { leaseSeconds: LEASE, pollIntervalMs: 50, maxAttempts: 1, signal: stop.signal };
    const handler = (message: { id: string }) => counter.around(message.id, () => sleep(LATE_MS));
    const first = work(a, Outbound, handler, { ...common, onDeliveryTimeout: (error) => timedOut.push(error) });
    await until(async () => (await a.execute(select(Outbound, ["id"]).where({ status: "sending" })).all()).length > 0);
    const second = work(b, Outbound, handler, common);
    await until(async () => (await a.execute(select(Outbound, ["status"])).one()).status !== "sending");
    stop.abort();
    const [ra, rb] = (await Promise.all([first, second])) as [DrainResult, DrainResult];
    // maxAttempts 1 and a delivery that outlived its timeout, yet delivered: sent, not failed.
    expect(await a.execute(select(Outbound, ["status", "attempts"])).one()).toEqual({ status: "sent", attempts: 1 });
    expect([...counter.calls.values(), ...counter.max.values()]).toEqual([1, 1]);
    expect(timedOut.map((e) => [e.reason, e.message])).toEqual([["timeout", TIMED_OUT]]);
    expect(ra.reclaimed + rb.reclaimed + ra.stale + rb.stale).toBe(0);
  });

  it("without the heartbeat nothing holds the claim past the lease: a handler still running is given up then", async () => {
    const { Outbound } = await freshTokenQueue(a, "overrun_no_heartbeat");
    await enqueue(a, Outbound, { consumer: "late" });
    const errors: unknown[] = [];
    const result = await drain(a, Outbound, () => sleep(1800), {
      leaseSeconds: 1,
      heartbeat: false,
      backoff: () => 60,
      onDeliveryError: (error) => errors.push(error),
    });
    expect(result).toMatchObject({ sent: 0, retried: 1, failed: 0, stale: 0 });
    expect(String(errors[0])).toBe(
      "DeliveryAbortError: delivery still running 1000 ms after it started (deliveryHardTimeoutMs): given up, its outcome is ignored",
    );
    expect(await a.execute(select(Outbound, ["status", "attempts"])).one()).toEqual({ status: "queued", attempts: 1 });
  });

  it("refuses a hard timeout shorter than the delivery timeout", async () => {
    const { Outbound } = await freshQueue(a, "overrun_invalid");
    await expect(drain(a, Outbound, () => undefined, { deliveryTimeoutMs: 1000, deliveryHardTimeoutMs: 500 })).rejects.toThrow(
      ValidationError,
    );
    await expect(drain(a, Outbound, () => undefined, { deliveryHardTimeoutMs: Number.NaN })).rejects.toThrow(
      /deliveryHardTimeoutMs must be a number ≥ deliveryTimeoutMs/,
    );
  });
});
