#!/usr/bin/env node
// Sums the vitest JSON reports that each package's `test` script writes to .ci-out/<dir>.json
// and prints one line, "N passed, M failed[, K skipped]". Exits non-zero when a test or a test
// file failed, when a package under packages/ left no report (its tests never ran), or when no
// test ran at all: a green run must have proved something.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = join(root, ".ci-out");

const expected = readdirSync(join(root, "packages"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .filter((name) => {
    const manifest = join(root, "packages", name, "package.json");
    return existsSync(manifest) && Boolean(JSON.parse(readFileSync(manifest, "utf8")).scripts?.test);
  });

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

for (const name of expected) {
  if (!reports.includes(`${name}.json`)) problems.push(`packages/${name}: no test report (its tests did not run)`);
}
if (passed + failed === 0) problems.push("no test ran");

for (const problem of problems) console.log(`  problem: ${problem}`);
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || problems.length > 0 ? 1 : 0);
