import fc from "fast-check";
import type { ModelClass } from "tempest-db-js";
import { introspect, modelsSnapshot } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "./support/databases.js";
import { closeTargets, openTargets } from "./support/databases.js";
import { buildModels, schemaArb } from "./support/schema-arbitraries.js";

// Random models through every real database: createAll, then introspect must deep-equal
// modelsSnapshot. CI runs a quick sample; SCHEMA_RUNS=300 (SCHEMA_SEED to replay) runs more by hand.
const RUNS = Number(process.env.SCHEMA_RUNS ?? (process.env.CI ? 12 : 25));
const SEED = process.env.SCHEMA_SEED === undefined ? undefined : Number(process.env.SCHEMA_SEED);

let targets: Target[] = [];
let cases = 0;

beforeAll(async () => {
  // One PostgreSQL database is enough here; the ICU one changes text order, not the catalog.
  targets = (await openTargets()).filter((t) => t.label !== "PostgreSQL (ICU en database)");
});

afterAll(async () => {
  await closeTargets(targets);
});

describe("schema round trip", () => {
  it("introspect after createAll deep-equals modelsSnapshot, for random models", async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(schemaArb, async (specs) => {
        const prefix = `schema_rt_${++cases}`;
        const models = buildModels(specs, prefix);
        const problems: string[] = [];
        for (const target of targets) {
          await target.prepare();
          let expected: ReturnType<typeof modelsSnapshot>;
          try {
            expected = modelsSnapshot(target.engine, models);
          } catch (error) {
            // A model this dialect refuses at compile time (e.g. MySQL's partial unique index) is
            // refused by createAll the same way: nothing to compare.
            await expect(target.engine.createAll(models)).rejects.toThrow((error as Error).message);
            continue;
          }
          await target.engine.createAll(models);
          try {
            const live = await introspect(target.engine, {
              tables: models.map((m) => (m as ModelClass & { tablename: string }).tablename),
            });
            try {
              expect(live).toEqual(expected);
              checked++;
            } catch (error) {
              problems.push(`${target.label}: ${differences(live, expected).join("\n") || (error as Error).message}`);
            }
          } finally {
            await target.engine.dropAll(models);
          }
        }
        if (problems.length > 0) throw new Error(problems.join("\n\n"));
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true },
    );
    expect(checked).toBeGreaterThan(0);
  });
});

/** Where two JSON values differ, path by path (the assertion message alone elides the tables). */
function differences(live: unknown, expected: unknown, path = "$"): string[] {
  if (JSON.stringify(live) === JSON.stringify(expected)) return [];
  if (typeof live !== "object" || typeof expected !== "object" || live === null || expected === null) {
    return [`${path}: introspected ${JSON.stringify(live)}, models ${JSON.stringify(expected)}`];
  }
  const keys = new Set([...Object.keys(live), ...Object.keys(expected)]);
  return [...keys].flatMap((key) =>
    differences((live as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key], `${path}.${key}`),
  );
}
