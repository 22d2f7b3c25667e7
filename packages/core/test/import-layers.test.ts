import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { type RuntimeImport, runtimeImports } from "./support/runtime-imports.js";

const src = join(import.meta.dirname, "..", "src");

/**
 * Core's layers, lowest first: a runtime import may point at its own layer or a lower one, never up,
 * so that each layer can be read, tested and changed knowing only those beneath it. Type-only imports
 * are free (they vanish from dist/). A new folder or top-level file must be placed here first.
 */
const layers: readonly (readonly string[])[] = [
  ["errors.ts"],
  ["schema", "codec", "types"],
  ["ast"],
  ["expression", "builder"],
  ["compiler"],
  ["dialect"],
  ["engine", "prepared"],
  ["testing"],
  ["index.ts"],
];

/**
 * The upward imports that were there when this check came in (issue 30, 15 of them), to be removed by moving
 * code, not added to: an entry that no longer exists fails the check too, so the list only shrinks.
 */
const knownUpward: readonly string[] = [
  "ast/walk-tree.ts -> expression/expression.ts",
  "builder/compound-builder.ts -> compiler/compiled-query.ts",
  "builder/cte.ts -> compiler/compiled-query.ts",
  "builder/resolve-rows.ts -> prepared/placeholder.ts",
  "builder/resolve-set.ts -> prepared/placeholder.ts",
  "builder/resolve-value.ts -> prepared/placeholder.ts",
  "builder/select-parts.ts -> compiler/compiled-query.ts",
  "expression/sql.ts -> compiler/check-text.ts",
  "schema/column.ts -> expression/expression.ts",
  "schema/models-snapshot.ts -> engine/engine.ts",
  "schema/require-introspector.ts -> dialect/introspector.ts",
  "schema/source-meta.ts -> builder/result-columns.ts",
  "schema/table-meta.ts -> builder/resolve-where.ts",
  "schema/table-meta.ts -> compiler/check-text.ts",
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

  test("no runtime import points up a layer, beyond the known ones", () => {
    const upward = imports.filter(({ from, to }) => layerOf(to) > layerOf(from)).map(label);
    const added = [...new Set(upward)].filter((edge) => !knownUpward.includes(edge)).sort();
    expect(added, "move the code down to a layer both can import, or import only types (`import type`)").toEqual([]);
  });

  test("each known upward import is still there and still upward (remove the fixed ones from the list)", () => {
    const upward = new Set(imports.filter(({ from, to }) => layerOf(to) > layerOf(from)).map(label));
    expect(knownUpward.filter((edge) => !upward.has(edge))).toEqual([]);
  });
});
