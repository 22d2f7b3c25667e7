import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const repo = resolve(import.meta.dirname, "../../..");

/** The packages we publish, by npm name, with their folders. */
export const publicPackages = {
  "tempest-db-js": "packages/core",
  "@tempest-db-js/dialect-postgres": "packages/dialect-postgres",
  "@tempest-db-js/dialect-mysql": "packages/dialect-mysql",
  "@tempest-db-js/dialect-sqlite": "packages/dialect-sqlite",
  "@tempest-db-js/queue-recipes": "packages/queue-recipes",
  "@tempest-db-js/migrate": "packages/migrate",
  "@tempest-db-js/queue-console": "packages/queue-console",
} as const;

export type PublicPackage = keyof typeof publicPackages;

/**
 * Packs every public package into a fresh folder with the script the README gives for using the
 * packages before publication (scripts/pack-tarballs.mjs, `pnpm pack` as `pnpm publish` packs).
 * The packages are built already: turbo builds them before this package's tests.
 */
export function packAll(): { dir: string; tarballs: Map<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), "tempest-release-"));
  const out = execFileSync(process.execPath, [join(repo, "scripts/pack-tarballs.mjs"), "--no-build", dir], { encoding: "utf8" });
  const tarballs = new Map(
    out
      .trim()
      .split("\n")
      .map((line) => line.split("\t") as [string, string]),
  );
  return { dir, tarballs };
}
