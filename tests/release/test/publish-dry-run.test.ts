import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { publicPackages, repo } from "./tarballs.js";

interface DryRun {
  dryRun: true;
  packages: { id: string; files: string[] }[];
}

let result: DryRun;
beforeAll(() => {
  // The release script's publish step as a dry run; its build and test steps are this test run.
  const out = execFileSync(process.execPath, [join(repo, "scripts/release.mjs"), "--dry-run", "--no-checks"], {
    cwd: repo,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  result = JSON.parse(out.trim().split("\n").pop() ?? "");
});

const version = (folder: string) => JSON.parse(readFileSync(join(repo, folder, "package.json"), "utf8")).version as string;

describe("npm run release -- --dry-run", () => {
  it("would publish exactly the public packages, at their current versions", () => {
    const expected = Object.entries(publicPackages).map(([name, folder]) => `${name}@${version(folder)}`);
    expect(result.packages.map((item) => item.id).sort()).toEqual(expected.sort());
  });

  it("packs the built entry points, types, manifest and README, and no tests or build state", () => {
    for (const { id, files } of result.packages) {
      expect(files, id).toEqual(expect.arrayContaining(["package.json", "README.md", "dist/index.js", "dist/index.d.ts"]));
      expect(
        files.filter((file) => /(^|\/)test\/|\.test\.|tsbuildinfo|^node_modules\//.test(file)),
        id,
      ).toEqual([]);
    }
  });
});
