import type { Engine } from "tempest-db-js";
import { createEngine, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueue, work } from "../src/index.js";
import { freshQueue } from "./support/fresh-queue.js";
import { engineFor, targets } from "./support/targets.js";

describe.each(targets)("work() reclaims on its interval, not per wake-up, on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 4);
  });
  afterAll(async () => {
    await engine.close();
  });

  it("wakes for each message with one claim and no reclaim in front of it", async () => {
    const { Outbound } = await freshQueue(engine, "work_reclaim_wake");
    const statements: string[] = [];
    const spy = createEngine(target.url, { poolSize: 2, onQuery: (e) => statements.push(e.sql) });
    // The reclaim is the one statement that compares updatedAt with the lease.
    const isReclaim = (s: string) => /.updated_at. </.test(s);
    let atStart = 0;
    const stop = new AbortController();
    let delivered = 0;
    let next: () => void = () => {};
    try {
      const worker = work(
        spy,
        Outbound,
        () => {
          delivered++;
          next();
        },
        { signal: stop.signal, pollIntervalMs: 50, leaseSeconds: 300 },
      );
      // The loop's first round looks for expired claims once (a crashed worker's, at start-up).
      for (let i = 0; i < 6; i++) {
        const arrived = new Promise<void>((resolve) => (next = resolve));
        await enqueue(engine, Outbound, [{ consumer: `c${i}` }]);
        await arrived;
        if (i === 0) atStart = statements.filter(isReclaim).length;
      }
      stop.abort();
      const totals = await worker;
      expect(totals.sent).toBe(6);
      expect(delivered).toBe(6);
      // Half a lease (150 s) never passed: the start-up reclaim is the only one, although the loop
      // woke (and went idle) five more times.
      expect(atStart).toBeGreaterThan(0);
      expect(statements.filter(isReclaim).length).toBe(atStart);
    } finally {
      await spy.close();
    }
  });

  it("still reclaims a dead worker's claim once half a lease has passed", async () => {
    const { Outbound } = await freshQueue(engine, "work_reclaim_due");
    await enqueue(engine, Outbound, [{ consumer: "dead" }]);
    // A claim whose worker died an hour ago.
    await engine
      .execute(
        update(Outbound)
          .set({ status: "sending", attempts: 1, updatedAt: new Date(Date.now() - 3_600_000) })
          .where({ consumer: "dead" }),
      )
      .rowsAffected();
    // A live claim that expires only after the loop started (lease 1 s): found by a later,
    // interval-driven reclaim, not by the one at start-up.
    await enqueue(engine, Outbound, [{ consumer: "late" }]);
    await engine
      .execute(update(Outbound).set({ status: "sending", attempts: 1, updatedAt: new Date() }).where({ consumer: "late" }))
      .rowsAffected();
    const stop = new AbortController();
    const seen: string[] = [];
    const worker = work(
      engine,
      Outbound,
      (m) => {
        seen.push(m.consumer);
        if (seen.length === 2) stop.abort();
      },
      { signal: stop.signal, pollIntervalMs: 50, leaseSeconds: 1 },
    );
    const guard = setTimeout(() => stop.abort(), 20_000);
    const totals = await worker;
    clearTimeout(guard);
    expect(seen.sort()).toEqual(["dead", "late"].sort());
    expect(totals.reclaimed).toBe(2);
  });
});
