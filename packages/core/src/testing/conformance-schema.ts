import { describe, expect, it } from "vitest";
import type { Engine } from "../engine/engine.js";
import { introspect } from "../engine/introspect.js";
import { UnsupportedFeatureError } from "../errors.js";
import { modelsSnapshot } from "../schema/models-snapshot.js";
import { schemaModels } from "./conformance-schema-models.js";

/**
 * What a dialect's introspector owes: the tables `createAll(models)` made read back as exactly
 * `modelsSnapshot(engine, models)`. A dialect without an introspector owes the typed refusal.
 */
export function schemaTests(getEngine: () => Engine): void {
  describe("schema snapshot", () => {
    const names = schemaModels.map((m) => m.tablename);

    it("introspect after createAll deep-equals modelsSnapshot", async () => {
      const engine = getEngine();
      if (engine.schemaAccess().dialect.introspector === undefined) {
        await expectRefused(engine);
        return;
      }
      await engine.dropAll([...schemaModels]);
      await engine.createAll([...schemaModels]);
      try {
        const live = await introspect(engine, { tables: names });
        const models = modelsSnapshot(engine, [...schemaModels]);
        expect(live.tables.map((t) => t.name)).toEqual([...names].sort());
        expect(live).toEqual(models);
        // JSON-serialisable: a migration file stores it.
        expect(JSON.parse(JSON.stringify(models))).toEqual(models);
      } finally {
        await engine.dropAll([...schemaModels]);
      }
    });

    it("reads only the tables asked for, and none that do not exist", async () => {
      const engine = getEngine();
      if (engine.schemaAccess().dialect.introspector === undefined) {
        await expectRefused(engine);
        return;
      }
      await engine.dropAll([...schemaModels]);
      const [parent, child] = schemaModels;
      await engine.createAll([parent]);
      try {
        const live = await introspect(engine, { tables: [parent.tablename, child.tablename, "tempest_schema_absent"] });
        expect(live).toEqual(modelsSnapshot(engine, [parent]));
      } finally {
        await engine.dropAll([parent]);
      }
    });
  });
}

async function expectRefused(engine: Engine): Promise<void> {
  const refused = await introspect(engine).catch((e: unknown) => e);
  expect(UnsupportedFeatureError.isInstance(refused)).toBe(true);
  expect((refused as UnsupportedFeatureError).dialect).toBe(engine.dialectName);
  expect((refused as UnsupportedFeatureError).feature).toContain("introspection");
  expect(() => modelsSnapshot(engine, [...schemaModels])).toThrow(/migrations/);
}
