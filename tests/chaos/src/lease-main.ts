// pnpm chaos:lease — the long-delivery chaos run at full size, by hand:
//   pnpm --filter @tempest-db-js/chaos chaos:lease [--jobs 1000] [--workers 6] [--kill-for 60] [--dialect postgres,mysql,sqlite]
import { runLeaseChaos } from "./lease-chaos.js";
import { parseDialects, targetFor } from "./targets.js";

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const dialectArg = args.includes("--dialect") ? args[args.indexOf("--dialect") + 1] : process.env.CHAOS_DIALECTS;
let failed = false;
for (const dialect of parseDialects(dialectArg)) {
  const report = await runLeaseChaos({
    target: targetFor(dialect),
    jobs: arg("jobs", 1000),
    workers: arg("workers", 6),
    lanes: 2,
    batchSize: 3,
    leaseSeconds: 1,
    minDeliveryMs: 200,
    maxDeliveryMs: 2500,
    killEveryMs: arg("kill-every", 500),
    killForMs: arg("kill-for", 60) * 1000,
    deadlineMs: 30 * 60_000,
  });
  console.log(JSON.stringify(report, null, 2));
  if (report.violations.length > 0) failed = true;
}
process.exit(failed ? 1 : 0);
