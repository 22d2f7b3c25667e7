import { describe, expect, it } from "vitest";
import type { ChaosData, ClaimRecord, SettlementRecord, WorkerLife } from "../src/analyze.js";
import { analyze } from "../src/analyze.js";

// The checker must not be vacuous: each violation it exists for is built here from records and must
// be reported; the at-least-once redelivery after a SIGKILL must not be.

const t = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

function life(id: string, extra: Partial<WorkerLife> = {}): WorkerLife {
  return {
    id,
    pid: 1,
    startedAt: t(0).getTime(),
    killedAt: undefined,
    exitedAt: t(100_000).getTime(),
    exitCode: 0,
    signal: null,
    stopped: true,
    stderr: "",
    ...extra,
  };
}

function claim(jobId: string, attempt: number, worker: string, at: number, batchId = `${worker}-${at}`): ClaimRecord {
  return { jobId, attempt, worker, batchId, batchSize: 10, claimedAt: t(at), leaseUntil: t(at + 5000) };
}

function settled(
  jobId: string,
  attempt: number,
  worker: string,
  at: number,
  outcome: SettlementRecord["outcome"] = "sent",
  applied = true,
): SettlementRecord {
  return { jobId, attempt, worker, outcome, applied, settledAt: t(at) };
}

/** Job a: sent on the first try. Job b: claimed by w1, which was SIGKILLed after delivering; reclaimed and sent by w2. */
function cleanRun(): ChaosData {
  return {
    expectedJobs: 2,
    maxAttempts: 5,
    batchSize: 10,
    poisonConsumer: "poison",
    jobs: [
      { id: "a", consumer: "c", status: "sent", attempts: 1 },
      { id: "b", consumer: "c", status: "sent", attempts: 2 },
    ],
    claims: [claim("a", 1, "w2", 10), claim("b", 1, "w1", 20), claim("b", 2, "w2", 6000)],
    settlements: [settled("a", 1, "w2", 30), settled("b", 2, "w2", 6010)],
    reclaimedRows: 1,
    anomalies: [],
    deliveries: [
      { worker: "w2", jobId: "a", attempt: 1, at: t(25).getTime() },
      { worker: "w1", jobId: "b", attempt: 1, at: t(25).getTime() },
      { worker: "w2", jobId: "b", attempt: 2, at: t(6005).getTime() },
    ],
    abandoned: [],
    workerErrors: [],
    corruptJournalLines: 0,
    workers: [life("w1", { killedAt: t(40).getTime(), exitCode: null, signal: "SIGKILL", stopped: false }), life("w2")],
  };
}

describe("analyze", () => {
  it("passes a run whose only extra delivery is the SIGKILLed holder's", () => {
    const findings = analyze(cleanRun());
    expect(findings.violations).toEqual([]);
    expect(findings).toMatchObject({
      sent: 2,
      lost: 0,
      redeliveries: 1,
      unexplainedDuplicateDeliveries: 0,
      duplicateClaims: 0,
      kills: 1,
      reclaims: 1,
    });
    expect(findings.deliveriesPerSentJob).toEqual({ 1: 1, 2: 1 });
  });

  it("reports a row claimed while its previous holder was alive and had not settled it", () => {
    const data = cleanRun();
    // w1 was not killed: it still held b when w2 claimed it.
    const findings = analyze({ ...data, workers: [life("w1"), life("w2")] });
    expect(findings.duplicateClaims).toBe(1);
    expect(findings.unexplainedDuplicateDeliveries).toBe(1);
    expect(findings.violations.join("\n")).toMatch(/two live workers held one row/);
  });

  it("reports the same attempts token claimed twice", () => {
    const data = cleanRun();
    const findings = analyze({ ...data, claims: [...data.claims, claim("a", 1, "w1", 15)] });
    expect(findings.duplicateClaims).toBeGreaterThanOrEqual(1);
    expect(findings.violations.join("\n")).toMatch(/same attempts token twice/);
    expect(findings.violations.join("\n")).toMatch(/attempts differs from claims recorded/);
  });

  it("reports a claim larger than its batch size", () => {
    const data = cleanRun();
    const big = Array.from({ length: 11 }, (_, i) => claim(`x${i}`, 1, "w2", 50, "big"));
    const findings = analyze({ ...data, claims: [...data.claims, ...big] });
    expect(findings.largestClaim).toBe(11);
    expect(findings.violations.join("\n")).toMatch(/claim larger than its batch size: 1/);
  });

  it("reports lost jobs: missing, left queued, sent without a delivery", () => {
    const data = cleanRun();
    const findings = analyze({
      ...data,
      expectedJobs: 4,
      jobs: [...data.jobs, { id: "c", consumer: "c", status: "queued", attempts: 0 }],
      deliveries: data.deliveries.filter((d) => d.jobId !== "a"),
    });
    expect(findings.lost).toBe(3);
    expect(findings.violations.join("\n")).toMatch(/jobs missing/);
    expect(findings.violations.join("\n")).toMatch(/left queued/);
    expect(findings.violations.join("\n")).toMatch(/sent without a delivery/);
  });

  it("reports two completions of one job and a settlement that found its claim taken", () => {
    const data = cleanRun();
    const findings = analyze({
      ...data,
      workers: [life("w1"), life("w2")],
      settlements: [...data.settlements, settled("b", 1, "w1", 7000)],
    });
    expect(findings.duplicateCompletions).toBe(1);
    const stale = analyze({
      ...data,
      workers: [life("w1"), life("w2")],
      settlements: [...data.settlements, settled("b", 1, "w1", 7000, "sent", false)],
    });
    expect(stale.duplicateCompletions).toBe(0);
    expect(stale.violations.join("\n")).toMatch(/lease lost/);
  });

  it("reports reclaim accounting that does not match the unsettled claims, anomalies and crashed workers", () => {
    const data = cleanRun();
    const findings = analyze({
      ...data,
      reclaimedRows: 3,
      anomalies: [{ worker: "w2", kind: "fence:sent", detail: "recipe reported 2 applied" }],
      workers: [...data.workers, life("w3", { exitCode: 1, stopped: false, stderr: "TypeError: boom" })],
    });
    const text = findings.violations.join("\n");
    expect(text).toMatch(/reclaimed rows differ from unsettled claims/);
    expect(text).toMatch(/worker anomaly fence:sent/);
    expect(text).toMatch(/worker crashed.*boom/);
  });

  it("accepts a job failed by policy and rejects one failed early or a delivered poison job", () => {
    const base = cleanRun();
    const ok = analyze({
      ...base,
      expectedJobs: 3,
      jobs: [...base.jobs, { id: "p", consumer: "poison", status: "failed", attempts: 5 }],
      claims: [...base.claims, ...[1, 2, 3, 4, 5].map((n) => claim("p", n, "w2", 100 * n))],
      settlements: [
        ...base.settlements,
        ...[1, 2, 3, 4].map((n) => settled("p", n, "w2", 100 * n + 10, "requeued")),
        settled("p", 5, "w2", 510, "failed"),
      ],
    });
    expect(ok.violations).toEqual([]);
    expect(ok).toMatchObject({ failed: 1, failedPoison: 1 });
    const early = analyze({
      ...base,
      expectedJobs: 3,
      jobs: [...base.jobs, { id: "p", consumer: "poison", status: "failed", attempts: 1 }],
      claims: [...base.claims, claim("p", 1, "w2", 100)],
      settlements: [...base.settlements, settled("p", 1, "w2", 110, "failed")],
      deliveries: [...base.deliveries, { worker: "w2", jobId: "p", attempt: 1, at: t(105).getTime() }],
    });
    expect(early.violations.join("\n")).toMatch(/failed before maxAttempts/);
    expect(early.violations.join("\n")).toMatch(/poison job delivered/);
  });
});
