// The pinned pnpm, without a global install: the version named in the root package.json's
// "packageManager" field, installed by `npm ci` into .tools/pnpm (its package-lock.json pins the
// tarballs' integrity) the first time it is needed. A pnpm of that version that already runs us
// (`pnpm test` from a developer's PATH) is used as it is.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** `pnpm@12.4.2` in package.json -> "12.4.2". */
export function pinnedPnpmVersion(root) {
  const field = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).packageManager ?? "";
  const match = /^pnpm@(\d+\.\d+\.\d+)$/.exec(field);
  if (!match) throw new Error(`package.json "packageManager" must be pnpm@X.Y.Z, found ${JSON.stringify(field)}`);
  return match[1];
}

/**
 * Returns the folder holding a `pnpm` executable of the pinned version, installing it into
 * .tools/pnpm first when needed. `log` receives one line per action taken.
 */
export function ensurePnpm(root, log) {
  const version = pinnedPnpmVersion(root);
  const running = runningPnpm(version);
  if (running) return running;

  const toolDir = join(root, ".tools", "pnpm");
  const manifest = JSON.parse(readFileSync(join(toolDir, "package.json"), "utf8"));
  if (manifest.dependencies?.pnpm !== version) {
    throw new Error(`.tools/pnpm/package.json pins pnpm ${manifest.dependencies?.pnpm}, package.json asks for ${version}: make them agree`);
  }
  const binDir = join(toolDir, "node_modules", ".bin");
  const bin = join(binDir, process.platform === "win32" ? "pnpm.cmd" : "pnpm");
  if (installedVersion(toolDir) !== version || !existsSync(bin)) {
    log(`installing pnpm ${version} into .tools/pnpm (npm ci)`);
    const npm = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], {
      cwd: toolDir,
      stdio: ["ignore", "inherit", "inherit"],
      shell: process.platform === "win32",
    });
    if (npm.status !== 0) throw new Error(`npm ci in .tools/pnpm failed (exit ${npm.status ?? npm.signal})`);
    if (installedVersion(toolDir) !== version) throw new Error(`npm ci in .tools/pnpm did not install pnpm ${version}`);
  }
  return binDir;
}

function installedVersion(toolDir) {
  try {
    return JSON.parse(readFileSync(join(toolDir, "node_modules", "pnpm", "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

/** The folder of the pnpm that started this script, when it is the pinned version. */
function runningPnpm(version) {
  const agent = process.env.npm_config_user_agent ?? "";
  const execPath = process.env.npm_execpath;
  if (!agent.startsWith(`pnpm/${version} `) || !execPath || !/^pnpm(\.exe)?$/.test(basename(execPath))) return undefined;
  if (!existsSync(execPath)) return undefined;
  return dirname(execPath);
}
