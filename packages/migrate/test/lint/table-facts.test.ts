import { column, createEngine, dropTable, insert, Model } from "tempest-db-js";
import { afterAll, describe, expect, it } from "vitest";
import { readTableFacts } from "../../src/index.js";
import { col, idCol, table } from "../snapshot-fixtures.js";
import { targets } from "../support/targets.js";

class Filled extends Model {
  static tablename = "migrate_facts_filled";
  id = column.integer().primaryKey();
  status = column.enum("a", "b").notNull();
}
class Empty extends Model {
  static tablename = "migrate_facts_empty";
  id = column.integer().primaryKey();
}

describe.each(targets)("readTableFacts on $name", (target) => {
  const statements: string[] = [];
  const engine = createEngine(target.url, { onQuery: (event) => statements.push(event.sql) });
  afterAll(async () => {
    await engine.dropAll([Filled, Empty]);
    await engine.close();
  });

  it("tells a table with rows from an empty one, reading at most one row", async () => {
    await engine.execute(dropTable(Filled, { ifExists: true })).rowsAffected();
    await engine.execute(dropTable(Empty, { ifExists: true })).rowsAffected();
    await engine.createAll([Filled, Empty]);
    await engine
      .execute(
        insert(Filled).values([
          { id: 1, status: "a" },
          { id: 2, status: "b" },
        ]),
      )
      .rowsAffected();
    statements.length = 0;
    const facts = await readTableFacts(engine, [
      table("migrate_facts_filled", [idCol(), col("status", "enum", { enumValues: ["a", "b"], notNull: true })]),
      table("migrate_facts_empty", [idCol()]),
    ]);
    expect(facts).toEqual({ migrate_facts_filled: { hasRows: true }, migrate_facts_empty: { hasRows: false } });
    expect(statements).toHaveLength(2);
    for (const statement of statements) expect(statement).toMatch(/LIMIT 1$/);
  });
});
