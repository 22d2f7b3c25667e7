import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Row, SectionResult } from "../lib/report.js";
import { check } from "../lib/report.js";

const run = promisify(execFile);

interface ChildReport {
  n: number;
  ms: number;
  rssBeforeMiB: number;
  peakRssMiB: number;
  maxRssMiB: number;
  peakHeapMiB: number;
  retainedBeforeMiB: number;
  retainedAfterMiB: number;
}

/** Peak RSS of a whole drain, each size in a fresh process: flat means memory does not grow with the number of jobs. */
export async function memory(quick: boolean): Promise<SectionResult> {
  const sizes = quick ? [1_000, 2_000, 4_000] : [50_000, 100_000, 200_000];
  const child = fileURLToPath(new URL("../memory-child.ts", import.meta.url));
  const rows: Row[] = [];
  const reports: ChildReport[] = [];
  for (const n of sizes) {
    const { stdout } = await run(process.execPath, [...process.execArgv, "--expose-gc", child, String(n)], { maxBuffer: 1 << 20 });
    const report = JSON.parse(stdout.trim().split("\n").pop() as string) as ChildReport;
    reports.push(report);
    rows.push({
      name: `drain ${n.toLocaleString("en-US")} jobs`,
      value: report.maxRssMiB,
      unit: "MiB",
      stat: "peak RSS",
      extra: {
        "RSS before drain": report.rssBeforeMiB,
        "peak heap used": report.peakHeapMiB,
        "heap after full GC, before → after": `${report.retainedBeforeMiB.toFixed(1)} → ${report.retainedAfterMiB.toFixed(1)} MiB`,
        "drain time": `${(report.ms / 1000).toFixed(1)} s`,
      },
    });
  }
  const growth = (reports[2]?.maxRssMiB as number) / (reports[0]?.maxRssMiB as number);
  return {
    id: "memory",
    title: "5. Memory: peak RSS of a PostgreSQL drain (4 workers, batch 50), one child process per size",
    groups: [
      {
        title: "peak RSS (getrusage maxrss of the child, which includes the TypeScript loader)",
        rows,
        baselines: [rows[0]?.name as string],
        checks: [
          check(`peak RSS at ${sizes[2]?.toLocaleString("en-US")} ÷ at ${sizes[0]?.toLocaleString("en-US")}`, growth, "≤", 1.1),
          check(
            `heap retained after the drain at ${sizes[2]?.toLocaleString("en-US")} ÷ at ${sizes[0]?.toLocaleString("en-US")}`,
            (reports[2]?.retainedAfterMiB as number) / (reports[0]?.retainedAfterMiB as number),
            "≤",
            1.1,
          ),
        ],
        notes: [
          "Jobs are queued by one INSERT ... SELECT generate_series in the child before the drain, so no job list is held in JavaScript.",
          "Peak RSS also moves with when V8 happens to collect; the heap a full GC leaves after the drain (child run with --expose-gc) is the leak test.",
        ],
      },
    ],
  };
}
