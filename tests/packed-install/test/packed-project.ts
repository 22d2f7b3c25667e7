import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { nodeHeadersDir } from "../../../scripts/setup/node-headers.mjs";

const repo = resolve(import.meta.dirname, "../../..");

/** The public packages, by folder, with their npm names. */
export const publicPackages = {
  "tempest-db-js": "packages/core",
  "@tempest-db-js/dialect-postgres": "packages/dialect-postgres",
  "@tempest-db-js/dialect-mysql": "packages/dialect-mysql",
  "@tempest-db-js/dialect-sqlite": "packages/dialect-sqlite",
  "@tempest-db-js/queue-recipes": "packages/queue-recipes",
} as const;

/**
 * Packs every public package with `pnpm pack` (which rewrites workspace:* to real versions) and
 * installs the tarballs with npm into a fresh project outside the workspace.
 */
export function createPackedProject(): string {
  const dir = mkdtempSync(join(tmpdir(), "tempest-packed-"));
  const tarballs = join(dir, "tarballs");
  const dependencies: Record<string, string> = {};
  for (const [name, folder] of Object.entries(publicPackages)) {
    const before = new Set(safeList(tarballs));
    execFileSync("pnpm", ["pack", "--pack-destination", tarballs], { cwd: join(repo, folder), stdio: "pipe" });
    const made = safeList(tarballs).find((f) => !before.has(f));
    if (!made) throw new Error(`pnpm pack made no tarball for ${name}`);
    dependencies[name] = `file:tarballs/${made}`;
  }
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "packed-app", private: true, type: "module", dependencies, overrides: dependencies }, null, 2),
  );
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        noEmit: true,
        skipLibCheck: false,
        types: [],
      },
      include: ["*.ts"],
    }),
  );
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: dir,
    stdio: "pipe",
    // better-sqlite3 compiles from source when its prebuilt binary cannot be fetched: node-gyp then
    // takes this Node's own headers where the project's set-up finds them (scripts/setup).
    env: { ...process.env, ...headersEnv() },
    timeout: 540_000,
  });
  cpSync(join(import.meta.dirname, "fixtures"), dir, { recursive: true });
  return dir;
}

function headersEnv(): Record<string, string> {
  const dir = nodeHeadersDir();
  return dir ? { npm_config_nodedir: dir } : {};
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Runs a program in the project and parses the JSON line it prints last. */
export function runInProject(dir: string, file: string, env: Record<string, string> = {}): Record<string, unknown> {
  const out = execFileSync(process.execPath, [file], { cwd: dir, env: { ...process.env, ...env }, encoding: "utf8", timeout: 120_000 });
  const last = out.trim().split("\n").pop() ?? "";
  return JSON.parse(last) as Record<string, unknown>;
}

export function typecheckProject(dir: string): string {
  const tsc = join(repo, "node_modules/typescript/bin/tsc");
  try {
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
    return "";
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}
