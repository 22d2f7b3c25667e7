import type { Engine } from "tempest-db-js";
import { createEngine, select } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DeliveryAbortError, drain, enqueue, work } from "../src/index.js";
import { freshTokenQueue } from "./support/fresh-queue.js";
import { holdLock } from "./support/hold-lock.js";
import { LOADED_LEASE_SECONDS } from "./support/loaded-lease.js";
import { targets } from "./support/targets.js";

async function until(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const LEASE = LOADED_LEASE_SECONDS;
const HARD_MS = 1.5 * LEASE * 1000;

describe.each(targets)("delivery bounds on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    // A short busy wait on SQLite: a renewal blocked by another process's write lock fails fast
    // (better-sqlite3 waits synchronously) instead of holding up the event loop.
    engine = createEngine(target.url, { poolSize: 4, ...(target.name === "SQLite" ? { driver: { busyTimeoutMs: 20 } } : {}) });
  });
  afterAll(async () => {
    await engine.close();
  });

  it("times a delivery out after two thirds of the lease by default, reports it, and gives up a hung one at the hard timeout", async () => {
    const { Outbound } = await freshTokenQueue(engine, "bounds_timeout");
    await enqueue(engine, Outbound, { consumer: "hangs" });
    const reasons: unknown[] = [];
    const timeouts: unknown[] = [];
    const running = drain(
      engine,
      Outbound,
      (_m, { signal }) =>
        new Promise(() => {
          signal.addEventListener("abort", () => reasons.push(signal.reason));
        }),
      // A lease that a loaded machine's stalls do not run out (support/loaded-lease.ts): the claim is
      // held by the heartbeat alone, and only the two timeouts end the delivery.
      { leaseSeconds: LEASE, maxAttempts: 1, deliveryHardTimeoutMs: HARD_MS, onDeliveryTimeout: (error) => timeouts.push(error) },
    );
    // The timeout is reported while the delivery still runs: the claim is still held, the error recorded.
    await until(async () => (await engine.execute(select(Outbound, ["lastError"])).one()).lastError !== null);
    expect(await engine.execute(select(Outbound, ["status", "attempts", "claimToken", "lastError"])).one()).toEqual({
      status: "sending",
      attempts: 0,
      claimToken: 1,
      lastError: `DeliveryAbortError: delivery timed out after ${Math.round((LEASE * 1000 * 2) / 3)} ms`,
    });
    const result = await running;
    // Never settled: given up at the hard timeout, as a failure (maxAttempts 1: failed).
    expect(result).toMatchObject({ sent: 0, failed: 1, stale: 0, reclaimed: 0 });
    expect(reasons).toHaveLength(1);
    expect((reasons[0] as DeliveryAbortError).reason).toBe("timeout");
    expect(timeouts).toEqual([reasons[0]]);
    expect(await engine.execute(select(Outbound, ["status", "attempts", "claimToken", "lastError"])).one()).toEqual({
      status: "failed",
      attempts: 1,
      // Never reclaimed: the heartbeat held the claim for all of the hard timeout (one and a half leases).
      claimToken: 1,
      lastError: `DeliveryAbortError: delivery still running ${HARD_MS} ms after it started (deliveryHardTimeoutMs): given up, its outcome is ignored`,
    });
  });

  it("stops waiting for a delivery that never settles stopTimeoutMs after the abort, and gives its message back", async () => {
    const { Outbound } = await freshTokenQueue(engine, "bounds_stop");
    await enqueue(engine, Outbound, { consumer: "hangs" });
    const stop = new AbortController();
    const reasons: unknown[] = [];
    const running = work(
      engine,
      Outbound,
      (_m, { signal }) => {
        signal.addEventListener("abort", () => reasons.push(signal.reason));
        stop.abort(); // the worker is asked to stop while this delivery hangs, ignoring its signal
        return new Promise(() => {});
      },
      { signal: stop.signal, stopTimeoutMs: 200, deliveryTimeoutMs: Number.POSITIVE_INFINITY, pollIntervalMs: 50 },
    );
    const totals = await running;
    expect(totals).toMatchObject({ sent: 0, retried: 1, failed: 0 });
    expect((reasons[0] as DeliveryAbortError).reason).toBe("stopping");
    // Given back: queued, due, no failure counted (the token fences the hung delivery out).
    expect(await engine.execute(select(Outbound, ["status", "attempts", "claimToken"])).one()).toEqual({
      status: "queued",
      attempts: 0,
      claimToken: 1,
    });
  });

  it("aborts a delivery whose lease cannot be renewed in time and leaves it unsettled", async () => {
    const { Outbound } = await freshTokenQueue(engine, "bounds_blocked");
    await enqueue(engine, Outbound, { consumer: "x" });
    let lock: { release: () => Promise<void> } | undefined;
    const events: string[] = [];
    const result = await drain(
      engine,
      Outbound,
      async (_m, { signal }) => {
        // Claimed: now another process takes the locks the renewal needs.
        lock = await holdLock(target, Outbound.tablename);
        events.push("locked");
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
        events.push(`aborted: ${(signal.reason as DeliveryAbortError).reason}`);
        // Let go at once, so that the drain's own statements get through again.
        await lock.release();
        throw signal.reason;
      },
      { leaseSeconds: 1.2, deliveryTimeoutMs: 30_000, onHeartbeatError: () => events.push("renewal failed") },
    );
    expect(events[0]).toBe("locked");
    expect(events.at(-1)).toBe("aborted: lease-lost");
    // Not settled: the claim may already be someone else's. It stays sending until its lease ends.
    expect(result).toMatchObject({ sent: 0, retried: 0, failed: 0, stale: 1 });
    expect(await engine.execute(select(Outbound, ["status", "attempts"])).one()).toEqual({ status: "sending", attempts: 0 });
  });
});
