import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../../..");
const json = (file: string) => JSON.parse(readFileSync(join(repo, file), "utf8"));

describe("the pinned pnpm", () => {
  it("is one version everywhere: packageManager, .tools/pnpm/package.json and its lockfile", () => {
    const pinned = /^pnpm@(\d+\.\d+\.\d+)$/.exec(json("package.json").packageManager)?.[1];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(json(".tools/pnpm/package.json").dependencies).toEqual({ pnpm: pinned });
    const lock = json(".tools/pnpm/package-lock.json").packages;
    expect(lock["node_modules/pnpm"].version).toBe(pinned);
    expect(lock["node_modules/pnpm"].integrity).toMatch(/^sha512-/);
    // The native binary comes as an optional dependency per platform; each is pinned by integrity.
    const natives = Object.entries(lock).filter(([path]) => path.startsWith("node_modules/@pnpm/exe."));
    expect(natives.map(([path]) => path)).toContain("node_modules/@pnpm/exe.linux-x64");
    for (const [path, entry] of natives as [string, { version: string; integrity: string }][]) {
      expect(entry.version, path).toBe(pinned);
      expect(entry.integrity, path).toMatch(/^sha512-/);
    }
  });
});
