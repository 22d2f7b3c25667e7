import type { SourceMeta } from "../ast/query-node.js";
import { ValidationError } from "../errors.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { TableMeta } from "../schema/table-meta.js";
import { isDerivedColumn, keepConversion } from "./result-columns.js";

/** Aliases are identifiers written in code: letters, digits and underscores, not starting with a digit. */
const ALIAS = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/** Per table: aliases come from code, so a few at most; past this they are not kept. */
const MAX_ALIASES = 64;
const sources = new WeakMap<TableMeta, Map<string, SourceMeta>>();

export function checkAlias(alias: unknown, where: string): string {
  if (typeof alias !== "string" || !ALIAS.test(alias)) {
    throw new ValidationError(
      `${where}: an alias is letters, digits and underscores (not starting with a digit, at most 63), got ${typeof alias === "string" ? JSON.stringify(alias.slice(0, 70)) : typeof alias}`,
    );
  }
  return alias;
}

/**
 * A table under an alias: its columns as copies whose `table` is the alias, so that a compiled
 * reference reads `"alias"."column"`. One frozen object per table and alias.
 */
export function sourceMeta(table: TableMeta, alias: string, where: string | (() => string)): SourceMeta {
  let byAlias = sources.get(table);
  const cached = byAlias?.get(alias);
  if (cached) return cached;
  checkAlias(alias, typeof where === "string" ? where : where());
  const columns = Object.freeze(
    table.columns.map((c): ColumnMeta => {
      const copy: ColumnMeta = Object.freeze({ ...c, table: alias });
      // A CTE's outputs keep their conversion (a count's) and their being derived under the alias.
      if (table.cte || isDerivedColumn(c)) keepConversion(c, copy);
      return copy;
    }),
  );
  const byField = new Map(columns.map((c) => [c.field, c]));
  const source: SourceMeta = Object.freeze({
    table,
    alias,
    columns,
    byField,
    primaryKey: Object.freeze(table.primaryKey.map((c) => byField.get(c.field) as ColumnMeta)),
  });
  if (!byAlias) sources.set(table, (byAlias = new Map()));
  if (byAlias.size < MAX_ALIASES) byAlias.set(alias, source);
  return source;
}
