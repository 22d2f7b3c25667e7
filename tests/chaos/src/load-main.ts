// pnpm --filter @tempest-db-js/chaos load — the load test at full size, by hand:
//   [--duration 60] [--connections 50] [--pool 5] [--workers 4] [--kill-every 3000]
//   [--terminate-every 4000] [--restarts 2] [--repeat 0.3] [--lease 10] [--json]
// Exits 1 on any violation.
import { formatLoadReport } from "./load-report.js";
import { runLoad } from "./load-run.js";

const args = process.argv.slice(2);
if (args.includes("--help")) {
  console.log(
    "load [--duration s] [--connections n] [--pool n] [--workers n] [--kill-every ms] [--terminate-every ms] [--restarts n] [--repeat share] [--lease s] [--json]",
  );
  process.exit(0);
}
const arg = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  const value = i >= 0 ? Number(args[i + 1]) : fallback;
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name}: not a number: ${args[i + 1]}`);
  return value;
};
const report = await runLoad({
  durationSec: arg("duration", 60),
  connections: arg("connections", 50),
  poolSize: arg("pool", 5),
  workers: arg("workers", 4),
  killEveryMs: arg("kill-every", 3000),
  terminateEveryMs: arg("terminate-every", 4000),
  restarts: arg("restarts", 2),
  repeatShare: arg("repeat", 0.3),
  leaseSeconds: arg("lease", 10),
  drainLimitMs: 120_000,
  log: (line) => console.error(line),
});
console.log(args.includes("--json") ? JSON.stringify(report, null, 2) : formatLoadReport(report));
process.exit(report.violations.length > 0 ? 1 : 0);
