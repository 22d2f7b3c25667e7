import { describe, expect, it } from "vitest";
import { runLeaseChaos } from "../src/lease-chaos.js";
import { parseDialects, targetFor } from "../src/targets.js";

// The small version of `pnpm --filter @tempest-db-js/chaos chaos:lease`: per database, 40 jobs whose
// deliveries take 0.2-2.5 s against a 1 s lease, 3 worker processes running work() with the
// heartbeat, one SIGKILLed about every 700 ms for 6 s and replaced; then the survivors finish.
describe.each(parseDialects(process.env.CHAOS_DIALECTS))("long-delivery chaos on %s", (dialect) => {
  it("deliveries longer than the lease, workers SIGKILLed: never two live deliveries of a job at once, none failed, none lost", async () => {
    const report = await runLeaseChaos({
      target: targetFor(dialect),
      jobs: 40,
      workers: 3,
      lanes: 2,
      batchSize: 2,
      leaseSeconds: 1,
      minDeliveryMs: 200,
      maxDeliveryMs: 2500,
      killEveryMs: 700,
      killForMs: 6000,
      deadlineMs: 150_000,
    });
    console.log(JSON.stringify(report));
    expect(report.violations).toEqual([]);
    expect(report.overlaps).toBe(0);
    expect(report.successfulEndedFailed).toBe(0);
    expect(report.sent).toBe(40);
    // The chaos happened: kills landed mid-delivery, and deliveries outlasted the lease.
    expect(report.kills).toBeGreaterThanOrEqual(5);
    expect(report.killedMidDelivery).toBeGreaterThan(0);
    expect(report.longestDeliveryMs).toBeGreaterThan(1000);
  });
});
