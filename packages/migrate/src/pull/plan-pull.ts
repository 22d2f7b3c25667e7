import type { ColumnDefaultSnapshot, ColumnSnapshot, SchemaSnapshot, TableSnapshot } from "tempest-db-js";
import { toSnakeCase } from "tempest-db-js";
import { camelCase, className, isPlainField, snakeField } from "./pull-names.js";
import type { PulledDefault, PulledField, PulledIndex, PulledSchema, PulledTable, PullWarning } from "./pulled-schema.js";
import { pulledWhere } from "./pulled-where.js";

export interface PullOptions {
  /** The class name for a table; default: its words in PascalCase (`outbound_messages` → `OutboundMessages`). */
  readonly className?: (table: string) => string;
}

/** Decides the models for a schema: class and field names, builders, indexes, references. */
export function planPull(snapshot: SchemaSnapshot, options: PullOptions = {}): { schema: PulledSchema; warnings: PullWarning[] } {
  const warnings: PullWarning[] = [];
  const used = new Set<string>();
  const names = new Map(
    snapshot.tables.map((t) => [t.name, options.className ? unique(options.className(t.name), used) : className(t.name, used)]),
  );
  const fieldsOf = new Map<string, Map<string, string>>();
  const drafts = snapshot.tables.map((table) => {
    const { naming, fields } = chooseFields(table);
    fieldsOf.set(table.name, new Map(table.columns.map((c, i) => [c.name, fields[i] as string])));
    return { table, naming, fields };
  });
  const tables = drafts.map(({ table, naming, fields }): PulledTable => {
    const warn = (message: string) => warnings.push({ table: table.name, message });
    const columnFields = fieldsOf.get(table.name) as Map<string, string>;
    const keyOrder = table.columns.filter((c) => table.primaryKey.includes(c.name)).map((c) => c.name);
    if (keyOrder.join("\u0000") !== table.primaryKey.join("\u0000")) {
      warn(`the primary key (${table.primaryKey.join(", ")}) is not in column order; a model's key follows the order of its fields`);
    }
    const references = new Map<string, PulledField["reference"]>();
    for (const fk of table.foreignKeys) {
      const column = fk.columns[0] as string;
      const target = snapshot.tables.find((t) => t.name === fk.referencedTable);
      if (fk.columns.length !== 1 || !target) {
        warn(
          `the foreign key ${fk.name ?? `on (${fk.columns.join(", ")})`} ${target ? "spans several columns" : `references ${fk.referencedTable}, which is not pulled`}; a model references one column: add it by hand`,
        );
        continue;
      }
      if (references.has(column)) {
        warn(`${column} has more than one foreign key; the model keeps the first`);
        continue;
      }
      const referenced = fk.referencedColumns[0] as string;
      const toKey = target.primaryKey.length === 1 && target.primaryKey[0] === referenced;
      references.set(column, {
        table: target.name,
        field: toKey ? undefined : fieldsOf.get(target.name)?.get(referenced),
        onDelete: fk.onDelete === "no action" ? undefined : fk.onDelete,
      });
    }
    const pulledFields = table.columns.map((column, i): PulledField => {
      const field = fields[i] as string;
      if (column.generated)
        warn(
          `${column.name} is a generated column (${column.generated.sql}); models declare no generated columns, so it is pulled as a plain column`,
        );
      return {
        field,
        column,
        explicitName: (naming === "snake_case" ? snakeField(column.name) : column.name) !== field,
        primaryKey: table.primaryKey.includes(column.name),
        fallback: pulledDefault(column, column.default, warn),
        reference: references.get(column.name) ?? null,
      };
    });
    const indexes: PulledIndex[] = [];
    const byColumn = new Map(pulledFields.map((f) => [f.column.name, { field: f.field, column: f.column }]));
    for (const index of table.indexes) {
      const where = index.where === null ? null : pulledWhere(index.where, byColumn);
      if (where === undefined) {
        warn(`the index ${index.name} has a predicate the where language cannot say (${index.where}); write it by hand`);
        continue;
      }
      indexes.push({ name: index.name, fields: index.columns.map((c) => columnFields.get(c) as string), unique: index.unique, where });
    }
    return { table, className: names.get(table.name) as string, naming, fields: pulledFields, indexes };
  });
  return { schema: { dialect: snapshot.dialect, tables }, warnings };
}

/**
 * snake_case when it names some column from a camelCase field (`due_at` from `dueAt`): the way the
 * docs write models. Columns it cannot name keep a field of their own and `.name(...)`.
 */
function chooseFields(table: TableSnapshot): { naming: "snake_case" | undefined; fields: string[] } {
  const snake = table.columns.some((c) => {
    const field = snakeField(c.name);
    return field !== undefined && field !== c.name;
  });
  const taken = new Set<string>();
  const fields = table.columns.map((c) => {
    const natural = snake ? snakeField(c.name) : isPlainField(c.name) ? c.name : undefined;
    let field = natural ?? fallbackField(c.name);
    for (let n = 2; taken.has(field); n++) field = `${natural ?? fallbackField(c.name)}${n}`;
    taken.add(field);
    return field;
  });
  return { naming: snake ? "snake_case" : undefined, fields };
}

/** A field for a column no naming strategy gives: camelCase of its letters and digits. */
function fallbackField(column: string): string {
  const field = camelCase(toSnakeCase(column.replace(/[^A-Za-z0-9]+/g, "_"))).replace(/_/g, "");
  const safe = /^[A-Za-z_$]/.test(field) ? field : `c${field}`;
  return safe === "constructor" || safe === "" ? `${safe}Column` : safe;
}

function unique(name: string, used: Set<string>): string {
  let candidate = name;
  for (let n = 2; used.has(candidate); n++) candidate = `${name}${n}`;
  used.add(candidate);
  return candidate;
}

/** The SQL text of a default that is the current time, on any dialect. */
const NOW = /^(now\(\)|current_timestamp(\(\d*\))?|strftime\('%Y-%m-%dT%H:%M:%fZ', *'now'\))$/i;

function pulledDefault(column: ColumnSnapshot, fallback: ColumnDefaultSnapshot | null, warn: (m: string) => void): PulledDefault | null {
  if (fallback === null) return null;
  switch (fallback.kind) {
    case "random":
      if (column.kind === "uuid") return { kind: "random" };
      warn(`${column.name} has a random default but is not a uuid column; it is left out`);
      return null;
    case "sql":
      return NOW.test(fallback.sql.trim()) ? { kind: "now" } : { kind: "raw", sql: fallback.sql };
    case "value":
      if (column.kind === "bigint" && (typeof fallback.value === "string" || typeof fallback.value === "number")) {
        return { kind: "value", value: { kind: "bigint", text: String(fallback.value) } };
      }
      if (column.kind === "datetime" && typeof fallback.value === "string")
        return { kind: "value", value: { kind: "date", iso: fallback.value } };
      return { kind: "value", value: { kind: "json", value: fallback.value } };
    default:
      return null;
  }
}
