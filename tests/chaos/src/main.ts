// pnpm chaos [--dialect postgres,mysql,sqlite] [--jobs 50000] [--workers 8] [--kill-every 200] ...
// Runs the chaos test on each database in turn, prints the summary table, exits 1 on any violation.

import { parseArgs } from "node:util";
import { summaryTable } from "./summary.js";
import type { ChaosReport } from "./supervisor.js";
import { runChaos } from "./supervisor.js";
import { parseDialects, targetFor } from "./targets.js";

const { values } = parseArgs({
  options: {
    dialect: { type: "string", default: process.env.CHAOS_DIALECTS ?? "all" },
    jobs: { type: "string", default: "50000" },
    workers: { type: "string", default: "8" },
    "kill-every": { type: "string", default: "200" },
    "kill-for": { type: "string" },
    lease: { type: "string" },
    batch: { type: "string", default: "25" },
    lanes: { type: "string", default: "2" },
    "max-attempts": { type: "string", default: "5" },
    "failure-rate": { type: "string", default: "0.02" },
    "poison-rate": { type: "string", default: "0.005" },
    "deadline-min": { type: "string", default: "20" },
    keep: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
  allowPositionals: false,
});

if (values.help) {
  console.log(`pnpm chaos [options]
  --dialect LIST       postgres,mysql,sqlite or all (default all; env CHAOS_DIALECTS)
  --jobs N             jobs to enqueue (50000)
  --workers N          worker processes kept running (8)
  --kill-every MS      mean time between SIGKILLs (200)
  --kill-for MS        stop killing after MS (default: until every job is finished)
  --lease S            lease seconds (default 5; 10 on SQLite)
  --batch N            claim size (25)        --lanes N   claim loops per worker (2)
  --max-attempts N     attempts before failed (5)
  --failure-rate X     transient delivery failures (0.02)   --poison-rate X  always-failing jobs (0.005)
  --deadline-min M     give up after M minutes per database (20)
  --keep               keep the tables and journals`);
  process.exit(0);
}

const int = (name: keyof typeof values) => {
  const n = Number(values[name]);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number`);
  return n;
};

const reports: ChaosReport[] = [];
for (const dialect of parseDialects(values.dialect)) {
  const target = targetFor(dialect);
  const report = await runChaos({
    target,
    jobs: int("jobs"),
    workers: int("workers"),
    killEveryMs: int("kill-every"),
    killForMs: values["kill-for"] === undefined ? undefined : int("kill-for"),
    leaseSeconds: values.lease === undefined ? (dialect === "sqlite" ? 10 : 5) : int("lease"),
    batchSize: int("batch"),
    lanes: int("lanes"),
    maxAttempts: int("max-attempts"),
    failureRate: int("failure-rate"),
    poisonRate: int("poison-rate"),
    pollMs: 50,
    deadlineMs: int("deadline-min") * 60_000,
    keep: values.keep,
    log: (line) => console.log(`[chaos] ${line}`),
  });
  reports.push(report);
  console.log(`[chaos] ${target.label}: ${report.violations.length === 0 ? "PASS" : "FAIL"} in ${(report.durationMs / 1000).toFixed(1)} s`);
  for (const violation of report.violations) console.log(`[chaos]   ${violation}`);
}

console.log(`\n${summaryTable(reports)}`);
const failed = reports.filter((r) => r.violations.length > 0);
if (failed.length > 0) {
  console.log(`\nFAILED on ${failed.map((r) => r.label).join(", ")}`);
  process.exit(1);
}
console.log("\nAll invariants held.");
