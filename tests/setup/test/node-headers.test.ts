import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { headersVersion, nodeHeadersDir } from "../../../scripts/setup/node-headers.mjs";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A Node installation: <prefix>/bin/node and, optionally, <prefix>/include/node with headers of `version`. */
function installation(version: string | undefined, { gypi = true } = {}): { prefix: string; execPath: string } {
  const prefix = mkdtempSync(join(tmpdir(), "tempest-node-"));
  made.push(prefix);
  mkdirSync(join(prefix, "bin"));
  if (version) {
    const [major, minor, patch] = version.split(".");
    mkdirSync(join(prefix, "include", "node"), { recursive: true });
    writeFileSync(
      join(prefix, "include", "node", "node_version.h"),
      `#ifndef SRC_NODE_VERSION_H_\n#define NODE_MAJOR_VERSION ${major}\n#define NODE_MINOR_VERSION ${minor}\n#define NODE_PATCH_VERSION ${patch}\n#endif\n`,
    );
    if (gypi) writeFileSync(join(prefix, "include", "node", "common.gypi"), "{}\n");
  }
  return { prefix, execPath: join(prefix, "bin", "node") };
}

/** An empty home: node-gyp has downloaded nothing there. */
function emptyHome(): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), "tempest-home-"));
  made.push(home);
  return { HOME: home, XDG_CACHE_HOME: join(home, ".cache") };
}

describe("nodeHeadersDir: where node-gyp finds Node's headers", () => {
  it("is the installation prefix when its headers are of exactly the running version", () => {
    const { prefix, execPath } = installation("20.20.2");
    expect(nodeHeadersDir(emptyHome(), execPath, "20.20.2")).toBe(prefix);
  });

  it("leaves node-gyp alone when the headers are of another version, incomplete or absent", () => {
    expect(nodeHeadersDir(emptyHome(), installation("20.19.0").execPath, "20.20.2")).toBeUndefined();
    expect(nodeHeadersDir(emptyHome(), installation("20.20.2", { gypi: false }).execPath, "20.20.2")).toBeUndefined();
    expect(nodeHeadersDir(emptyHome(), installation(undefined).execPath, "20.20.2")).toBeUndefined();
  });

  it("leaves node-gyp alone when it has the headers cached already or npm_config_nodedir is set", () => {
    const { execPath } = installation("20.20.2");
    const env = emptyHome();
    mkdirSync(join(env.XDG_CACHE_HOME as string, "node-gyp", "20.20.2"), { recursive: true });
    writeFileSync(join(env.XDG_CACHE_HOME as string, "node-gyp", "20.20.2", "installVersion"), "11\n");
    expect(nodeHeadersDir(env, execPath, "20.20.2")).toBeUndefined();
    expect(nodeHeadersDir({ ...emptyHome(), npm_config_nodedir: "/somewhere" }, execPath, "20.20.2")).toBeUndefined();
  });

  it("reads the version from node_version.h's defines", () => {
    const { prefix } = installation("22.1.13");
    expect(headersVersion(join(prefix, "include", "node", "node_version.h"))).toBe("22.1.13");
    expect(headersVersion(join(prefix, "missing.h"))).toBeUndefined();
  });
});
