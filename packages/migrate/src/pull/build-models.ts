import type { Column, ColumnSnapshot, ModelClass, WhereInput } from "tempest-db-js";
import { and, column, index, Model, not, op, or, sql, uniqueIndex } from "tempest-db-js";
import type { PulledDefault, PulledField, PulledSchema, PulledTest, PulledValue, PulledWhere } from "./pulled-schema.js";

type AnyColumn = Column<any, boolean, boolean>;

/**
 * The pulled models as live classes, built from the same decisions as the source text: what
 * `pullModels` compares with the schema (through `modelsSnapshot`) to say whether the file round-trips.
 */
export function buildModels(schema: PulledSchema): ModelClass[] {
  const classes = new Map<string, ModelClass>();
  for (const table of schema.tables) {
    const fields = table.fields.map((f) => [f.field, () => buildColumn(f, classes)] as const);
    const built = class extends Model {
      static tablename = table.table.name;
      static naming = table.naming;
      constructor() {
        super();
        for (const [field, make] of fields) (this as unknown as Record<string, unknown>)[field] = make();
      }
    };
    Object.defineProperty(built, "name", { value: table.className });
    Object.defineProperty(built, "indexes", {
      value: table.indexes.map((i) => {
        const declared = (i.unique ? uniqueIndex : index)(i.name, i.fields as never[]);
        return i.where ? declared.where(buildWhere(i.where) as WhereInput<Model>) : declared;
      }),
    });
    classes.set(table.table.name, built as unknown as ModelClass);
  }
  return [...classes.values()];
}

function buildColumn(field: PulledField, classes: ReadonlyMap<string, ModelClass>): AnyColumn {
  const { column: snapshot } = field;
  let built = builder(snapshot);
  if (field.primaryKey) built = built.primaryKey();
  else if (snapshot.notNull) built = built.notNull();
  if (snapshot.unique) built = built.unique();
  if (field.fallback) built = withDefault(built, field.fallback);
  const reference = field.reference;
  if (reference) {
    const options = reference.onDelete === undefined ? {} : { onDelete: reference.onDelete };
    built = built.references(() => classes.get(reference.table), reference.field, options);
  }
  if (field.explicitName) built = built.name(snapshot.name);
  return built;
}

function builder(snapshot: ColumnSnapshot): AnyColumn {
  switch (snapshot.kind) {
    case "varchar":
      return column.varchar(snapshot.length ?? 255);
    case "numeric":
      return column.numeric(snapshot.precision ?? undefined, snapshot.scale ?? undefined);
    case "enum":
      return column.enum(...((snapshot.enumValues ?? []) as [string, ...string[]]));
    default:
      return column[snapshot.kind]();
  }
}

function withDefault(built: AnyColumn, fallback: PulledDefault): AnyColumn {
  switch (fallback.kind) {
    case "random":
      return (built as Column<string, boolean, boolean>).defaultRandom();
    case "now":
      return built.default(sql.now());
    case "raw":
      return built.default(sql.raw(fallback.sql));
    case "value":
      return built.default(value(fallback.value));
  }
}

function value(v: PulledValue): unknown {
  switch (v.kind) {
    case "bigint":
      return BigInt(v.text);
    case "date":
      return new Date(v.iso);
    case "json":
      return v.value;
  }
}

function buildWhere(where: PulledWhere): unknown {
  switch (where.kind) {
    case "fields":
      return Object.fromEntries(where.entries.map(([field, test]) => [field, buildTest(test)]));
    case "and":
      return and(...(where.items.map(buildWhere) as never[]));
    case "or":
      return or(...(where.items.map(buildWhere) as never[]));
    case "not":
      return not(buildWhere(where.item) as never);
  }
}

function buildTest(test: PulledTest): unknown {
  switch (test.kind) {
    case "eq":
      return test.value;
    case "isNull":
      return op.isNull(test.isNull);
    case "in":
      return op.in(test.values);
    case "notIn":
      return op.notIn(test.values);
    default:
      return op[test.kind](test.value);
  }
}
