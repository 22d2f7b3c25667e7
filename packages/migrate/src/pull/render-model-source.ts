import type { ColumnSnapshot } from "tempest-db-js";
import { fieldKey } from "./pull-names.js";
import type { PulledDefault, PulledField, PulledSchema, PulledTable, PulledTest, PulledValue, PulledWhere } from "./pulled-schema.js";

/** The models as a TypeScript module: one exported class per table, importing only what it uses. */
export function renderModelSource(schema: PulledSchema, warnings: readonly { table: string; message: string }[] = []): string {
  const used = new Set<string>(["Model", "column"]);
  const classes = schema.tables.map((table) => renderClass(table, schema, used));
  const header = [
    `// Written by \`tempest migrate pull\` from a ${schema.dialect} schema. Review it, then treat it as your own code.`,
    ...warnings.map((w) => `// ${w.table}: ${w.message.replace(/\n/g, " ")}`),
  ];
  const imports = `import { ${[...used].sort((a, b) => a.localeCompare(b, "en")).join(", ")} } from "tempest-db-js";`;
  return `${[...header, imports].join("\n")}\n\n${classes.join("\n\n")}\n`;
}

function renderClass(table: PulledTable, schema: PulledSchema, used: Set<string>): string {
  const lines = [`export class ${table.className} extends Model {`, `  static tablename = ${JSON.stringify(table.table.name)};`];
  if (table.naming) lines.push(`  static naming = ${JSON.stringify(table.naming)};`);
  if (table.indexes.length > 0) {
    lines.push("  static indexes = [");
    for (const index of table.indexes) {
      const make = index.unique ? "uniqueIndex" : "index";
      used.add(make);
      let text = `${make}<${table.className}>(${JSON.stringify(index.name)}, [${index.fields.map((f) => JSON.stringify(f)).join(", ")}])`;
      if (index.where) text += `.where(${whereSource(index.where, used)})`;
      lines.push(`    ${text},`);
    }
    lines.push("  ];");
  }
  lines.push("");
  for (const field of table.fields) lines.push(`  ${fieldKey(field.field)} = ${columnSource(field, schema, used)};`);
  lines.push("}");
  return lines.join("\n");
}

function columnSource(field: PulledField, schema: PulledSchema, used: Set<string>): string {
  const { column } = field;
  let text = `column.${builderCall(column)}`;
  if (field.primaryKey) text += ".primaryKey()";
  else if (column.notNull) text += ".notNull()";
  if (column.unique) text += ".unique()";
  if (field.fallback) text += defaultSource(field.fallback, used);
  if (field.reference) {
    const target = schema.tables.find((t) => t.table.name === field.reference?.table)?.className as string;
    const args = [`() => ${target}`];
    if (field.reference.field !== undefined || field.reference.onDelete !== undefined)
      args.push(field.reference.field === undefined ? "undefined" : JSON.stringify(field.reference.field));
    if (field.reference.onDelete !== undefined) args.push(`{ onDelete: ${JSON.stringify(field.reference.onDelete)} }`);
    text += `.references(${args.join(", ")})`;
  }
  if (field.explicitName) text += `.name(${JSON.stringify(column.name)})`;
  return text;
}

/** The builder call for a column's kind and its type arguments. */
export function builderCall(column: ColumnSnapshot): string {
  switch (column.kind) {
    case "varchar":
      return `varchar(${column.length ?? 255})`;
    case "numeric":
      if (column.precision === null) return "numeric()";
      return column.scale === null ? `numeric(${column.precision})` : `numeric(${column.precision}, ${column.scale})`;
    case "enum":
      return `enum(${(column.enumValues ?? []).map((v) => JSON.stringify(v)).join(", ")})`;
    default:
      return `${column.kind}()`;
  }
}

function defaultSource(fallback: PulledDefault, used: Set<string>): string {
  switch (fallback.kind) {
    case "random":
      return ".defaultRandom()";
    case "now":
      used.add("sql");
      return ".default(sql.now())";
    case "raw":
      used.add("sql");
      return `.default(sql.raw(${JSON.stringify(fallback.sql)}))`;
    case "value":
      return `.default(${valueSource(fallback.value)})`;
  }
}

function valueSource(value: PulledValue): string {
  switch (value.kind) {
    case "bigint":
      return `${value.text}n`;
    case "date":
      return `new Date(${JSON.stringify(value.iso)})`;
    case "json":
      return JSON.stringify(value.value);
  }
}

function whereSource(where: PulledWhere, used: Set<string>): string {
  switch (where.kind) {
    case "fields":
      return `{ ${where.entries.map(([field, test]) => `${fieldKey(field)}: ${testSource(test, used)}`).join(", ")} }`;
    case "and":
    case "or":
      used.add(where.kind);
      return `${where.kind}(${where.items.map((item) => whereSource(item, used)).join(", ")})`;
    case "not":
      used.add("not");
      return `not(${whereSource(where.item, used)})`;
  }
}

function testSource(test: PulledTest, used: Set<string>): string {
  if (test.kind === "eq") return JSON.stringify(test.value);
  used.add("op");
  switch (test.kind) {
    case "isNull":
      return test.isNull ? "op.isNull()" : "op.isNull(false)";
    case "in":
    case "notIn":
      return `op.${test.kind}([${test.values.map((v) => JSON.stringify(v)).join(", ")}])`;
    default:
      return `op.${test.kind}(${JSON.stringify(test.value)})`;
  }
}
