/**
 * Peak RSS of engine.stream() over 100,000 and 1,000,000 rows on each database, each run in a fresh
 * process; the ratio of the two is the figure that matters (goal: at most 1.2, memory that does not
 * grow with the rows). `--quick`: 10,000 vs 100,000. Run from bench/:
 *   pnpm exec tsx src/stream-memory.ts [--quick]   (TEMPEST_PG_URL / TEMPEST_MYSQL_URL as for the bench)
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const quick = process.argv.includes("--quick");
const [small, large] = quick ? [10_000, 100_000] : [100_000, 1_000_000];
const child = fileURLToPath(new URL("./stream-memory-child.ts", import.meta.url));

interface Report {
  readonly n: number;
  readonly ms: number;
  readonly peakRssMiB: number;
  readonly rssBeforeMiB: number;
}

async function measure(db: string, n: number): Promise<Report> {
  const { stdout } = await run(process.execPath, [...process.execArgv, "--expose-gc", child, db, String(n)], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split("\n").pop() as string) as Report;
}

let worst = 0;
for (const db of ["postgres", "mysql", "sqlite"]) {
  const a = await measure(db, small);
  const b = await measure(db, large);
  const ratio = b.peakRssMiB / a.peakRssMiB;
  worst = Math.max(worst, ratio);
  const line = (r: Report) =>
    `${r.n.toLocaleString("en-US")} rows: peak RSS ${r.peakRssMiB.toFixed(1)} MiB (before ${r.rssBeforeMiB.toFixed(1)}), ${(r.n / (r.ms / 1000)).toFixed(0)} rows/s`;
  console.log(`${db}: ${line(a)}; ${line(b)}; ratio ${ratio.toFixed(3)}`);
}
console.log(`worst ratio ${worst.toFixed(3)} (goal <= 1.2)`);
if (worst > 1.2) process.exitCode = 1;
