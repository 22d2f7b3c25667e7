// Where node-gyp finds Node's C headers when a native dependency (better-sqlite3) has to be
// compiled because no prebuilt binary could be fetched. node-gyp's own way is to download the
// headers of the running Node from nodejs.org into its cache; on a machine that cannot reach
// nodejs.org that fails. Many Node installations carry the headers of the very same version next
// to the binary (<prefix>/include/node: Debian's /usr/include/node, the official tarballs): when
// node-gyp's cache has no headers for this version and such headers match process.version
// exactly, we point node-gyp at them. Anywhere else nothing changes.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/** The value for npm_config_nodedir, or undefined to leave node-gyp alone. */
export function nodeHeadersDir(env = process.env, execPath = process.execPath, version = process.versions.node) {
  if (env.npm_config_nodedir) return undefined; // the caller chose already
  if (gypCacheHas(version, env)) return undefined;
  const prefix = dirname(dirname(execPath));
  const include = join(prefix, "include", "node");
  if (!existsSync(join(include, "common.gypi"))) return undefined;
  return headersVersion(join(include, "node_version.h")) === version ? prefix : undefined;
}

/** "20.20.2" from node_version.h's NODE_MAJOR/MINOR/PATCH_VERSION defines. */
export function headersVersion(file) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const part = (name) => new RegExp(`#define\\s+NODE_${name}_VERSION\\s+(\\d+)`).exec(text)?.[1];
  const [major, minor, patch] = [part("MAJOR"), part("MINOR"), part("PATCH")];
  return major && minor && patch ? `${major}.${minor}.${patch}` : undefined;
}

/** node-gyp keeps downloaded headers in <devdir>/<version>; a complete download has installVersion. */
function gypCacheHas(version, env) {
  const home = env.HOME || homedir();
  const dirs = [env.npm_config_devdir];
  if (process.platform === "darwin") dirs.push(join(home, "Library", "Caches", "node-gyp"));
  else if (process.platform === "win32") dirs.push(env.LOCALAPPDATA && join(env.LOCALAPPDATA, "node-gyp", "Cache"));
  else dirs.push(join(env.XDG_CACHE_HOME || join(home, ".cache"), "node-gyp"));
  return dirs.some((dir) => dir && existsSync(join(dir, version, "installVersion")));
}
