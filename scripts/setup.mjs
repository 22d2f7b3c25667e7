#!/usr/bin/env node
// The project's own set-up, run in front of the root scripts so that `npm run demo` and `npm test`
// work on a fresh clone with nothing but Node and npm:
//
//   node scripts/setup.mjs [--databases] [-- command args...]
//
// 1. the pinned pnpm (package.json "packageManager"), installed into .tools/pnpm, never globally;
// 2. `pnpm install --frozen-lockfile`, pointing node-gyp at this Node's own headers when it would
//    otherwise have to download them (see setup/node-headers.mjs);
// 3. with --databases, the PostgreSQL and MySQL/MariaDB servers the tests use (setup/databases.mjs),
//    and Debian's chromium for the dashboard's browser tests (setup/chromium.mjs);
// 4. the command, with that pnpm and node_modules/.bin first on the PATH (turbo runs each
//    package's script through pnpm).
//
// Started by pnpm itself (`pnpm test` with pnpm on the PATH) step 2 is left to the developer, as
// with any pnpm project, unless nothing is installed yet. Everything already set up, the steps take
// well under a second.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureChromium } from "./setup/chromium.mjs";
import { ensureDatabases } from "./setup/databases.mjs";
import { nodeHeadersDir } from "./setup/node-headers.mjs";
import { ensurePnpm } from "./setup/pnpm.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const log = (line) => console.error(`[setup] ${line}`);

const args = process.argv.slice(2);
const separator = args.indexOf("--");
const flags = separator === -1 ? args : args.slice(0, separator);
const command = separator === -1 ? [] : args.slice(separator + 1);
for (const flag of flags) {
  if (flag !== "--databases") fail(`unknown flag ${flag} (usage: node scripts/setup.mjs [--databases] [-- command args...])`);
}

try {
  const pnpmDir = ensurePnpm(root, log);
  const env = {
    ...process.env,
    PATH: [pnpmDir, join(root, "node_modules", ".bin"), process.env.PATH].join(delimiter),
    // The version is pinned on purpose: no "update available" banner in front of every run.
    npm_config_update_notifier: "false",
  };
  if (!process.env.npm_config_user_agent?.startsWith("pnpm/") || !existsSync(join(root, "node_modules", ".modules.yaml"))) {
    install(env);
  }
  if (flags.includes("--databases")) {
    const down = await ensureDatabases(root, log);
    const browser = ensureChromium(log);
    if (browser) down.push(browser);
    for (const problem of down) log(`unreachable: ${problem}`);
    if (down.length > 0) {
      if (process.env.CI && process.env.CI !== "false")
        fail("CI=true: every test server must be reachable (and the test browser installed)");
      log("the tests that need these servers will fail");
    }
  }
  if (command.length > 0) run(command, env);
} catch (error) {
  fail(error.message);
}

function install(env) {
  const installEnv = { ...env };
  const headers = nodeHeadersDir();
  if (headers) {
    installEnv.npm_config_nodedir = headers;
    if (!existsSync(join(root, "node_modules"))) log(`native builds use the Node ${process.version} headers in ${headers}/include/node`);
  }
  const result = spawnSync("pnpm", ["install", "--frozen-lockfile"], {
    cwd: root,
    env: installEnv,
    stdio: ["ignore", "inherit", "inherit"],
    shell: process.platform === "win32",
  });
  if (result.status !== 0) throw new Error(`pnpm install --frozen-lockfile failed (exit ${result.status ?? result.signal})`);
}

function run([file, ...rest], env) {
  const child = spawn(file, rest, { cwd: root, env, stdio: "inherit", shell: process.platform === "win32" });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("error", (error) => fail(`${file}: ${error.message}`));
  child.on("exit", (code, signal) => {
    process.exitCode = code ?? 128 + (signal === "SIGINT" ? 2 : 15);
  });
}

function fail(message) {
  log(message);
  process.exit(1);
}
