import fc from "fast-check";
import type { TableSnapshot } from "tempest-db-js";
import { describe, expect, it } from "vitest";
import { applyPlan, diffSchemas, reversePlan, sameSchema } from "../../src/index.js";
import { snap, sqliteAlters } from "../snapshot-fixtures.js";
import { schemaArb } from "./random-schema.js";

/** Quick in CI; TEMPEST_PROPERTY_RUNS=5000 for the full run. */
const numRuns = Number(process.env.TEMPEST_PROPERTY_RUNS ?? 300);

const dialects = [
  { dialect: "PostgreSQL" as const, options: {} },
  { dialect: "SQLite" as const, options: { capabilities: sqliteAlters } },
];

describe.each(dialects)("diffSchemas on random $dialect schemas", ({ dialect, options }) => {
  it("finds nothing to do between a schema and itself", () => {
    fc.assert(
      fc.property(schemaArb({ dialect }), (schema) => {
        expect(diffSchemas(schema, schema, options).changes).toEqual([]);
      }),
      { numRuns },
    );
  });

  it("plans changes that lead from one schema to the other, and back", () => {
    fc.assert(
      fc.property(schemaArb({ dialect }), schemaArb({ dialect }), (from, to) => {
        const plan = diffSchemas(from, to, { ...options, allowDestructive: "all" });
        expect(sameSchema(applyPlan(from, plan.changes), to)).toBe(true);
        expect(sameSchema(applyPlan(to, reversePlan(plan).changes), from)).toBe(true);
        // Nothing left to do once the plan ran.
        expect(diffSchemas(applyPlan(from, plan.changes), to, options).changes).toEqual([]);
      }),
      { numRuns },
    );
  });

  it("turns declared renames into renames only", () => {
    fc.assert(
      fc.property(
        schemaArb({ dialect }).filter((s) => s.tables.length > 0),
        fc.nat(),
        fc.boolean(),
        (from, pick, renameColumns) => {
          const target = from.tables[pick % from.tables.length] as TableSnapshot;
          const newName = `${target.name}_renamed`;
          const columnRenames: Record<string, string> = {};
          if (renameColumns)
            for (const c of target.columns.filter((c) => c.name !== "id")) columnRenames[`${target.name}.${c.name}`] = `${c.name}_x`;
          const r = (c: string) => columnRenames[`${target.name}.${c}`] ?? c;
          const to = snap(
            from.tables.map((t) => {
              const fks = t.foreignKeys.map((fk) =>
                fk.referencedTable === target.name
                  ? { ...fk, referencedTable: newName, referencedColumns: fk.referencedColumns.map(r) }
                  : fk,
              );
              if (t !== target) return { ...t, foreignKeys: fks };
              return {
                ...t,
                name: newName,
                columns: t.columns.map((c) => ({ ...c, name: r(c.name) })),
                indexes: t.indexes.map((i) => ({
                  ...i,
                  columns: i.columns.map(r),
                  where: i.where === null ? null : `"${r(i.columns[0] as string)}" IS NOT NULL`,
                })),
                foreignKeys: fks.map((fk) => ({ ...fk, columns: fk.columns.map(r) })),
              };
            }),
            dialect,
          );
          const plan = diffSchemas(from, to, { ...options, renames: { tables: { [target.name]: newName }, columns: columnRenames } });
          expect(sameSchema(applyPlan(from, plan.changes), to)).toBe(true);
          // Partial predicates name the column in SQL text, which a rename does not rewrite here: those indexes are recreated.
          const kinds = new Set(plan.changes.map((c) => c.change.kind));
          for (const kind of kinds) expect(["renameTable", "renameColumn", "dropIndex", "createIndex", "rebuildTable"]).toContain(kind);
          expect(plan.changes.every((c) => c.destructive.length === 0)).toBe(true);
        },
      ),
      { numRuns },
    );
  });
});
