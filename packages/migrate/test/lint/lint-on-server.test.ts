import type { Engine, SchemaChange } from "tempest-db-js";
import { applySchemaChange, column, index, insert, introspect, Model, modelsSnapshot, schemaSteps } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alterCapabilitiesOf, diffSchemas, lintLocks, readTableFacts, safePlan, sameSchema } from "../../src/index.js";
import { engineFor, targets } from "../support/targets.js";

class Owner extends Model {
  static tablename = "mlint_owners";
  id = column.integer().primaryKey();
}
class Job extends Model {
  static tablename = "mlint_jobs";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  ownerId = column.integer();
  kind = column.text();
  attempts = column.integer();
}
/** The same table after the migration: an index, a foreign key, a NOT NULL and a wider type. */
class JobAfter extends Model {
  static tablename = "mlint_jobs";
  static naming = "snake_case";
  static indexes = [index<JobAfter>("mlint_jobs_owner", ["ownerId"])];
  id = column.integer().primaryKey();
  ownerId = column.integer().references(() => Owner);
  kind = column.text().notNull();
  attempts = column.bigint();
}

describe.each(targets.filter((t) => t.name !== "SQLite"))("lock lint on $name", (target) => {
  let engine: Engine;
  beforeAll(async () => {
    engine = engineFor(target);
    await engine.dropAll([Owner, Job]);
    await engine.createAll([Owner, Job]);
    await engine.execute(insert(Owner).values([{ id: 1 }])).rowsAffected();
    await engine.execute(insert(Job).values([{ id: 1, ownerId: 1, kind: "email", attempts: 0 }])).rowsAffected();
  });
  afterAll(async () => {
    await engine.dropAll([Owner, Job]);
    await engine.close();
  });

  it("flags the heavy changes on a table with rows; the safe plan runs and reaches the target", async () => {
    const live = await introspect(engine, { tables: ["mlint_owners", "mlint_jobs"] });
    const to = modelsSnapshot(engine, [Owner, JobAfter]);
    const plan = diffSchemas(live, to, {
      allowDestructive: ["alter column mlint_jobs.kind"],
      capabilities: alterCapabilitiesOf(engine.capabilities),
    });
    const facts = await readTableFacts(engine, live.tables);
    const copies = new Map<SchemaChange, boolean>();
    for (const { change } of plan.changes)
      copies.set(
        change,
        (await schemaSteps(engine, change)).some((step) => step.copiesTable),
      );
    const options = { capabilities: engine.capabilities, facts, copiesTable: (change: SchemaChange) => copies.get(change) ?? false };
    const warnings = lintLocks(plan, options);
    if (target.name === "PostgreSQL") {
      expect(warnings.map((w) => w.rule).sort()).toEqual([
        "foreign-key-validated-at-once",
        "index-not-concurrent",
        "set-not-null-scans",
        "type-change-rewrites",
      ]);
      const safe = safePlan(plan, options);
      expect(lintLocks(safe, options).map((w) => w.rule)).toEqual(["type-change-rewrites"]);
      for (const { change } of safe.changes) await applySchemaChange(engine, change);
    } else {
      // MariaDB: what its compiled ALTERs copy (integer to bigint rewrites every row).
      expect(warnings.length).toBeGreaterThan(0);
      expect(warnings.every((w) => w.rule === "table-copy" && w.table === "mlint_jobs")).toBe(true);
      expect(warnings.map((w) => w.label)).toContain("alter column mlint_jobs.attempts");
      for (const { change } of plan.changes) await applySchemaChange(engine, change);
    }
    expect(sameSchema(await introspect(engine, { tables: ["mlint_owners", "mlint_jobs"] }), to)).toBe(true);
  });
});
