// Preloaded (NODE_OPTIONS=--require) into every process of a test run on another Node version by
// scripts/other-nodes.mjs. The workspace's better-sqlite3 was compiled for the Node that ran the
// install; on any other ABI its addon cannot load. This swaps in the build of the same better-sqlite3
// version for the running ABI that other-nodes.mjs compiled into TEMPEST_NATIVE_CACHE. Only addons
// under TEMPEST_WORKSPACE_MODULES are swapped: a project the tests install elsewhere (the packed
// install) keeps the addon its own npm install compiled. With no matching build, nothing changes and
// Node's own ABI error says what is wrong.
"use strict";
const { existsSync, readFileSync, realpathSync } = require("node:fs");
const { basename, dirname, join, sep } = require("node:path");

const cache = process.env.TEMPEST_NATIVE_CACHE;
const modules = process.env.TEMPEST_WORKSPACE_MODULES;
const dlopen = process.dlopen;

process.dlopen = function dlopenForThisAbi(module, filename, ...rest) {
  return dlopen.call(this, module, replacement(filename) ?? filename, ...rest);
};

function replacement(filename) {
  if (!cache || !modules || basename(filename) !== "better_sqlite3.node") return undefined;
  let real;
  try {
    real = realpathSync(filename);
  } catch {
    return undefined;
  }
  if (!real.startsWith(modules + sep)) return undefined;
  // <package>/build/Release/better_sqlite3.node
  const manifest = join(dirname(dirname(dirname(real))), "package.json");
  let version;
  try {
    version = JSON.parse(readFileSync(manifest, "utf8")).version;
  } catch {
    return undefined;
  }
  // The same name betterSqlite3Build() in other-nodes.mjs gives it.
  const build = join(
    cache,
    `better-sqlite3-${version}-node-abi${process.versions.modules}-${process.platform}-${process.arch}`,
    "better_sqlite3.node",
  );
  return existsSync(build) ? build : undefined;
}
