#!/usr/bin/env node
// Packs every public package (packages/*, not private) with `pnpm pack`, as `pnpm publish` would:
// workspace: ranges become real version ranges. For using the packages before they are on npm
// (README: "Using the packages before they are published").
//
//   node scripts/pack-tarballs.mjs [--no-build] [destination]     (default destination: .tarballs)
//
// Prints one line per tarball: its npm name, a tab, its absolute path. Needs pnpm on the PATH;
// `npm run tarballs` runs it behind the project's set-up.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
const build = !args.includes("--no-build");
const destination = resolve(args.find((arg) => !arg.startsWith("--")) ?? join(root, ".tarballs"));

const packages = readdirSync(join(root, "packages"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => join(root, "packages", entry.name))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
  .filter(({ manifest }) => !manifest.private);

if (build) exec("turbo", ["run", "build", "--filter=./packages/*", "--output-logs=errors-only"], root, 2);
mkdirSync(destination, { recursive: true });
for (const { dir, manifest } of packages) {
  const tarball = join(destination, `${manifest.name.replace(/^@/, "").replace("/", "-")}-${manifest.version}.tgz`);
  rmSync(tarball, { force: true });
  exec("pnpm", ["pack", "--pack-destination", destination], dir, "ignore");
  if (!existsSync(tarball)) {
    console.error(`pnpm pack made no ${tarball} for ${manifest.name}`);
    process.exit(1);
  }
  console.log(`${manifest.name}\t${tarball}`);
}

function exec(command, commandArgs, cwd, stdout) {
  const env = { ...process.env, PATH: [join(root, "node_modules", ".bin"), process.env.PATH].join(delimiter) };
  const result = spawnSync(command, commandArgs, { cwd, env, stdio: ["ignore", stdout, "inherit"], shell: process.platform === "win32" });
  if (result.status !== 0) {
    console.error(`${command} ${commandArgs.join(" ")} failed in ${cwd} (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
}
