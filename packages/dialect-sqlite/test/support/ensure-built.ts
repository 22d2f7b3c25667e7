import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../../", import.meta.url));

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Child processes run plain Node on the built packages (Node 20 runs no TypeScript). `pnpm test`
 * builds them first through turbo; a bare `vitest run` gets them built here when dist is missing
 * or older than src.
 */
export function ensureBuilt(packages: readonly string[] = ["core", "dialect-sqlite"]): void {
  for (const name of packages) {
    const dir = join(root, "packages", name);
    const entry = join(dir, "dist", "index.js");
    if (existsSync(entry) && statSync(entry).mtimeMs >= newestSource(join(dir, "src"))) continue;
    execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", join(dir, "tsconfig.build.json")], { stdio: "inherit" });
  }
}
