#!/usr/bin/env node
// The release, in one command (`npm run release`, see docs/releasing.md):
//
//   node scripts/release.mjs [--dry-run] [--no-checks]
//
// 1. refuses while changesets are pending (apply them first: `pnpm version-packages`, review,
//    commit) or, for a real release, while the work tree has uncommitted changes;
// 2. the checks CI runs: npm run build, typecheck, lint, then npm test with CI=true (every test
//    server must be reachable);
// 3. `changeset publish` (each public package not yet on the registry at its version, through
//    pnpm publish, which rewrites workspace: ranges), or with --dry-run
//    `pnpm -r publish --dry-run --force`, which packs the same tarballs and uploads nothing
//    (--force: every public package, whether or not its version is on the registry already, so
//    the dry run needs no registry).
//
// --no-checks skips step 2; the release tests use it, since they run inside `npm test` already.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensurePnpm } from "./setup/pnpm.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const log = (line) => console.error(`[release] ${line}`);

const flags = new Set(process.argv.slice(2));
for (const flag of flags) {
  if (flag !== "--dry-run" && flag !== "--no-checks")
    fail(`unknown flag ${flag} (usage: node scripts/release.mjs [--dry-run] [--no-checks])`);
}
const dryRun = flags.has("--dry-run");

const env = {
  ...process.env,
  PATH: [ensurePnpm(root, log), join(root, "node_modules", ".bin"), process.env.PATH].join(delimiter),
};

const pending = readdirSync(join(root, ".changeset")).filter((file) => file.endsWith(".md") && file !== "README.md");
if (pending.length > 0) {
  const message = `${pending.length} changeset(s) not applied yet (${pending.join(", ")}): run pnpm version-packages, review and commit first`;
  if (!dryRun) fail(message);
  log(`${message} (dry run: going on with the current versions)`);
}
if (!dryRun) {
  const status = spawnSync("git", ["status", "--porcelain"], { cwd: root, encoding: "utf8" });
  if (status.status !== 0) fail("git status failed: a release is made from a git checkout");
  if (status.stdout.trim()) fail(`the work tree has uncommitted changes:\n${status.stdout}`);
}

if (!flags.has("--no-checks")) {
  for (const script of ["build", "typecheck", "lint"]) run("npm", ["run", script]);
  run("npm", ["test"], { CI: "true" });
}

if (dryRun) {
  const summary = join(root, "pnpm-publish-summary.json");
  run("pnpm", ["-r", "publish", "--dry-run", "--force", "--no-git-checks", "--report-summary"]);
  const { publishedPackages } = JSON.parse(readFileSync(summary, "utf8"));
  rmSync(summary, { force: true });
  for (const item of publishedPackages) log(`would publish ${item.id}: ${item.files.length} files, ${item.size} bytes packed`);
  console.log(
    JSON.stringify({ dryRun: true, packages: publishedPackages.map(({ id, files }) => ({ id, files: files.map((f) => f.path) })) }),
  );
} else {
  run("changeset", ["publish"]);
}

function run(command, args, extraEnv = {}) {
  log(`${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, {
    cwd: root,
    env: { ...env, ...extraEnv },
    stdio: ["ignore", dryRun ? 2 : "inherit", "inherit"],
    shell: process.platform === "win32",
  });
  if (result.status !== 0) fail(`${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal})`);
}

function fail(message) {
  log(message);
  process.exit(1);
}
