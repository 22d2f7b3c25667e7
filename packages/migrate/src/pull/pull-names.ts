import { toSnakeCase } from "tempest-db-js";

/** Names the generated module imports: a class may not take one. */
const TAKEN = new Set(["Model", "column", "index", "uniqueIndex", "op", "sql", "and", "or", "not", "Date", "Object", "Array", "Error"]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `outbound_messages` → `OutboundMessages`; unique among `used`. */
export function className(table: string, used: Set<string>): string {
  const words = table.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0);
  let name = words.map((w) => w[0]?.toUpperCase() + w.slice(1)).join("") || "Table";
  if (!/^[A-Za-z_$]/.test(name)) name = `T${name}`;
  if (TAKEN.has(name)) name = `${name}Table`;
  let unique = name;
  for (let n = 2; used.has(unique); n++) unique = `${name}${n}`;
  used.add(unique);
  return unique;
}

/** `next_attempt_at` → `nextAttemptAt`. */
export function camelCase(column: string): string {
  return column.replace(/_+([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The field whose snake_case name is `column`, or undefined when none is (a capital, a double underscore). */
export function snakeField(column: string): string | undefined {
  const field = camelCase(column);
  return IDENTIFIER.test(field) && toSnakeCase(field) === column && field !== "constructor" ? field : undefined;
}

export function isPlainField(name: string): boolean {
  return IDENTIFIER.test(name) && name !== "constructor" && name !== "__proto__";
}

/** A field name as class-field source: bare when it is an identifier, quoted otherwise. */
export function fieldKey(field: string): string {
  return IDENTIFIER.test(field) ? field : JSON.stringify(field);
}
