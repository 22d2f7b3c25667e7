import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { type RuntimeImport, runtimeImports } from "./support/runtime-imports.js";

const src = join(import.meta.dirname, "..", "src");

/**
 * Core's layers, lowest first: a runtime import may point at its own layer or a lower one, never up,
 * so that each layer can be read, tested and changed knowing only those beneath it. Type-only imports
 * are free (they vanish from dist/). A new folder or top-level file must be placed here first.
 *
 * The AST sits under the schema: its nodes are plain data that import nothing but errors at run
 * time, while a model's metadata holds AST (a column default is an expression node, an index
 * predicate a condition), so schema builds on ast and not the other way round.
 */
const layers: readonly (readonly string[])[] = [
  ["errors.ts"],
  ["ast"],
  ["schema", "codec", "types"],
  ["expression", "builder"],
  ["compiler"],
  ["dialect"],
  ["engine"],
  ["testing"],
  ["index.ts"],
];

function layerOf(file: string): number {
  const top = file.split("/")[0]!;
  return layers.findIndex((members) => members.includes(top));
}

const label = ({ from, to }: RuntimeImport) => `${from} -> ${to}`;
const imports = runtimeImports(src);

describe("core's runtime imports point down its layers", () => {
  test("every folder and top-level file of src/ has a layer", () => {
    const unplaced = readdirSync(src).filter((entry) => layerOf(entry) === -1);
    expect(unplaced, "add each to `layers` in this file, at the height of what it imports").toEqual([]);
  });

  test("the check sees core's imports (it is not vacuous)", () => {
    expect(imports.length).toBeGreaterThan(200);
    expect(imports.map(label)).toContain("index.ts -> engine/engine.ts");
  });

  test("no runtime import points up a layer", () => {
    // Issue 30 started this check with 14 upward imports and one cycle (schema/table-meta.ts and
    // builder/resolve-set.ts); code moved until none was left, and none may come back.
    const upward = [...new Set(imports.filter(({ from, to }) => layerOf(to) > layerOf(from)).map(label))].sort();
    expect(upward, "move the code down to a layer both can import, or import only types (`import type`)").toEqual([]);
  });
});
