import { describe, expect, it } from "vitest";
import { formatLoadReport } from "../src/load-report.js";
import { runLoad } from "../src/load-run.js";

// The quick version of `pnpm --filter @tempest-db-js/chaos load`: 8 s of autocannon (30 connections)
// against the order service with a pool of 4, on a private PostgreSQL restarted once mid-load, with
// workers SIGKILLed and the service's backends terminated every ~2 s. The invariants are asserted,
// not the timings (the figures are printed).
describe("order service under load and faults", () => {
  it("keeps orders and messages one to one, delivers each once in effect, and recovers without a restart", async () => {
    const report = await runLoad({
      durationSec: 8,
      connections: 30,
      poolSize: 4,
      workers: 3,
      killEveryMs: 2000,
      terminateEveryMs: 2000,
      restarts: 1,
      repeatShare: 0.3,
      leaseSeconds: 5,
      drainLimitMs: 40_000,
    });
    console.log(formatLoadReport(report));
    expect(report.violations).toEqual([]);
    const f = report.findings;
    expect(f.orders).toBeGreaterThan(0);
    expect(f.messages).toBe(f.orders);
    expect(f.receipts).toBe(f.messages);
    expect(f.undelivered).toBe(0);
    expect(f.claimsDeliveredTwice).toBe(0);
    expect(f.unexplainedRedeliveries).toBe(0);
    expect(report.finalServiceConnections).toBeLessThanOrEqual(4);
    // The load and the faults really happened: new and repeated keys, clients saw the restart as
    // 503s, and the service answered again after it.
    expect(report.statuses["201"]).toBeGreaterThan(0);
    expect(report.statuses["200"]).toBeGreaterThan(0);
    expect(report.statuses["503"]).toBeGreaterThan(0);
    expect(report.statuses["500"]).toBeUndefined();
    expect(report.kills).toBeGreaterThanOrEqual(2);
    expect(report.terminatedBackends).toBeGreaterThan(0);
    expect(report.restarts).toHaveLength(1);
    expect(report.restarts[0]?.recoverySeconds).toBeGreaterThan(0);
  }, 120_000);
});
