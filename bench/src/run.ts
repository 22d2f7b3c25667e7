import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { machine, PEERS, versionOf } from "./lib/env.js";
import type { SectionResult } from "./lib/report.js";
import { formatSection } from "./lib/report.js";
import { buildCompile } from "./sections/build-compile.js";
import { claimPriority } from "./sections/claim-priority.js";
import { claimScaling } from "./sections/claim-scaling.js";
import { cyclePostgres } from "./sections/cycle-postgres.js";
import { fairnessPostgres } from "./sections/fairness-postgres.js";
import { generateScale } from "./sections/generate-scale.js";
import { latencyPostgres } from "./sections/latency-postgres.js";
import { memory } from "./sections/memory.js";
import { migrationLocks } from "./sections/migration-locks.js";
import { queryJoin } from "./sections/query-join.js";
import { queueDrainMysql } from "./sections/queue-drain-mysql.js";
import { queueDrainPostgres } from "./sections/queue-drain-postgres.js";
import { queueDrainSqlite } from "./sections/queue-drain-sqlite.js";
import { relationLoads } from "./sections/relations.js";
import { retentionPurge } from "./sections/retention-purge.js";
import { sqliteCrud } from "./sections/sqlite-crud.js";

type Section = (quick: boolean) => Promise<SectionResult>;

const sections: Record<string, Section> = {
  "drain-postgres": queueDrainPostgres,
  "cycle-postgres": cyclePostgres,
  "drain-mysql": queueDrainMysql,
  "drain-sqlite": queueDrainSqlite,
  "latency-postgres": latencyPostgres,
  "claim-scaling": claimScaling,
  "claim-priority": claimPriority,
  "fairness-postgres": fairnessPostgres,
  "build-compile": buildCompile,
  "sqlite-crud": sqliteCrud,
  "query-join": queryJoin,
  relations: relationLoads,
  memory,
  "migration-locks": migrationLocks,
  "generate-scale": generateScale,
  "retention-purge": retentionPurge,
};

function parseArgs(argv: readonly string[]) {
  const quick = argv.includes("--quick");
  const only = argv
    .find((a) => a.startsWith("--only="))
    ?.slice("--only=".length)
    .split(",");
  const json = argv.find((a) => a.startsWith("--json="))?.slice("--json=".length);
  /** Set by the parent on a section's own process: write the result there, print no header. */
  const sectionOut = argv.find((a) => a.startsWith("--section-out="))?.slice("--section-out=".length);
  const inProcess = argv.includes("--in-process");
  return { quick, only, json, sectionOut, inProcess };
}

/**
 * Each section runs in a process of its own (unless --in-process), so that its figures do not depend
 * on which sections ran before it: a program talks to one database through one dialect, and V8's
 * inline caches and optimised code should see what such a program does, not the leftovers of three
 * dialects and the peers' drivers. The children are this script with --only and --section-out.
 */
function runIsolated(id: string, quick: boolean): SectionResult {
  const dir = mkdtempSync(join(tmpdir(), "tempest-bench-section-"));
  try {
    const out = join(dir, "section.json");
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, process.argv[1] as string, `--only=${id}`, `--section-out=${out}`, ...(quick ? ["--quick"] : [])],
      { stdio: ["ignore", "inherit", "inherit"] },
    );
    if (child.status !== 0) throw new Error(`section ${id} failed (exit ${child.status ?? child.signal})`);
    return JSON.parse(readFileSync(out, "utf8")) as SectionResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runHere(id: string, quick: boolean): Promise<SectionResult> {
  const started = performance.now();
  const result = await (sections[id] as Section)(quick);
  console.log(formatSection(result));
  console.log(`  (section took ${((performance.now() - started) / 1000).toFixed(1)} s)`);
  return result;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const selected = Object.keys(sections).filter((id) => !args.only || args.only.includes(id));
  if (args.sectionOut) {
    const results = [];
    for (const id of selected) results.push(await runHere(id, args.quick));
    writeFileSync(args.sectionOut, JSON.stringify(results[0]));
    return;
  }
  const info = machine();
  const versions = Object.fromEntries([["tempest-db-js", versionOf("tempest-db-js")], ...PEERS.map((p) => [p, versionOf(p)])]);
  console.log(`# tempest-db-js benchmarks${args.quick ? " (--quick: small sizes, figures not meaningful)" : ""}`);
  for (const [k, v] of Object.entries(info)) console.log(`${k}: ${v}`);
  console.log(
    `versions: ${Object.entries(versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
  console.log(args.inProcess ? "sections: all in this process (--in-process)" : "sections: each in a fresh process");
  const results: SectionResult[] = [];
  for (const id of selected) results.push(args.inProcess ? await runHere(id, args.quick) : runIsolated(id, args.quick));
  if (args.json) writeFileSync(args.json, JSON.stringify({ quick: args.quick, machine: info, versions, results }, null, 2));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
