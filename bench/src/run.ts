import { writeFileSync } from "node:fs";
import { machine, PEERS, versionOf } from "./lib/env.js";
import type { SectionResult } from "./lib/report.js";
import { formatSection } from "./lib/report.js";
import { buildCompile } from "./sections/build-compile.js";
import { claimScaling } from "./sections/claim-scaling.js";
import { memory } from "./sections/memory.js";
import { queueDrainMysql } from "./sections/queue-drain-mysql.js";
import { queueDrainPostgres } from "./sections/queue-drain-postgres.js";
import { queueDrainSqlite } from "./sections/queue-drain-sqlite.js";
import { sqliteCrud } from "./sections/sqlite-crud.js";

type Section = (quick: boolean) => Promise<SectionResult>;

const sections: Record<string, Section> = {
  "drain-postgres": queueDrainPostgres,
  "drain-mysql": queueDrainMysql,
  "drain-sqlite": queueDrainSqlite,
  "claim-scaling": claimScaling,
  "build-compile": buildCompile,
  "sqlite-crud": sqliteCrud,
  memory,
};

function parseArgs(argv: readonly string[]) {
  const quick = argv.includes("--quick");
  const only = argv
    .find((a) => a.startsWith("--only="))
    ?.slice("--only=".length)
    .split(",");
  const json = argv.find((a) => a.startsWith("--json="))?.slice("--json=".length);
  return { quick, only, json };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const selected = Object.keys(sections).filter((id) => !args.only || args.only.includes(id));
  const info = machine();
  const versions = Object.fromEntries([["tempest-db-js", versionOf("tempest-db-js")], ...PEERS.map((p) => [p, versionOf(p)])]);
  console.log(`# tempest-db-js benchmarks${args.quick ? " (--quick: small sizes, figures not meaningful)" : ""}`);
  for (const [k, v] of Object.entries(info)) console.log(`${k}: ${v}`);
  console.log(
    `versions: ${Object.entries(versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
  const results: SectionResult[] = [];
  for (const id of selected) {
    const started = performance.now();
    const result = await (sections[id] as Section)(args.quick);
    results.push(result);
    console.log(formatSection(result));
    console.log(`  (section took ${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
  if (args.json) writeFileSync(args.json, JSON.stringify({ quick: args.quick, machine: info, versions, results }, null, 2));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
