#!/usr/bin/env node
// Runs the packed-install, docs and queue-recipes tests on each other Node version the project pins
// (.tools/node/package.json: 22, 24, 26), after `npm test` ran the whole suite on this machine's Node:
//
//   node scripts/setup.mjs --databases -- node scripts/other-nodes.mjs [--node=22,24] [--only=tests/docs,...] [--full]
//   node scripts/setup.mjs -- node scripts/other-nodes.mjs --node=24 -- COMMAND ARGS...
//
// (`npm run test:nodes` is the first line; the second runs any command on one of the versions, set
// up the same way, e.g. `cd bench && node ../scripts/other-nodes.mjs --node=24 -- node_modules/.bin/tsx
// src/run.ts --only=sqlite-crud`.) Each version and its better-sqlite3 build are installed on the
// first run (setup/other-nodes.mjs), nothing is downloaded at run time but packages from the npm
// registry. Every test file runs with that version's `node` first on the PATH, so the processes the
// tests start run on it too, and writes its vitest JSON report to .ci-out/<package>-node<major>.json,
// where scripts/ci-summary.mjs counts it beside the others. Exits non-zero if any run failed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureBetterSqlite3, ensureBetterSqlite3Prebuild, ensureOtherNodes, nativeCacheDir } from "./setup/other-nodes.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const log = (line) => console.error(`[other-nodes] ${line}`);

/** The packages run on every version, with the name of their report. */
const suites = [
  { dir: "tests/packed-install", report: "packed-install", package: "@tempest-db-js/packed-install-tests" },
  { dir: "tests/docs", report: "docs", package: "@tempest-db-js/docs-tests" },
  // Only the default config: the PG 18 run tests the server, not the Node version.
  {
    dir: "packages/queue-recipes",
    report: "queue-recipes",
    package: "@tempest-db-js/queue-recipes",
    // Node 20 ran every file already (npm test). On the other versions, unless --full, the files that
    // touch what changes with Node, each on PostgreSQL, MariaDB and SQLite: worker processes forked
    // with the native addon preloaded, SIGKILL and SIGTERM (processes, shutdown), the work() and
    // drain() loops with LISTEN/NOTIFY, polling, timers and AbortSignal (work, drain, delivery-bounds),
    // and the time zones of Node's ICU (plan-ticks). What they leave out is SQL the database answers
    // the same whatever Node sends it.
    quick: [
      "test/processes.test.ts",
      "test/shutdown.test.ts",
      "test/work.test.ts",
      "test/drain.test.ts",
      "test/delivery-bounds.test.ts",
      "test/plan-ticks.test.ts",
    ],
  },
];

const argv = process.argv.slice(2);
const separator = argv.indexOf("--");
const options = parseArgs(separator === -1 ? argv : argv.slice(0, separator));
const command = separator === -1 ? [] : argv.slice(separator + 1);
try {
  const nodes = ensureOtherNodes(root, log).filter((n) => !options.node || options.node.includes(n.major));
  if (nodes.length === 0) throw new Error(`no pinned Node version matches --node=${options.node.join(",")}`);
  if (command.length > 0) {
    if (nodes.length !== 1) throw new Error("a command runs on one version: name it with --node=MAJOR");
    const run = spawnSync(command[0], command.slice(1), { env: nodeEnv(nodes[0]), stdio: "inherit" });
    if (run.error) throw run.error;
    process.exit(run.status ?? 1);
  }
  const chosen = suites.filter((s) => !options.only || options.only.includes(s.dir));
  const built = spawnSync("turbo", ["run", "build", ...chosen.map((s) => `--filter=${s.package}...`), "--output-logs=errors-only"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (built.status !== 0) throw new Error(`turbo run build failed (exit ${built.status ?? built.signal})`);

  const failed = [];
  mkdirSync(join(root, ".ci-out"), { recursive: true });
  for (const node of nodes) {
    const t0 = Date.now();
    const env = nodeEnv(node);
    log(`Node ${node.version}: better-sqlite3 ready (${seconds(t0)})`);
    for (const suite of chosen) {
      const t1 = Date.now();
      const report = join(root, ".ci-out", `${suite.report}-node${node.major}.json`);
      const files = options.full ? [] : quickFiles(suite);
      log(`Node ${node.version}: ${suite.dir}${files.length > 0 ? ` (quick: ${files.length} files; --full runs all)` : ""}`);
      const run = spawnSync(
        node.node,
        [
          join(root, "node_modules", "vitest", "vitest.mjs"),
          "run",
          ...files,
          "--reporter=default",
          "--reporter=json",
          `--outputFile.json=${report}`,
        ],
        { cwd: join(root, suite.dir), env, stdio: ["ignore", "inherit", "inherit"] },
      );
      const outcome = run.status === 0 ? "ok" : `FAILED (exit ${run.status ?? run.signal})`;
      log(`Node ${node.version}: ${suite.dir} ${outcome} (${seconds(t1)})`);
      if (run.status !== 0) failed.push(`${suite.dir} on Node ${node.version}`);
    }
  }
  for (const f of failed) log(`failed: ${f}`);
  process.exitCode = failed.length > 0 ? 1 : 0;
} catch (error) {
  log(error.message);
  process.exitCode = 1;
}

/** The environment a process on `node` needs: its `node` first on the PATH, better-sqlite3 built for it. */
function nodeEnv(node) {
  const { addon, version, abi } = ensureBetterSqlite3(root, node, log);
  const preload = join(root, "scripts", "setup", "native-addons.cjs");
  return {
    ...process.env,
    PATH: [join(node.dir, "bin"), process.env.PATH].join(delimiter),
    NODE_OPTIONS: [process.env.NODE_OPTIONS, `--require=${preload}`].filter(Boolean).join(" "),
    // The test helpers that fork workers without NODE_OPTIONS keep this one.
    TEMPEST_NATIVE_PRELOAD: preload,
    TEMPEST_NATIVE_CACHE: nativeCacheDir(),
    TEMPEST_WORKSPACE_MODULES: realpathSync(join(root, "node_modules")),
    // A fresh npm project (the packed install) unpacks the same build instead of compiling again.
    npm_config_better_sqlite3_local_prebuilds: ensureBetterSqlite3Prebuild(addon, version, abi),
  };
}

/** A suite's quick files, each checked to exist: a renamed file must not drop out of the run unseen. */
function quickFiles(suite) {
  for (const file of suite.quick ?? []) {
    if (!existsSync(join(root, suite.dir, file))) throw new Error(`${suite.dir}/${file}, in the quick list, does not exist`);
  }
  return suite.quick ?? [];
}

function seconds(since) {
  return `${Math.round((Date.now() - since) / 1000)}s`;
}

function parseArgs(args) {
  const result = {};
  for (const arg of args) {
    if (arg === "--full") {
      result.full = true;
      continue;
    }
    const match = /^--(node|only)=(.+)$/.exec(arg);
    if (!match) {
      log(`unknown argument ${arg} (usage: node scripts/other-nodes.mjs [--node=22,24] [--only=tests/docs,...] [--full])`);
      process.exit(2);
    }
    const values = match[2].split(",");
    result[match[1]] = match[1] === "node" ? values.map(Number) : values;
  }
  return result;
}
