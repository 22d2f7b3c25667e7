import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, expect, test } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "tempest-bench-quick-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Report {
  quick: boolean;
  results: { id: string; groups: { rows: { name: string; value: number }[]; checks: { measured: number }[] }[] }[];
}

/**
 * The benchmarks still run: `pnpm bench --quick` end to end, every section producing numbers. No
 * time is asserted — the quick sizes say nothing about speed.
 */
test("pnpm bench --quick runs every section and each produces numbers", async () => {
  const out = join(dir, "quick.json");
  const { stdout } = await run(join(root, "node_modules/.bin/tsx"), ["src/run.ts", "--quick", `--json=${out}`], {
    cwd: root,
    maxBuffer: 16 << 20,
    timeout: 540_000,
  });
  const report = JSON.parse(readFileSync(out, "utf8")) as Report;
  expect(report.quick).toBe(true);
  expect(report.results.map((r) => r.id).sort()).toEqual(
    [
      "build-compile",
      "claim-priority",
      "claim-scaling",
      "cycle-postgres",
      "fairness-postgres",
      "drain-mysql",
      "drain-postgres",
      "drain-sqlite",
      "generate-scale",
      "latency-postgres",
      "memory",
      "migration-locks",
      "query-join",
      "relations",
      "retention-purge",
      "sqlite-crud",
    ].sort(),
  );
  expect(stdout).toContain("target:");
  for (const section of report.results) {
    expect(section.groups.length, section.id).toBeGreaterThan(0);
    for (const group of section.groups) {
      expect(group.rows.length, section.id).toBeGreaterThan(0);
      for (const row of group.rows) expect(Number.isFinite(row.value) && row.value > 0, `${section.id}: ${row.name}`).toBe(true);
      for (const c of group.checks) expect(Number.isFinite(c.measured), section.id).toBe(true);
    }
  }
});
