#!/usr/bin/env node
// Sums the vitest JSON reports that each package's `test` script writes to .ci-out/<dir>.json
// (and scripts/other-nodes.mjs to .ci-out/<dir>-node<major>.json, one per other Node version)
// and prints one line, "N passed, M failed[, K skipped]". Exits non-zero when a test or a test
// file failed, when a workspace package whose test script names a report left none (its tests
// never ran), or when no test ran at all: a green run must have proved something.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = join(root, ".ci-out");

// Every workspace package whose test script names a JSON report must leave one behind.
function workspaceDirs() {
  const yaml = readFileSync(join(root, "pnpm-workspace.yaml"), "utf8");
  const globs = [];
  for (const line of yaml.slice(yaml.indexOf("packages:")).split("\n").slice(1)) {
    const item = /^\s+-\s+["']?([^"'\s]+)["']?\s*$/.exec(line);
    if (!item) break;
    globs.push(item[1]);
  }
  return globs.flatMap((glob) => {
    if (!glob.endsWith("/*")) return [glob];
    const parent = glob.slice(0, -2);
    if (!existsSync(join(root, parent))) return [];
    return readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${parent}/${entry.name}`);
  });
}

const expected = new Map(); // report file name -> package dir
for (const dir of workspaceDirs()) {
  const manifest = join(root, dir, "package.json");
  if (!existsSync(manifest)) continue;
  const script = JSON.parse(readFileSync(manifest, "utf8")).scripts?.test ?? "";
  const target = /--outputFile\.json[= ](\S+)/.exec(script);
  if (target) expected.set(relative(outDir, resolve(root, dir, target[1])), dir);
}

const reports = existsSync(outDir) ? readdirSync(outDir).filter((file) => file.endsWith(".json")) : [];

let passed = 0;
let failed = 0;
let skipped = 0;
const problems = [];

for (const file of reports.sort()) {
  const name = file.replace(/\.json$/, "");
  let report;
  try {
    report = JSON.parse(readFileSync(join(outDir, file), "utf8"));
  } catch (error) {
    problems.push(`${name}: unreadable report (${error.message})`);
    continue;
  }
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  // A file that fails to import or throws in a hook has no failed test, only a failed suite.
  for (const result of report.testResults ?? []) {
    if (result.status === "failed" && (result.assertionResults ?? []).every((a) => a.status !== "failed")) {
      const where = result.name ? result.name.replace(`${root}/`, "") : name;
      const why = (result.message ?? "").split("\n")[0];
      problems.push(`${where}: test file failed outside any test${why ? ` (${why})` : ""}`);
    }
  }
  console.log(
    `  ${name}: ${report.numPassedTests ?? 0} passed, ${report.numFailedTests ?? 0} failed, ` +
      `${(report.numPendingTests ?? 0) + (report.numTodoTests ?? 0)} skipped`,
  );
}

for (const [report, dir] of expected) {
  if (!reports.includes(report)) problems.push(`${dir}: no test report (its tests did not run)`);
}
if (passed + failed === 0) problems.push("no test ran");

for (const problem of problems) console.log(`  problem: ${problem}`);
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || problems.length > 0 ? 1 : 0);
