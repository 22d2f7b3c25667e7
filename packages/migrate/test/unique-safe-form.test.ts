import { readFileSync } from "node:fs";
import type { Engine } from "tempest-db-js";
import { column, insert, introspect, Model, modelsSnapshot, sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MigrateEvent } from "../src/index.js";
import { generateMigration, MigrationFailedError, migrateDown, migrateUp, sameSchema } from "../src/index.js";
import { engineFor, targets, tempFolder } from "./support/targets.js";

class Account1 extends Model {
  static tablename = "mgu_accounts";
  id = column.integer().primaryKey();
  email = column.varchar(80);
}
class Account2 extends Model {
  static tablename = "mgu_accounts";
  id = column.integer().primaryKey();
  email = column.varchar(80).unique();
}

/**
 * `.unique()` added to a column of a table with rows, on PostgreSQL: the generated migration builds
 * the index with CREATE UNIQUE INDEX CONCURRENTLY outside the transaction, then attaches it with ADD
 * CONSTRAINT ... UNIQUE USING INDEX; a build that fails on duplicates leaves no INVALID index, and
 * after the data is fixed `up --resume` finishes it. The schema is the models', and down drops it.
 */
describe.each(targets.filter((t) => t.name === "PostgreSQL"))("adding UNIQUE on $name", (target) => {
  let engine: Engine;
  const folder = tempFolder("unique-safe");
  const history = "mgu_history";
  beforeAll(async () => {
    engine = engineFor(target);
    await engine.execute(sql.raw(`DROP TABLE IF EXISTS mgu_accounts, ${history}`)).rowsAffected();
    await engine.createAll([Account1]);
    await engine
      .execute(
        insert(Account1).values([
          { id: 1, email: "a@x" },
          { id: 2, email: "a@x" },
          { id: 3, email: "c@x" },
        ]),
      )
      .rowsAffected();
  });
  afterAll(async () => {
    await engine.execute(sql.raw(`DROP TABLE IF EXISTS mgu_accounts, ${history}`)).rowsAffected();
    await engine.close();
    folder.remove();
  });

  const invalidIndexes = async () =>
    (
      await engine
        .execute(
          sql.raw(
            "SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE NOT i.indisvalid AND c.relname = 'mgu_accounts_email_key'",
          ),
        )
        .all()
    ).length;

  it("generates the concurrent form, recovers from a failed build, and reaches the models", async () => {
    const generated = await generateMigration({
      engine,
      models: [Account2],
      folder: folder.path,
      name: "unique email",
      from: "database",
      allowDestructive: "all",
    });
    expect(generated.warnings).toEqual([]);
    const file = readFileSync(generated.path as string, "utf8");
    expect(file).toContain('CREATE UNIQUE INDEX CONCURRENTLY \\"mgu_accounts_email_key\\" ON \\"mgu_accounts\\" (\\"email\\")');
    expect(file).toContain(
      'ALTER TABLE \\"mgu_accounts\\" ADD CONSTRAINT \\"mgu_accounts_email_key\\" UNIQUE USING INDEX \\"mgu_accounts_email_key\\"',
    );

    const events: MigrateEvent[] = [];
    const options = { engine, folder: folder.path, historyTable: history, onEvent: (e: MigrateEvent) => events.push(e) };
    const error = (await migrateUp(options).catch((e: unknown) => e)) as MigrationFailedError;
    expect(MigrationFailedError.isInstance(error)).toBe(true);
    expect(error.failed).toMatch(/^CREATE UNIQUE INDEX CONCURRENTLY/);
    expect(events.some((e) => e.event === "invalid-index")).toBe(true);
    expect(await invalidIndexes()).toBe(0);

    await engine.execute(sql.raw("UPDATE mgu_accounts SET email = 'b@x' WHERE id = 2")).rowsAffected();
    expect(await migrateUp({ ...options, resume: true })).toMatchObject({ applied: [generated.name] });
    expect(sameSchema(await introspect(engine, { tables: ["mgu_accounts"] }), modelsSnapshot(engine, [Account2]))).toBe(true);
    const twin = await engine
      .execute(insert(Account2).values({ id: 4, email: "a@x" }))
      .rowsAffected()
      .catch((e: unknown) => e);
    expect(twin).toBeInstanceOf(Error);

    await migrateDown(options);
    expect(sameSchema(await introspect(engine, { tables: ["mgu_accounts"] }), modelsSnapshot(engine, [Account1]))).toBe(true);
  });
});
