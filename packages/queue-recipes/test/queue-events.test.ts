import type { Engine } from "tempest-db-js";
import { op, sql, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { QueueEvent } from "../src/index.js";
import { claimBatch, drain, enqueue } from "../src/index.js";
import { freshQueue } from "./support/fresh-queue.js";
import { LOADED_LEASE_SECONDS } from "./support/loaded-lease.js";
import { engineFor, targets } from "./support/targets.js";

describe.each(targets)("drain events on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 4);
  });
  afterAll(async () => {
    await engine.close();
  });

  it("reports every claim, reclaim and settled batch, and the counts add up to the drain's", async () => {
    const { Outbound } = await freshQueue(engine, "events");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 23 }, (_, i) => ({ consumer: i % 4 === 0 ? "flaky" : "ok" })),
    );
    // Two claims that their worker abandons, long enough ago that their lease is over: the drain
    // reclaims them. Its own claims keep a lease that a stall of a loaded machine does not run out
    // (support/loaded-lease.ts), so these two are all it reclaims.
    const abandoned = await claimBatch(engine, Outbound, { size: 2 });
    await engine
      .execute(
        update(Outbound)
          .set({ updatedAt: sql.nowPlusSeconds(-3600) })
          .where({ id: op.in(abandoned.map((m) => m.id)) }),
      )
      .rowsAffected();

    const events: QueueEvent[] = [];
    let tries = 0;
    const result = await drain(
      engine,
      Outbound,
      (message) => {
        if (message.consumer === "flaky" && tries++ % 2 === 0) throw new Error("try again");
      },
      {
        batchSize: 5,
        concurrency: 2,
        leaseSeconds: LOADED_LEASE_SECONDS,
        backoff: () => 0,
        onEvent: (event) => {
          events.push(event);
          throw new Error("a broken metrics exporter must not stop the worker");
        },
      },
    );

    const of = <K extends QueueEvent["kind"]>(kind: K) => events.filter((e): e is Extract<QueueEvent, { kind: K }> => e.kind === kind);
    const sum = (list: readonly object[], key: string) => list.reduce((n, e) => n + ((e as Record<string, number>)[key] ?? 0), 0);
    expect(abandoned).toHaveLength(2);
    expect(sum(of("reclaim"), "count")).toBe(result.reclaimed);
    expect(result.reclaimed).toBe(2);
    const settled = of("settle");
    for (const key of ["sent", "retried", "failed", "stale"] as const) expect(sum(settled, key), key).toBe(result[key]);
    expect(result.sent).toBe(23);
    // Every delivery attempt came from a claim, and every non-empty claim was settled once.
    expect(sum(of("claim"), "count")).toBe(result.sent + result.retried + result.failed + result.stale);
    expect(of("claim").filter((e) => e.count > 0)).toHaveLength(settled.length);
    expect(of("claim").some((e) => e.count === 0)).toBe(true); // the last, empty poll of each lane
    for (const event of events) expect(event.durationMs).toBeGreaterThanOrEqual(0);
  });
});
