import type { ColumnDefaultSnapshot, ColumnSnapshot } from "tempest-db-js";

/**
 * Whether PostgreSQL rewrites the table (and rebuilds its indexes) to change a column's type from
 * `from` to `to`. It does not when the new type is binary-coercible and needs no check of the old
 * values: a longer or unbounded varchar, varchar or an enum's text to text, numeric with more
 * precision and the same scale, or unconstrained numeric. Everything else rewrites.
 */
export function typeChangeRewrites(from: ColumnSnapshot, to: ColumnSnapshot): boolean {
  if (from.kind === to.kind) {
    switch (from.kind) {
      case "varchar":
        return !(to.length === null || (from.length !== null && to.length >= from.length));
      case "numeric":
        return !(to.precision === null || (from.precision !== null && to.scale === from.scale && to.precision >= from.precision));
      default:
        // Same kind, same storage: an enum's values are its CHECK, not its type.
        return false;
    }
  }
  // Models store enums as text with a CHECK: text, varchar and enum differ only in the check and the length.
  const textual = (c: ColumnSnapshot) => c.kind === "text" || c.kind === "enum";
  if (textual(to) && to.kind !== "varchar" && (textual(from) || from.kind === "varchar")) return false;
  return true;
}

/** Whether a column's type, as the snapshot describes it, changes at all. */
export function typeChanges(from: ColumnSnapshot, to: ColumnSnapshot): boolean {
  return from.kind !== to.kind || from.length !== to.length || from.precision !== to.precision || from.scale !== to.scale;
}

/**
 * Functions known not to be volatile that defaults use; any other function call in a default's SQL
 * counts as volatile. PostgreSQL 11+ adds a column with a non-volatile default without writing a
 * row (the value is kept in the catalog); a volatile one (random(), gen_random_uuid(),
 * clock_timestamp(), nextval()) is computed for every row, which rewrites the table.
 */
const STABLE_FUNCTIONS = new Set([
  "now",
  "current_date",
  "current_time",
  "current_timestamp",
  "localtime",
  "localtimestamp",
  "transaction_timestamp",
  "statement_timestamp",
]);

export function volatileDefault(fallback: ColumnDefaultSnapshot | null): boolean {
  if (fallback === null || fallback.kind === "value") return false;
  // A random uuid is gen_random_uuid() where the database has it.
  if (fallback.kind === "random") return true;
  const withoutStrings = fallback.sql.replace(/'(?:[^']|'')*'/g, "''");
  for (const match of withoutStrings.matchAll(/([A-Za-z_][A-Za-z0-9_.]*)\s*\(/g)) {
    const name = (match[1] as string).toLowerCase().split(".").pop() as string;
    if (!STABLE_FUNCTIONS.has(name)) return true;
  }
  return false;
}
