import fc from "fast-check";
import type { Column, ColumnKind, ModelClass } from "tempest-db-js";
import { column, index, Model, sql, uniqueIndex } from "tempest-db-js";

/** A column whose type parameters the random model does not track. */
type AnyColumn = Column<string, boolean, boolean>;

/**
 * Random models for the schema round trip: a few tables, each column of a random kind with random
 * nullability, uniqueness and default (a value of its kind, an expression, a random uuid), a
 * single or composite primary key, indexes (unique ones partial on IS NOT NULL of their own columns,
 * which every dialect can keep or drop; others partial on comparisons of any kind), and foreign keys
 * to earlier tables' keys with each ON DELETE action.
 */
export interface ColumnSpec {
  readonly name: string;
  readonly kind: ColumnKind;
  readonly length: number;
  readonly precision: number;
  readonly scale: number;
  readonly enumValues: readonly string[];
  readonly notNull: boolean;
  readonly unique: boolean;
  /** An index into the kind's default choices, or null for none. */
  readonly defaultPick: number | null;
  readonly defaultSeed: number;
}

export interface TableSpec {
  readonly columns: readonly ColumnSpec[];
  readonly primaryKey: readonly number[];
  readonly indexes: readonly { readonly columns: readonly number[]; readonly unique: boolean; readonly partial: number | null }[];
  readonly references: readonly {
    readonly column: number;
    readonly onDelete: "cascade" | "restrict" | "set null" | "no action" | undefined;
  }[];
}

const KINDS: readonly ColumnKind[] = [
  "uuid",
  "text",
  "varchar",
  "integer",
  "bigint",
  "real",
  "numeric",
  "boolean",
  "datetime",
  "date",
  "json",
  "enum",
  "bytes",
];
/** Names that need quoting everywhere, besides plain ones. */
const NAMES = ["a", "b c", 'quo"te', "it's", "back`tick", "Upper", "select", "x_1", "ünï", "order"];
const KEY_KINDS = new Set<ColumnKind>(["uuid", "text", "varchar", "integer", "bigint"]);
const INDEXABLE = (kind: ColumnKind) => kind !== "json";

const enumValues = fc.uniqueArray(
  fc.string({ unit: fc.constantFrom("a", "b", "Q", "'", "-", " ", "é"), minLength: 1, maxLength: 6 }).filter((v) => !v.endsWith(" ")),
  { minLength: 1, maxLength: 4 },
);

const columnArb = (name: string): fc.Arbitrary<ColumnSpec> =>
  fc.record({
    name: fc.constant(name),
    kind: fc.constantFrom(...KINDS),
    length: fc.integer({ min: 12, max: 255 }),
    precision: fc.integer({ min: 4, max: 30 }),
    scale: fc.integer({ min: 0, max: 3 }),
    enumValues,
    notNull: fc.boolean(),
    unique: fc.boolean(),
    defaultPick: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
    defaultSeed: fc.integer({ min: 0, max: 1_000_000 }),
  });

const tableArb: fc.Arbitrary<TableSpec> = fc
  .shuffledSubarray(NAMES, { minLength: 1, maxLength: 6 })
  .chain((names) => fc.tuple(...names.map(columnArb)))
  .chain((columns) => {
    const n = columns.length;
    const position = fc.integer({ min: 0, max: n - 1 });
    return fc.record({
      columns: fc.constant(columns),
      primaryKey: fc.uniqueArray(position, { minLength: 0, maxLength: Math.min(2, n) }),
      indexes: fc.array(
        fc.record({
          columns: fc.uniqueArray(position, { minLength: 1, maxLength: Math.min(3, n) }),
          unique: fc.boolean(),
          partial: fc.option(position, { nil: null }),
        }),
        { maxLength: 3 },
      ),
      references: fc.array(
        fc.record({ column: position, onDelete: fc.constantFrom("cascade", "restrict", "set null", "no action", undefined) }),
        { maxLength: 2 },
      ),
    });
  });

export const schemaArb = fc.array(tableArb, { minLength: 1, maxLength: 3 });

/**
 * A value of the column's kind, chosen by seed (reproducible, printable in a counterexample). No
 * character beyond U+FFFF in text defaults: MariaDB's catalog reports each as "?" (its
 * information_schema and SHOW CREATE TABLE are utf8mb3), though the default it applies is right.
 */
function sampleOf(spec: ColumnSpec, seed: number): unknown {
  const pick = <T>(list: readonly T[]) => list[seed % list.length] as T;
  switch (spec.kind) {
    case "uuid":
      return pick(["00000000-0000-4000-8000-000000000001", "d7a1f5e2-3c4b-4a69-9f0e-2b8c7d6e5f4a"]);
    case "text":
      return pick(["", "plain", "it's", 'say "hi"', "back\\slash", "tab\there", "ünïcode ∑", "50%_off"]);
    case "varchar":
      return pick(["", "v", "it's \\ ok", "é∑"]);
    case "integer":
      return pick([0, 1, -7, 2147483647, -2147483648, seed]);
    case "bigint":
      return pick([0n, 9007199254740993n, -9223372036854775808n, 9223372036854775807n, BigInt(seed)]);
    case "real":
      return pick([0, 1.5, -2.25, 0.1, 123456.789, 1e21, seed / 7]);
    case "numeric": {
      const digits = String(seed % 10 ** Math.min(6, spec.precision - spec.scale));
      return spec.scale === 0 ? digits : `${digits}.${String(seed % 10 ** spec.scale).padStart(spec.scale, "0")}`;
    }
    case "boolean":
      return seed % 2 === 0;
    case "datetime":
      return new Date(Date.UTC(1990 + (seed % 60), seed % 12, 1 + (seed % 28), seed % 24, seed % 60, seed % 60, seed % 1000));
    case "date":
      return `${1990 + (seed % 60)}-0${1 + (seed % 9)}-1${seed % 10}`;
    case "json":
      return pick([{ a: 1, b: [true, null, "x"] }, [], "text", 42, { "it's": { nested: [1.5] } }]);
    case "enum":
      return pick(spec.enumValues);
    case "bytes":
      return new Uint8Array([seed % 256, 0, 255]);
  }
}

function columnOf(spec: ColumnSpec) {
  const base = () => {
    switch (spec.kind) {
      case "varchar":
        return column.varchar(spec.length);
      case "numeric":
        return column.numeric(spec.precision, spec.scale);
      case "enum":
        return column.enum(...(spec.enumValues as [string, ...string[]]));
      default:
        return (column[spec.kind] as () => ReturnType<typeof column.text>)();
    }
  };
  let col = base() as unknown as AnyColumn;
  if (spec.defaultPick !== null && spec.kind !== "bytes") {
    if (spec.defaultPick === 0 && spec.kind === "datetime") col = col.default(sql.now() as never);
    else if (spec.defaultPick === 0 && spec.kind === "integer") col = col.default(sql.raw("1 + 2") as never);
    else if (spec.defaultPick === 0 && spec.kind === "uuid") col = (col as Column<string, false, false>).defaultRandom();
    else col = col.default(sampleOf(spec, spec.defaultSeed) as never);
  }
  return col;
}

/** The models of a schema spec, in creation order, with table names prefixed by `prefix`. */
export function buildModels(specs: readonly TableSpec[], prefix: string): ModelClass[] {
  const models: ModelClass[] = [];
  const keys: { model: ModelClass; field: string; spec: ColumnSpec }[] = [];
  specs.forEach((table, t) => {
    const fields: Record<string, unknown> = {};
    const pk = table.primaryKey.filter((i) => KEY_KINDS.has((table.columns[i] as ColumnSpec).kind));
    const referenced = new Map<number, (typeof keys)[number]>();
    for (const ref of table.references) {
      const column = table.columns[ref.column] as ColumnSpec;
      const target = keys.find((k) => k.spec.kind === column.kind && (column.kind !== "varchar" || k.spec.length === column.length));
      if (target && !referenced.has(ref.column)) referenced.set(ref.column, target);
    }
    table.columns.forEach((spec, i) => {
      let col: AnyColumn = columnOf(spec);
      const inKey = pk.includes(i);
      if (inKey) col = col.primaryKey();
      else if (spec.notNull) col = col.notNull();
      if (spec.unique && !inKey && INDEXABLE(spec.kind)) col = col.unique();
      const target = referenced.get(i);
      if (target) {
        const onDelete = table.references.find((r) => r.column === i)?.onDelete;
        // SET NULL on a NOT NULL column cannot run; the servers refuse it or fail at delete.
        const action = onDelete === "set null" && (inKey || spec.notNull) ? "cascade" : onDelete;
        col = col.references(() => target.model, target.field, action ? { onDelete: action } : {});
      }
      fields[`f${i}`] = col.name(spec.name);
    });
    const indexes = table.indexes
      .map((ix, n) => ({ ...ix, columns: ix.columns.filter((c) => INDEXABLE((table.columns[c] as ColumnSpec).kind)), n }))
      .filter((ix) => ix.columns.length > 0)
      .map((ix) => {
        const name = `${prefix}_${t}_ix${ix.n}`;
        const declared = (ix.unique ? uniqueIndex : index)(name, ix.columns.map((c) => `f${c}`) as never);
        if (ix.partial === null) return declared;
        if (ix.unique) return declared.where({ [`f${ix.columns[0]}`]: { isNull: false } } as never);
        return declared.where(predicate(table, ix.partial) as never);
      });
    const model = class extends Model {
      static tablename = `${prefix}_${t}`;
      static indexes = indexes;
      constructor() {
        super();
        Object.assign(this, fields);
      }
    };
    models.push(model as unknown as ModelClass);
    if (pk.length === 1)
      keys.push({ model: model as unknown as ModelClass, field: `f${pk[0]}`, spec: table.columns[pk[0] as number] as ColumnSpec });
  });
  return models;
}

/** A non-unique index's predicate on column `i`: a comparison of its kind, or IS NULL. */
function predicate(table: TableSpec, i: number): Record<string, unknown> {
  const spec = table.columns[i] as ColumnSpec;
  const field = `f${i}`;
  const value = sampleOf(spec, spec.defaultSeed + 1);
  switch (spec.kind) {
    case "json":
    case "bytes":
      return { [field]: { isNull: spec.defaultSeed % 2 === 0 } };
    case "integer":
    case "bigint":
    case "real":
    case "numeric":
    case "datetime":
    case "date":
      return spec.defaultSeed % 3 === 0
        ? { [field]: { gt: value } }
        : { [field]: { ne: value }, ...(spec.defaultSeed % 2 ? {} : { [field]: { lte: value } }) };
    case "enum":
      return { [field]: { in: spec.enumValues.slice(0, 2) } };
    default:
      return spec.defaultSeed % 2 === 0 ? { [field]: value } : { [field]: { notIn: [value, sampleOf(spec, spec.defaultSeed + 2)] } };
  }
}
