import fc from "fast-check";
import type { ColumnSnapshot, ForeignKeySnapshot, SchemaSnapshot, TableSnapshot } from "tempest-db-js";
import { describe, expect, it } from "vitest";
import { applyPlan, diffSchemas, reversePlan, sameSchema } from "../../src/index.js";
import { col, idCol, snap, sqliteAlters } from "../snapshot-fixtures.js";

/** Quick in CI; TEMPEST_PROPERTY_RUNS=5000 for the full run. */
const numRuns = Number(process.env.TEMPEST_PROPERTY_RUNS ?? 300);

const TABLES = ["a", "b", "c", "d"];
const COLUMNS = ["c1", "c2", "c3", "c4"];

const columnShape = fc.oneof(
  fc.record({ kind: fc.constant("text" as const) }),
  fc.record({ kind: fc.constant("varchar" as const), length: fc.constantFrom(10, 50) }),
  fc.record({ kind: fc.constant("integer" as const) }),
  fc.record({ kind: fc.constant("bigint" as const) }),
  fc.record({ kind: fc.constant("enum" as const), enumValues: fc.subarray(["x", "y", "z"], { minLength: 1 }) }),
);

const columnArb = (name: string) =>
  fc
    .record({
      shape: columnShape,
      notNull: fc.boolean(),
      unique: fc.boolean(),
      withDefault: fc.boolean(),
    })
    .map(
      ({ shape, notNull, unique, withDefault }): ColumnSnapshot =>
        col(name, shape.kind, {
          notNull,
          unique,
          length: "length" in shape ? shape.length : null,
          enumValues: "enumValues" in shape ? shape.enumValues : null,
          default: withDefault ? { kind: "value", value: shape.kind === "integer" ? 0 : "x" } : null,
        }),
    );

interface RawTable {
  readonly name: string;
  readonly columns: ColumnSnapshot[];
  readonly indexes: { columns: string[]; unique: boolean; partial: boolean }[];
  readonly refs: { column: string; target: string; onDelete: ForeignKeySnapshot["onDelete"] }[];
}

const tableArb = (name: string): fc.Arbitrary<RawTable> =>
  fc.subarray(COLUMNS).chain((names) =>
    fc.record({
      name: fc.constant(name),
      columns: fc.tuple(...names.map(columnArb)).map((cs) => [...cs]),
      indexes:
        names.length === 0
          ? fc.constant([])
          : fc.array(fc.record({ columns: fc.subarray(names, { minLength: 1 }), unique: fc.boolean(), partial: fc.boolean() }), {
              maxLength: 2,
            }),
      refs: fc.array(
        fc.record({
          column: fc.constantFrom(...names, "ref"),
          target: fc.constantFrom(...TABLES),
          onDelete: fc.constantFrom("cascade" as const, "no action" as const),
        }),
        { maxLength: 2 },
      ),
    }),
  );

/** A random schema over a small pool of names, so that two of them overlap a lot. */
const schemaArb = (dialect: "PostgreSQL" | "SQLite") =>
  fc.subarray(TABLES).chain((names) =>
    fc.tuple(...names.map(tableArb)).map((raws): SchemaSnapshot => {
      const present = new Set(raws.map((r) => r.name));
      const tables = raws.map((raw): TableSnapshot => {
        const refs = raw.refs.filter((r, i) => present.has(r.target) && raw.refs.findIndex((o) => o.column === r.column) === i);
        const columns = [idCol(), ...raw.columns];
        // A foreign key column the table did not pick is added for it, as an integer.
        for (const r of refs) if (!columns.some((c) => c.name === r.column)) columns.push(col(r.column, "integer"));
        return {
          name: raw.name,
          columns,
          primaryKey: ["id"],
          indexes: raw.indexes.map((i, k) => ({
            name: `${raw.name}_i${k}`,
            columns: i.columns,
            unique: i.unique,
            where: i.partial ? `"${i.columns[0]}" IS NOT NULL` : null,
          })),
          foreignKeys: refs.map((r) => ({
            name: dialect === "SQLite" ? null : `${raw.name}_${r.column}_fkey`,
            columns: [r.column],
            referencedTable: r.target,
            referencedColumns: ["id"],
            onDelete: r.onDelete,
          })),
        };
      });
      return snap(tables, dialect);
    }),
  );

const dialects = [
  { dialect: "PostgreSQL" as const, options: {} },
  { dialect: "SQLite" as const, options: { capabilities: sqliteAlters } },
];

describe.each(dialects)("diffSchemas on random $dialect schemas", ({ dialect, options }) => {
  it("finds nothing to do between a schema and itself", () => {
    fc.assert(
      fc.property(schemaArb(dialect), (schema) => {
        expect(diffSchemas(schema, schema, options).changes).toEqual([]);
      }),
      { numRuns },
    );
  });

  it("plans changes that lead from one schema to the other, and back", () => {
    fc.assert(
      fc.property(schemaArb(dialect), schemaArb(dialect), (from, to) => {
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
        schemaArb(dialect).filter((s) => s.tables.length > 0),
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
