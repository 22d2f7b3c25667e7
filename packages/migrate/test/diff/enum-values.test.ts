import type { Engine, SchemaSnapshot } from "tempest-db-js";
import { applySchemaChange, introspect, modelsSnapshot, SCHEMA_SNAPSHOT_VERSION, schemaSteps, sql } from "tempest-db-js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { alterCapabilitiesOf, DestructiveChangeError, diffSchemas, pullModels, sameSchema } from "../../src/index.js";
import { col, idCol, snap, table } from "../snapshot-fixtures.js";
import { engineFor, targets } from "../support/targets.js";

const TABLES = ["menum_t"];

/**
 * Enum value changes on each database (PostgreSQL and SQLite: a CHECK on the column; MySQL: ENUM):
 * adding a value is safe, removing one (a rename is a removal and an addition) is destructive and
 * refused unless allowed by name; each applies to a table with a row and reads back as the target.
 */
describe.each(targets)("enum values changed on $name", (target) => {
  let engine: Engine;
  const onServer = (values: string[]): SchemaSnapshot =>
    modelsSnapshot(
      engine,
      pullModels(snap([table("menum_t", [idCol(), col("status", "enum", { enumValues: values, notNull: true })])], "abstract")).models,
    );
  const live = () => introspect(engine, { tables: TABLES });
  const plan = async (to: SchemaSnapshot, allow?: readonly string[] | "all") =>
    diffSchemas(await introspect(engine, { tables: TABLES, foreignKeyIndexes: true }), to, {
      capabilities: alterCapabilitiesOf(engine.capabilities),
      ...(allow ? { allowDestructive: allow } : {}),
    });
  const apply = async (to: SchemaSnapshot, allow?: readonly string[] | "all") => {
    const p = await plan(to, allow);
    for (const planned of p.changes) await applySchemaChange(engine, planned.change);
    return p;
  };
  const empty = (): SchemaSnapshot => ({ version: SCHEMA_SNAPSHOT_VERSION, dialect: engine.dialectName, tables: [] });

  beforeAll(async () => {
    engine = engineFor(target);
    await live();
  });
  beforeEach(async () => {
    await apply(empty(), ["drop table menum_t"]);
    await apply(onServer(["open", "closed"]));
    await engine.execute(sql.raw("INSERT INTO menum_t (id, status) VALUES (1, 'open')")).rowsAffected();
  });
  afterAll(async () => {
    await apply(empty(), ["drop table menum_t"]);
    await engine.close();
  });

  it("adds a value: not destructive, and the new value is accepted", async () => {
    const to = onServer(["open", "closed", "spam"]);
    const p = await apply(to);
    expect(p.changes.map((c) => c.destructive)).toEqual(p.changes.map(() => []));
    const text = (await Promise.all(p.changes.map((c) => schemaSteps(engine, c.change)))).flat().map((s) => s.sql);
    if (target.name === "MySQL")
      expect(text).toEqual(["ALTER TABLE `menum_t` MODIFY COLUMN `status` enum('open', 'closed', 'spam') NOT NULL, ALGORITHM=INSTANT"]);
    if (target.name === "PostgreSQL") expect(text.join("\n")).toMatch(/NOT VALID[\s\S]*VALIDATE CONSTRAINT/);
    if (target.name === "SQLite") expect(p.changes.map((c) => c.change.kind)).toEqual(["rebuildTable"]);
    expect(sameSchema(await live(), to)).toBe(true);
    await engine.execute(sql.raw("INSERT INTO menum_t (id, status) VALUES (2, 'spam')")).rowsAffected();
    expect(await engine.execute(sql.raw("SELECT id, status FROM menum_t ORDER BY id")).all()).toEqual([
      { id: 1, status: "open" },
      { id: 2, status: "spam" },
    ]);
  });

  it("removes a value: destructive, refused until allowed by name, then the value is refused", async () => {
    const to = onServer(["open"]);
    const refused = (await plan(to).catch((e: unknown) => e)) as DestructiveChangeError;
    expect(DestructiveChangeError.isInstance(refused)).toBe(true);
    const marks = refused.refused.map((m) => m.reason);
    expect(marks).toEqual(["removes 1 enum value: rows holding them fail"]);
    await apply(
      to,
      refused.refused.map((m) => m.label),
    );
    expect(sameSchema(await live(), to)).toBe(true);
    await expect(engine.execute(sql.raw("INSERT INTO menum_t (id, status) VALUES (3, 'closed')")).rowsAffected()).rejects.toThrow();
  });

  it("renames a value: a removal and an addition, destructive; rows holding the old value make it fail", async () => {
    const to = onServer(["open", "done"]);
    const refused = (await plan(to).catch((e: unknown) => e)) as DestructiveChangeError;
    expect(refused.refused.map((m) => m.reason)).toEqual(["removes 1 enum value: rows holding them fail"]);
    await engine.execute(sql.raw("INSERT INTO menum_t (id, status) VALUES (2, 'closed')")).rowsAffected();
    await expect(apply(to, "all")).rejects.toThrow();
    // With the rows moved first (a data step in a real migration), it applies.
    await engine.execute(sql.raw("DELETE FROM menum_t WHERE status = 'closed'")).rowsAffected();
    await apply(
      to,
      refused.refused.map((m) => m.label),
    );
    expect(sameSchema(await live(), to)).toBe(true);
  });
});
