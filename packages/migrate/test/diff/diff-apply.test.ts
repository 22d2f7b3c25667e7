import fc from "fast-check";
import type { Engine, SchemaSnapshot } from "tempest-db-js";
import { applySchemaChange, introspect, modelsSnapshot, SCHEMA_SNAPSHOT_VERSION } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alterCapabilitiesOf, diffSchemas, pullModels, sameSchema } from "../../src/index.js";
import { sqliteAlters } from "../snapshot-fixtures.js";
import { engineFor, targets } from "../support/targets.js";
import { schemaArb } from "./random-schema.js";

/**
 * A handful per database in CI (each run creates and alters real tables), from a fixed seed so that
 * CI is reproducible; TEMPEST_SERVER_RUNS=100 TEMPEST_SEED=random for the full run.
 */
const numRuns = Number(process.env.TEMPEST_SERVER_RUNS ?? 12);
const seed = process.env.TEMPEST_SEED === "random" ? undefined : Number(process.env.TEMPEST_SEED ?? 20261202);
const TABLES = ["mdiff_a", "mdiff_b", "mdiff_c"];

describe.each(targets)("diffSchemas applied on $name", (target) => {
  let engine: Engine;
  beforeAll(async () => {
    engine = engineFor(target);
    await clear(engine);
  });
  afterAll(async () => {
    await clear(engine);
    await engine.close();
  });

  /**
   * Applies a plan from the live schema of the pool's tables to `to`, change by change, through the
   * dialect's compiler; the live schema as `generate` reads it, with the indexes a database made for
   * its keys (MySQL 8 drops them by those names).
   */
  async function migrateTo(to: SchemaSnapshot): Promise<void> {
    const live = await introspect(engine, { tables: TABLES, foreignKeyIndexes: true });
    const plan = diffSchemas(live, to, { allowDestructive: "all", capabilities: alterCapabilitiesOf(engine.capabilities) });
    for (const planned of plan.changes) await applySchemaChange(engine, planned.change);
  }

  async function clear(e: Engine): Promise<void> {
    engine = e;
    await introspect(engine, { tables: TABLES }); // reads the server version, which the capabilities depend on
    await migrateTo({ version: SCHEMA_SNAPSHOT_VERSION, dialect: engine.dialectName, tables: [] });
  }

  it("derives SQLite's rebuild flags from the dialect's capabilities", () => {
    if (target.name === "SQLite") expect(alterCapabilitiesOf(engine.capabilities)).toEqual(sqliteAlters);
    else expect(alterCapabilitiesOf(engine.capabilities)).toMatchObject({ alterColumn: true, alterForeignKeys: true, rebuildTable: false });
  });

  it("migrates random schemas into each other: introspecting gives the target and the diff is then empty", async () => {
    const arb = schemaArb({
      dialect: "abstract",
      tables: TABLES,
      partialIndexes: target.name !== "MySQL",
    });
    // Snapshots as this database normalises them: the random schema pulled into models, read back by modelsSnapshot.
    const onServer = (schema: SchemaSnapshot) => modelsSnapshot(engine, pullModels(schema).models);
    await fc.assert(
      fc.asyncProperty(arb, arb, async (a, b) => {
        const from = onServer(a);
        const to = onServer(b);
        // From nothing, so that a counterexample does not depend on what the run before it left.
        await migrateTo({ ...from, tables: [] });
        await migrateTo(from);
        expect(sameSchema(await introspect(engine, { tables: TABLES }), from)).toBe(true);
        await migrateTo(to);
        const reached = await introspect(engine, { tables: TABLES });
        expect(sameSchema(reached, to)).toBe(true);
        expect(diffSchemas(reached, to, { capabilities: alterCapabilitiesOf(engine.capabilities) }).changes).toEqual([]);
      }),
      { numRuns, ...(seed === undefined ? {} : { seed }) },
    );
  });
});
