import { readFileSync } from "node:fs";
import type { Engine, ModelClass } from "tempest-db-js";
import { column, index, introspect, Model, sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkSchema, generateMigration, listMigrations, migrateDown, migrateUp, sameSchema } from "../src/index.js";
import { engineFor, targets, tempFolder } from "./support/targets.js";

// Three versions of a small ticketing schema: created; then a nullable due date with an index, a
// NOT NULL column with a default on a table with rows, a renamed column and a foreign key; then a
// dropped column.
class Team1 extends Model {
  static tablename = "mgh_teams";
  id = column.integer().primaryKey();
  name = column.varchar(80).notNull().unique();
}
class Ticket1 extends Model {
  static tablename = "mgh_tickets";
  static naming = "snake_case" as const;
  id = column.integer().primaryKey();
  title = column.text().notNull();
  status = column.enum("open", "closed").notNull().default("open");
  legacy = column.text();
  teamId = column.integer();
}

class Team2 extends Team1 {}
class Ticket2 extends Model {
  static tablename = "mgh_tickets";
  static naming = "snake_case" as const;
  static indexes = [index("mgh_tickets_due", ["dueAt"])];
  id = column.integer().primaryKey();
  subject = column.text().notNull();
  status = column.enum("open", "closed").notNull().default("open");
  legacy = column.text();
  teamId = column.integer().references(() => Team2, "id");
  dueAt = column.datetime();
  priority = column.integer().notNull().default(3);
}

class Ticket3 extends Model {
  static tablename = "mgh_tickets";
  static naming = "snake_case" as const;
  static indexes = [index("mgh_tickets_due", ["dueAt"])];
  id = column.integer().primaryKey();
  subject = column.text().notNull();
  status = column.enum("open", "closed").notNull().default("open");
  teamId = column.integer().references(() => Team2, "id");
  dueAt = column.datetime();
  priority = column.integer().notNull().default(3);
}

const history = "mgh_history";
const tables = ["mgh_tickets", "mgh_teams", history];

async function dropAll(engine: Engine): Promise<void> {
  for (const t of tables) await engine.execute(sql.raw(`DROP TABLE IF EXISTS ${t}`)).rowsAffected();
}

describe.each(targets)("a generated migration history on $name", (target) => {
  let engine: Engine;
  const folder = tempFolder("history");
  beforeAll(() => {
    engine = engineFor(target);
  });
  afterAll(async () => {
    await dropAll(engine);
    await engine.close();
    folder.remove();
  });

  it("applied from scratch, gives the schema createAll gives; down reverts it all; check passes", async () => {
    await dropAll(engine);
    const options = { engine, folder: folder.path, historyTable: history };
    const versions: [string, ModelClass<any>[], object][] = [
      ["create tickets", [Team1, Ticket1], {}],
      ["due dates", [Team2, Ticket2], { renames: { columns: { "mgh_tickets.title": "subject" } } }],
      ["drop legacy", [Team2, Ticket3], { allowDestructive: ["drop column mgh_tickets.legacy"] }],
    ];
    let t = Date.UTC(2026, 0, 1);
    for (const [name, models, extra] of versions) {
      const result = await generateMigration({ ...options, models, name, now: new Date((t += 60_000)), ...extra });
      expect(result.written, name).toBe(true);
      // Applied as they come, with a row in between, as a team would.
      await migrateUp(options);
      if (name === "create tickets") {
        await engine.execute(sql.raw("INSERT INTO mgh_teams (id, name) VALUES (1, 'core')")).rowsAffected();
        await engine.execute(sql.raw("INSERT INTO mgh_tickets (id, title, team_id) VALUES (1, 'first', 1)")).rowsAffected();
      }
    }
    const files = listMigrations(folder.path);
    expect(files.map((f) => f.name)).toEqual(["20260101000100_create_tickets", "20260101000200_due_dates", "20260101000300_drop_legacy"]);
    const second = readFileSync(files[1]?.path as string, "utf8");
    expect(second).toContain('"kind": "renameColumn"');
    // SQLite cannot add a foreign key to an existing column: the documented table rebuild, kept in one transaction.
    expect(second).toContain(target.name === "SQLite" ? '"kind": "rebuildTable"' : '"kind": "addColumn"');
    // The row kept through the rename, the new NOT NULL column filled by its default.
    expect(await engine.execute(sql.raw("SELECT id, subject, priority FROM mgh_tickets")).all()).toEqual([
      { id: 1, subject: "first", priority: 3 },
    ]);
    expect((await checkSchema({ ...options, models: [Team2, Ticket3] })).ok).toBe(true);
    const nothing = await generateMigration({ ...options, models: [Team2, Ticket3] });
    expect(nothing.written).toBe(false);

    // From scratch: every migration in order on an empty database.
    await dropAll(engine);
    expect(await migrateUp(options)).toMatchObject({ applied: files.map((f) => f.name) });
    const migrated = await introspect(engine, { tables: ["mgh_teams", "mgh_tickets"] });
    expect(await migrateDown({ ...options, count: 3 })).toMatchObject({ reverted: files.map((f) => f.name).reverse() });
    expect((await introspect(engine, { tables: ["mgh_teams", "mgh_tickets"] })).tables).toEqual([]);
    await engine.createAll([Team2, Ticket3]);
    const created = await introspect(engine, { tables: ["mgh_teams", "mgh_tickets"] });
    expect(sameSchema(migrated, created), JSON.stringify({ migrated, created }, null, 1)).toBe(true);
  });
});
