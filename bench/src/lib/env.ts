import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";

export const PG_URL = process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
export const MYSQL_URL = process.env.TEMPEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";

const require = createRequire(import.meta.url);

/** The installed version of a dependency of this package. */
export function versionOf(pkg: string): string {
  try {
    return (JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), "utf8")) as { version: string }).version;
  } catch {
    // Packages whose exports map hides package.json: walk up from the entry point.
    const entry = require.resolve(pkg);
    const marker = `/node_modules/${pkg}/`;
    const root = entry.slice(0, entry.lastIndexOf(marker) + marker.length);
    return (JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { version: string }).version;
  }
}

function git(args: string[]): string {
  try {
    return execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown";
  }
}

export function machine(): Record<string, string> {
  const cpus = os.cpus();
  return {
    cpu: `${cpus[0]?.model ?? "unknown"} × ${cpus.length}`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    commit: `${git(["rev-parse", "--short", "HEAD"])}${git(["status", "--porcelain", "--", "../packages", "."]) ? " (+ uncommitted changes)" : ""}`,
  };
}

export const PEERS = ["pg", "mysql2", "better-sqlite3", "kysely", "knex", "drizzle-orm", "graphile-worker", "pg-boss", "mitata"];
