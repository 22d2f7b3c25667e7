import { formatLiteral } from "tempest-db-js";
import type { Target } from "./targets.js";

/** Each server's own EXPLAIN, and what in its output means "read the whole table". */
export const explainers: Record<
  Target["name"],
  { prefix: string; analyze: (table: string) => string; fullScan: (plan: string, table: string) => boolean }
> = {
  PostgreSQL: { prefix: "EXPLAIN ", analyze: (t) => `ANALYZE "${t}"`, fullScan: (plan) => /Seq Scan/.test(plan) },
  MySQL: { prefix: "EXPLAIN ", analyze: (t) => `ANALYZE TABLE \`${t}\``, fullScan: (plan) => /"type":"ALL"/.test(plan) },
  SQLite: {
    prefix: "EXPLAIN QUERY PLAN ",
    analyze: (t) => `ANALYZE "${t}"`,
    fullScan: (plan, t) => new RegExp(`SCAN ${t}\\b(?! USING)`).test(plan),
  },
};

/**
 * The statement with its parameters written in as literals, as the planner sees it for one execution.
 * A list bound as one array (PostgreSQL's `= ANY($1)`) becomes an ARRAY[...] constructor.
 */
export function inline(statement: string, params: readonly unknown[]): string {
  let i = 0;
  const literal = (value: unknown): string =>
    Array.isArray(value) ? `ARRAY[${value.map((item) => formatLiteral(item, false)).join(", ")}]` : formatLiteral(value, false);
  return statement.replace(/\$(\d+)|\?/g, (_, n: string | undefined) => literal(params[n ? Number(n) - 1 : i++]));
}
