// Runs the demo as a user would (node src/main.mjs, built packages) on each database, small.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("../src/main.mjs", import.meta.url));
const databases = [
  ["an SQLite file (no DATABASE_URL)", undefined],
  ["PostgreSQL", process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test"],
  ["MySQL", process.env.TEMPEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test"],
];

describe.each(databases)("pnpm demo on %s", (_name, url) => {
  it("sends every inserted message, deduplicates repeats and counts exactly one delivery per sent message", () => {
    const { NODE_OPTIONS: _ignored, DATABASE_URL: _unset, ...env } = process.env;
    const run = spawnSync(process.execPath, [main, "--messages", "600", "--workers", "3", "--failure-rate", "0.3"], {
      env: url ? { ...env, DATABASE_URL: url } : env,
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const value = (label) => Number(new RegExp(`\\| ${label}\\s*\\|\\s*([\\d.]+) \\|`).exec(run.stdout)?.[1]);
    expect(value("enqueued \\(calls\\)")).toBe(600);
    expect(value("inserted") + value("deduplicated")).toBe(600);
    expect(value("deduplicated")).toBeGreaterThan(0);
    expect(value("sent") + value("failed \\(gave up\\)")).toBe(value("inserted"));
    expect(value("retried \\(failed attempts\\)")).toBeGreaterThan(0);
    expect(value("deliveries received")).toBe(value("sent"));
    expect(run.stdout).toContain("| deliveries per sent message | 1.000 |");
    // Not a terminal here: progress comes as plain lines, without cursor control.
    expect(run.stdout).not.toContain("\x1b[");
    expect(run.stdout).toMatch(/100% {2}sent/);
  });
});
