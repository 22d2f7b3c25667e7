import type { Column, ColumnSnapshot, Executor, TableSnapshot } from "tempest-db-js";
import { column, Model, select } from "tempest-db-js";

/** What the lint knows about the live tables: whether each holds rows. A table not listed is assumed to hold some. */
export type TableFacts = Readonly<Record<string, { readonly hasRows: boolean }>>;

/**
 * Reads whether each table holds a row: one `SELECT <first column> ... LIMIT 1` per table, built
 * with the query builder (the dialect quotes every name), reading at most one row whatever the
 * table's size. Pass the tables of the live schema (the plan's `from`).
 */
export async function readTableFacts(executor: Executor, tables: readonly TableSnapshot[]): Promise<TableFacts> {
  const facts: Record<string, { hasRows: boolean }> = {};
  for (const table of tables) {
    const first = table.columns[0];
    if (!first) continue;
    const rows = await executor.execute(select(probeModel(table.name, first), ["probe"]).limit(1)).all();
    facts[table.name] = { hasRows: rows.length > 0 };
  }
  return facts;
}

/** A model over one column of a table, declared with the column's own kind so that its value decodes. */
function probeModel(tablename: string, snapshot: ColumnSnapshot) {
  const probe = probeColumn(snapshot).name(snapshot.name);
  return class Probe extends Model {
    static tablename = tablename;
    probe = probe;
  };
}

function probeColumn(snapshot: ColumnSnapshot): Column<unknown> {
  switch (snapshot.kind) {
    case "varchar":
      return column.varchar(snapshot.length ?? 1);
    case "enum":
      return column.enum(...((snapshot.enumValues ?? [""]) as [string, ...string[]]));
    case "numeric":
      return column.numeric();
    default:
      return column[snapshot.kind]();
  }
}
