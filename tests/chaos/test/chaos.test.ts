import { describe, expect, it } from "vitest";
import { summaryTable } from "../src/summary.js";
import { runChaos } from "../src/supervisor.js";
import { parseDialects, targetFor } from "../src/targets.js";

// The small version of `pnpm chaos`: per database, 2 000 jobs, 4 worker processes, one SIGKILLed
// about every 200 ms while more than a tenth of the jobs is unfinished (a few seconds), then the
// survivors finish. The same invariants as the full run.
const JOBS = 2000;
const BATCH = 10;

describe.each(parseDialects(process.env.CHAOS_DIALECTS))("chaos on %s", (dialect) => {
  it("workers SIGKILLed every ~200 ms lose nothing, never share a row, never complete a job twice", async () => {
    const report = await runChaos({
      target: targetFor(dialect),
      jobs: JOBS,
      workers: 4,
      killEveryMs: 200,
      killUntilUnfinished: 0.1,
      killForMs: 20_000,
      leaseSeconds: 5,
      batchSize: BATCH,
      lanes: 2,
      deliveryMs: 40,
      maxAttempts: 5,
      failureRate: 0.02,
      poisonRate: 0.01,
      pollMs: 50,
      deadlineMs: 120_000,
    });
    console.log(summaryTable([report]));
    expect(report.violations).toEqual([]);
    expect(report.lost).toBe(0);
    expect(report.duplicateClaims).toBe(0);
    expect(report.duplicateCompletions).toBe(0);
    expect(report.unexplainedDuplicateDeliveries).toBe(0);
    expect(report.sent + report.failed).toBe(JOBS);
    // Every poison job ended failed; the others may only fail by running out of attempts.
    expect(report.failedPoison).toBe(JOBS / 100);
    expect(report.largestClaim).toBeLessThanOrEqual(BATCH);
    // The chaos really happened: workers died holding claims, and their rows came back.
    expect(report.kills).toBeGreaterThanOrEqual(5);
    expect(report.killsHoldingClaims).toBeGreaterThan(0);
    expect(report.reclaims).toBeGreaterThan(0);
  });
});
