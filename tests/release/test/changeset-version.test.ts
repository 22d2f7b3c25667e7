import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type PublicPackage, publicPackages, repo } from "./tarballs.js";

const changesetBin = join(repo, "node_modules/@changesets/cli/bin.js");
const dialectsAndRecipes = Object.keys(publicPackages).filter((name) => name !== "tempest-db-js") as PublicPackage[];

let copy: string | undefined;
afterEach(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
  copy = undefined;
});

/**
 * A copy of the workspace's manifests and changesets config with every public package at
 * `version` and one sample changeset, then `changeset version` run in it. Returns the versions
 * and the tempest-db-js peer ranges it left behind.
 */
function versionAfter(version: string, sample: Partial<Record<PublicPackage, "patch" | "minor">>, config: (json: any) => void = () => {}) {
  copy = mkdtempSync(join(tmpdir(), "tempest-changeset-"));
  for (const file of ["package.json", "pnpm-workspace.yaml"]) cpSync(join(repo, file), join(copy, file));
  mkdirSync(join(copy, ".changeset"));
  const json = JSON.parse(readFileSync(join(repo, ".changeset/config.json"), "utf8"));
  config(json);
  writeFileSync(join(copy, ".changeset/config.json"), JSON.stringify(json));
  for (const folder of Object.values(publicPackages)) {
    const manifest = JSON.parse(readFileSync(join(repo, folder, "package.json"), "utf8"));
    mkdirSync(join(copy, folder), { recursive: true });
    writeFileSync(join(copy, folder, "package.json"), JSON.stringify({ ...manifest, version }, null, 2));
  }
  const front = Object.entries(sample).map(([name, bump]) => `"${name}": ${bump}`);
  writeFileSync(join(copy, ".changeset/sample.md"), `---\n${front.join("\n")}\n---\n\nA sample change.\n`);
  execFileSync(process.execPath, [changesetBin, "version"], { cwd: copy, stdio: "pipe" });
  const after = new Map<PublicPackage, { version: string; peer: string | undefined }>();
  for (const [name, folder] of Object.entries(publicPackages) as [PublicPackage, string][]) {
    const manifest = JSON.parse(readFileSync(join(copy, folder, "package.json"), "utf8"));
    after.set(name, { version: manifest.version, peer: manifest.peerDependencies?.["tempest-db-js"] });
  }
  return after;
}

describe("changeset version with tempest-db-js as a peer dependency", () => {
  it("the dialects and the recipes declare core as a peer (workspace:^), not as a dependency", () => {
    for (const name of dialectsAndRecipes) {
      const manifest = JSON.parse(readFileSync(join(repo, publicPackages[name], "package.json"), "utf8"));
      expect(manifest.peerDependencies?.["tempest-db-js"], name).toBe("workspace:^");
      expect(manifest.dependencies?.["tempest-db-js"], name).toBeUndefined();
      expect(manifest.devDependencies?.["tempest-db-js"], name).toBe("workspace:*");
    }
  });

  it("on 0.x, a core patch bumps core only: no dialect or recipe release, let alone 1.0.0", () => {
    const after = versionAfter("0.1.0", { "tempest-db-js": "patch" });
    expect(after.get("tempest-db-js")?.version).toBe("0.1.1");
    for (const name of dialectsAndRecipes) expect(after.get(name), name).toEqual({ version: "0.1.0", peer: "workspace:^" });
  });

  it("a dialect patch releases that dialect only", () => {
    const after = versionAfter("0.1.0", { "@tempest-db-js/dialect-sqlite": "patch" });
    expect([...after].map(([name, { version }]) => `${name}@${version}`)).toEqual([
      "tempest-db-js@0.1.0",
      "@tempest-db-js/dialect-postgres@0.1.0",
      "@tempest-db-js/dialect-mysql@0.1.0",
      "@tempest-db-js/dialect-sqlite@0.1.1",
      "@tempest-db-js/queue-recipes@0.1.0",
      "@tempest-db-js/migrate@0.1.0",
      "@tempest-db-js/queue-console@0.1.0",
    ]);
  });

  it("a core minor that stays inside the peer range leaves the peer dependents alone (onlyUpdatePeerDependentsWhenOutOfRange)", () => {
    const after = versionAfter("1.0.0", { "tempest-db-js": "minor" });
    expect(after.get("tempest-db-js")?.version).toBe("1.1.0");
    for (const name of dialectsAndRecipes) expect(after.get(name)?.version, name).toBe("1.0.0");
    // Without the option, changesets would release every peer dependent as a major.
    const without = versionAfter("1.0.0", { "tempest-db-js": "minor" }, (json) => {
      delete json.___experimentalUnsafeOptions_WILL_CHANGE_IN_PATCH;
    });
    for (const name of dialectsAndRecipes) expect(without.get(name)?.version, name).toBe("2.0.0");
  });
});
