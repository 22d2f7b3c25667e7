import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PublicPackage, packAll, publicPackages, repo } from "./tarballs.js";

const coreVersion = JSON.parse(readFileSync(join(repo, publicPackages["tempest-db-js"], "package.json"), "utf8")).version;

// attw's bin, resolved from its package.json (the package exports no JavaScript entry for it).
const attwManifest = createRequire(import.meta.url).resolve("@arethetypeswrong/cli/package.json");
const attwBin = join(dirname(attwManifest), JSON.parse(readFileSync(attwManifest, "utf8")).bin.attw);

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** attw's CLI on one tarball; the five run side by side (each one loads TypeScript). */
function attw(tarball: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [attwBin, tarball, "--profile", "esm-only", "--format", "table"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

let packed: ReturnType<typeof packAll>;
const attwRuns = new Map<string, Run>();
beforeAll(async () => {
  packed = packAll();
  const runs = await Promise.all([...packed.tarballs].map(async ([name, file]) => [name, await attw(file)] as const));
  for (const [name, run] of runs) attwRuns.set(name, run);
});
afterAll(() => {
  if (packed) rmSync(packed.dir, { recursive: true, force: true });
});

it("the pack script packs exactly the public packages", () => {
  expect([...packed.tarballs.keys()].sort()).toEqual(Object.keys(publicPackages).sort());
});

describe.each(Object.keys(publicPackages) as PublicPackage[])("the %s tarball", (name) => {
  it("passes publint with warnings counted as errors", async () => {
    const tarball = readFileSync(packed.tarballs.get(name)!);
    const { messages, pkg } = await publint({ pack: { tarball: new Uint8Array(tarball).buffer }, strict: true, level: "suggestion" });
    expect(pkg.name).toBe(name);
    // The packed manifest names real ranges: core as a caret peer of its current version, no workspace: left.
    expect(JSON.stringify(pkg)).not.toContain("workspace:");
    if (name !== "tempest-db-js") {
      expect(pkg.peerDependencies?.["tempest-db-js"]).toBe(`^${coreVersion}`);
      expect(pkg.dependencies?.["tempest-db-js"]).toBeUndefined();
    }
    expect(messages.map((message) => `${message.type}: ${formatMessage(message, pkg) ?? message.code}`)).toEqual([]);
  });

  it("passes arethetypeswrong under the esm-only profile", () => {
    const run = attwRuns.get(name)!;
    expect({ status: run.status, stderr: run.stderr }, run.stdout).toEqual({ status: 0, stderr: "" });
    expect(run.stdout).toContain(name);
  });
});
