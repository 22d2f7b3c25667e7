import fc from "fast-check";
import type { ColumnSnapshot, ForeignKeySnapshot, SchemaSnapshot, TableSnapshot } from "tempest-db-js";
import { col, idCol, snap } from "../snapshot-fixtures.js";

/**
 * Random schemas over small pools of names, so that two of them overlap a lot. For real servers
 * (`forServers`) they stay what a database can hold: foreign key columns are integers like the key
 * they reference, defaults are values of their column.
 */
export interface SchemaArbOptions {
  readonly dialect: string;
  /** Table names; the default pool is a, b, c, d. */
  readonly tables?: readonly string[];
  /** Partial indexes (none on MySQL/MariaDB). */
  readonly partialIndexes?: boolean;
}

export const TABLES = ["a", "b", "c", "d"];
const COLUMNS = ["c1", "c2", "c3", "c4"];

const columnShape = fc.oneof(
  fc.record({ kind: fc.constant("text" as const) }),
  fc.record({ kind: fc.constant("varchar" as const), length: fc.constantFrom(10, 50) }),
  fc.record({ kind: fc.constant("integer" as const) }),
  fc.record({ kind: fc.constant("bigint" as const) }),
  fc.record({ kind: fc.constant("enum" as const), enumValues: fc.subarray(["x", "y", "z"], { minLength: 1 }) }),
);

function defaultOf(shape: { kind: ColumnSnapshot["kind"]; enumValues?: string[] }): unknown {
  if (shape.kind === "integer") return 0;
  if (shape.kind === "bigint") return "0";
  return shape.enumValues?.[0] ?? "x";
}

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
          default: withDefault ? { kind: "value", value: defaultOf(shape) } : null,
        }),
    );

interface RawTable {
  readonly name: string;
  readonly columns: ColumnSnapshot[];
  readonly indexes: { columns: string[]; unique: boolean; partial: boolean }[];
  readonly refs: { column: string; target: string; onDelete: ForeignKeySnapshot["onDelete"] }[];
}

const tableArb = (name: string, pool: readonly string[]): fc.Arbitrary<RawTable> =>
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
          target: fc.constantFrom(...pool),
          onDelete: fc.constantFrom("cascade" as const, "no action" as const),
        }),
        { maxLength: 2 },
      ),
    }),
  );

export const schemaArb = ({ dialect, tables: pool = TABLES, partialIndexes = true }: SchemaArbOptions) =>
  fc.subarray([...pool]).chain((names) =>
    fc.tuple(...names.map((name) => tableArb(name, pool))).map((raws): SchemaSnapshot => {
      const present = new Set(raws.map((r) => r.name));
      const tables = raws.map((raw): TableSnapshot => {
        const refs = raw.refs.filter((r, i) => present.has(r.target) && raw.refs.findIndex((o) => o.column === r.column) === i);
        // Foreign key columns are integers, like the key they reference.
        const columns = [
          idCol(),
          ...raw.columns.map((c) => {
            if (refs.some((r) => r.column === c.name)) return col(c.name, "integer", { notNull: c.notNull, unique: c.unique });
            return c;
          }),
        ];
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
            where: i.partial && partialIndexes ? `"${i.columns[0]}" IS NOT NULL` : null,
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
