import type { SchemaChange, TableSnapshot } from "tempest-db-js";
import {
  addColumn,
  applySchemaChange,
  applySchemaSteps,
  ConstraintViolationError,
  column,
  deleteFrom,
  index,
  insert,
  introspect,
  Model,
  modelsSnapshot,
  QueryError,
  runSchemaStep,
  schemaSteps,
  select,
  sql,
  UnsupportedFeatureError,
  uniqueIndex,
  ValidationError,
} from "tempest-db-js";
import { columnSnapshot } from "tempest-db-js/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TestDatabase } from "./support/engines.js";
import { openDatabase, targets } from "./support/engines.js";

class Author extends Model {
  static tablename = "sc_authors";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  email = column.varchar(80).notNull().unique();
  name = column.text();
}

/** The authors table one migration later: a new NOT NULL column with a default, `name` now NOT NULL. */
class AuthorV2 extends Model {
  static tablename = "sc_authors";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  email = column.varchar(80).notNull().unique();
  name = column.text().notNull().default("");
  rank = column.integer().notNull().default(0);
}

class Book extends Model {
  static tablename = "sc_books";
  static naming = "snake_case";
  static indexes = [
    index<Book>("sc_books_by_title", ["title"]),
    uniqueIndex<Book>("sc_books_one_draft", ["authorId"]).where({ status: "draft" }),
  ];
  id = column.integer().primaryKey();
  authorId = column
    .integer()
    .notNull()
    .references(() => Author, "id", { onDelete: "cascade" });
  title = column.text().notNull();
  status = column.enum("draft", "published").notNull().default("draft");
}

const AUTHORS = 120;
const BOOKS = 360;

async function seed(db: TestDatabase): Promise<void> {
  const { engine } = db;
  await engine.createAll([Author, Book]);
  const authors = Array.from({ length: AUTHORS }, (_, i) => ({
    id: i + 1,
    email: `a${i}@example.com`,
    name: i % 7 ? `Author ${i}` : null,
  }));
  await engine.execute(insert(Author).values(authors)).rowsAffected();
  const books = Array.from({ length: BOOKS }, (_, i) => ({
    id: i + 1,
    authorId: (i % AUTHORS) + 1,
    title: `Book ${i} 'q' ü`,
    status: i < AUTHORS ? ("draft" as const) : ("published" as const),
  }));
  await engine.execute(insert(Book).values(books)).rowsAffected();
}

const table = async (db: TestDatabase, name: string): Promise<TableSnapshot> => {
  const snapshot = await introspect(db.engine, { tables: [name] });
  return snapshot.tables[0] as TableSnapshot;
};

const foreignKeysOn = async (db: TestDatabase) => (await db.engine.execute(sql.raw("PRAGMA foreign_keys")).one()).foreign_keys;

describe.each(targets)("schema changes on a SQLite %s database", (target) => {
  let db: TestDatabase;

  beforeEach(async () => {
    db = openDatabase(target);
    await seed(db);
  });

  afterEach(() => db.close());

  it("rebuilds a table others reference: every row, index and foreign key survives, and the schema is the new model's", async () => {
    const { engine } = db;
    const authorsBefore = await engine.execute(select(Author).orderBy("id")).all();
    const booksBefore = await engine.execute(select(Book).orderBy("id")).all();
    const bookTable = await table(db, "sc_books");
    const before = await table(db, "sc_authors");
    const after = modelsSnapshot(engine, [AuthorV2]).tables[0] as TableSnapshot;
    // `name` becomes NOT NULL: its NULLs are filled in first, as a migration's data step would.
    await engine.execute(sql.raw("UPDATE sc_authors SET name = '' WHERE name IS NULL")).rowsAffected();
    // What no snapshot holds and DROP TABLE takes or breaks: the table's own trigger, a view on it, a
    // trigger of another table that writes to it (SQLite's twelve steps recreate them).
    await engine.execute(sql.raw("CREATE TABLE sc_audit (what text)")).rowsAffected();
    await engine
      .execute(
        sql.raw("CREATE TRIGGER sc_authors_audit AFTER INSERT ON sc_authors BEGIN INSERT INTO sc_audit VALUES ('author ' || new.id); END"),
      )
      .rowsAffected();
    await engine.execute(sql.raw("CREATE VIEW sc_author_emails AS SELECT id, email FROM sc_authors")).rowsAffected();
    await engine
      .execute(
        sql.raw(
          "CREATE TRIGGER sc_books_touch AFTER UPDATE ON sc_books BEGIN UPDATE sc_authors SET email = email WHERE id = new.author_id; END",
        ),
      )
      .rowsAffected();
    const change: SchemaChange = { kind: "rebuildTable", before, after, columnMap: { id: "id", email: "email", name: "name", rank: null } };
    const steps = await schemaSteps(engine, change);
    expect(steps.map((s) => [s.transactional, s.failsOnRows, s.restores, s.replays])).toEqual([
      [false, false, false, false],
      [true, true, false, false],
      [true, false, false, false],
      [true, false, false, false],
      [true, false, false, false],
      [true, false, false, false],
      [true, false, false, false],
      [true, false, false, false],
      [true, false, false, false],
      [true, false, false, true],
      [true, false, false, false],
      [true, true, false, false],
      [false, false, true, false],
      [false, false, true, false],
    ]);
    expect(steps[0]?.sql).toBe("PRAGMA foreign_keys = OFF");
    expect(steps[2]?.sql).toMatch(/^CREATE TEMP TABLE "tempest_rebuild_triggers" AS SELECT sql FROM sqlite_schema WHERE type = 'trigger'/);
    expect(steps[4]?.sql).toBe(
      `INSERT INTO "sc_authors__tempest_rebuild" ("id", "email", "name") SELECT "id", "email", "name" FROM "sc_authors"`,
    );
    expect(steps.slice(6, 9).map((s) => s.sql)).toEqual([
      "PRAGMA legacy_alter_table = ON",
      `ALTER TABLE "sc_authors__tempest_rebuild" RENAME TO "sc_authors"`,
      "PRAGMA legacy_alter_table = OFF",
    ]);
    expect(steps[11]?.sql).toBe("PRAGMA foreign_key_check");
    await applySchemaSteps(engine, steps);

    const objects = await engine
      .execute(sql.raw("SELECT type, name, tbl_name FROM sqlite_schema WHERE type IN ('trigger', 'view') ORDER BY name"))
      .all();
    expect(objects).toEqual([
      { type: "view", name: "sc_author_emails", tbl_name: "sc_author_emails" },
      { type: "trigger", name: "sc_authors_audit", tbl_name: "sc_authors" },
      { type: "trigger", name: "sc_books_touch", tbl_name: "sc_books" },
    ]);
    expect((await engine.execute(sql.raw("PRAGMA legacy_alter_table")).one()).legacy_alter_table).toBe(0);
    expect(await engine.execute(sql.raw("SELECT name FROM sqlite_temp_schema")).all()).toEqual([]);
    expect(await engine.execute(sql.raw("PRAGMA foreign_key_check")).all()).toEqual([]);
    // They act on the new table: the view reads it, the trigger fires on it, the other table's trigger writes to it.
    expect(await engine.execute(sql.raw("SELECT count(*) AS n FROM sc_author_emails")).scalar()).toBe(AUTHORS);
    await engine.execute(insert(AuthorV2).values({ id: 600, email: "new@example.com", name: "n" })).rowsAffected();
    expect(await engine.execute(sql.raw("SELECT what FROM sc_audit")).all()).toEqual([{ what: "author 600" }]);
    await engine.execute(sql.raw("UPDATE sc_books SET title = title WHERE id = 1")).rowsAffected();
    await engine.execute(deleteFrom(AuthorV2).where({ id: 600 })).rowsAffected();

    expect(await introspect(engine, { tables: ["sc_authors"] })).toEqual(modelsSnapshot(engine, [AuthorV2]));
    expect(await table(db, "sc_books")).toEqual(bookTable);
    const authorsAfter = await engine.execute(select(AuthorV2).orderBy("id")).all();
    expect(authorsAfter).toEqual(authorsBefore.map((a) => ({ ...a, name: a.name ?? "", rank: 0 })));
    expect(await engine.execute(select(Book).orderBy("id")).all()).toEqual(booksBefore);
    expect(await foreignKeysOn(db)).toBe(1);
    // The books' foreign key now points at the new table, and still acts: refused, then cascading.
    const bad = await engine
      .execute(insert(Book).values({ id: 999, authorId: 999, title: "x" }))
      .rowsAffected()
      .catch((e: unknown) => e);
    expect(ConstraintViolationError.isInstance(bad)).toBe(true);
    await engine.execute(deleteFrom(AuthorV2).where({ id: 1 })).rowsAffected();
    expect(await engine.execute(select(Book).where({ authorId: 1 })).all()).toEqual([]);
    expect(await engine.execute(select(Book)).all()).toHaveLength(BOOKS - BOOKS / AUTHORS);
    // The unique constraint and both indexes came back.
    const dup = await engine
      .execute(insert(AuthorV2).values({ id: 500, email: "a5@example.com" }))
      .rowsAffected()
      .catch((e: unknown) => e);
    expect(ConstraintViolationError.isInstance(dup)).toBe(true);
  });

  it("fails loudly when PRAGMA foreign_key_check finds a violation, and rolls the whole rebuild back", async () => {
    const { engine } = db;
    const before = await table(db, "sc_books");
    const booksBefore = await engine.execute(select(Book).orderBy("id")).all();
    // A new foreign key the rows break: every book's id names no author above 120.
    const broken = { ...before, foreignKeys: [...before.foreignKeys, { ...before.foreignKeys[0]!, columns: ["id"] }] };
    const error = await applySchemaChange(engine, { kind: "rebuildTable", before, after: broken, columnMap: identity(before) }).catch(
      (e: unknown) => e,
    );
    expect(ConstraintViolationError.isInstance(error)).toBe(true);
    expect((error as ConstraintViolationError).kind).toBe("foreign-key-violation");
    expect((error as Error).message).toMatch(/foreign key violation/);
    expect(await table(db, "sc_books")).toEqual(before);
    expect(await engine.execute(select(Book).orderBy("id")).all()).toEqual(booksBefore);
    expect(await foreignKeysOn(db)).toBe(1);
  });

  it("refuses to drop the old table when the rebuild runs inside a transaction, where PRAGMA foreign_keys does nothing", async () => {
    const { engine } = db;
    const before = await table(db, "sc_authors");
    const steps = await schemaSteps(engine, { kind: "rebuildTable", before, after: before, columnMap: identity(before) });
    const inside = engine.transaction(async (tx) => {
      for (const step of steps) await runSchemaStep(tx, step);
    });
    const error = await inside.catch((e: unknown) => e);
    expect(QueryError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/foreign_keys is still ON/);
    // Nothing was dropped or cascaded.
    expect(await engine.execute(select(Book)).all()).toHaveLength(BOOKS);
    expect(await engine.execute(select(Author)).all()).toHaveLength(AUTHORS);
    // applySchemaSteps refuses the same thing before running anything.
    const refused = await engine.transaction((tx) => applySchemaSteps(tx, steps)).catch((e: unknown) => e);
    expect(ValidationError.isInstance(refused)).toBe(true);
  });

  it("ADD COLUMN keeps a column's foreign key, and refuses by name what SQLite cannot add", async () => {
    const { engine } = db;
    class Review extends Model {
      static tablename = "sc_books";
      static naming = "snake_case";
      id = column.integer().primaryKey();
      reviewerId = column.integer().references(() => Author);
      isbn = column.varchar(20).unique();
      addedAt = column.datetime().notNull().default(sql.now());
      pages = column.integer().notNull();
      editorId = column
        .integer()
        .default(1)
        .references(() => Author);
    }
    const compiled = engine.compile(addColumn(Review, "reviewerId"));
    expect(compiled.sql).toBe(`ALTER TABLE "sc_books" ADD COLUMN "reviewer_id" INTEGER REFERENCES "sc_authors" ("id")`);
    await engine.execute(addColumn(Review, "reviewerId")).rowsAffected();
    const bad = await engine
      .execute(sql.raw("UPDATE sc_books SET reviewer_id = 9999 WHERE id = 1"))
      .rowsAffected()
      .catch((e: unknown) => e);
    expect(ConstraintViolationError.isInstance(bad)).toBe(true);
    for (const [field, feature] of [
      ["isbn", /UNIQUE/],
      ["addedAt", /expression default/],
      ["pages", /NOT NULL without a default/],
      ["editorId", /a foreign key and a default/],
    ] as const) {
      let error: unknown;
      try {
        engine.compile(addColumn(Review, field));
      } catch (e) {
        error = e;
      }
      expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
      expect((error as UnsupportedFeatureError).dialect).toBe("SQLite");
      expect((error as UnsupportedFeatureError).feature).toMatch(feature);
      expect((error as UnsupportedFeatureError).hint).toMatch(/rebuildTable/);
    }
    // The snapshot form refuses the same, before anything runs.
    const unique = columnSnapshot("isbn", "varchar", { unique: true, length: 20 });
    await expect(schemaSteps(engine, { kind: "addColumn", table: "sc_books", column: unique })).rejects.toThrow(/UNIQUE/);
  });

  it("refuses the ALTERs SQLite lacks, naming the rebuild as the way out", async () => {
    const { engine } = db;
    const books = await table(db, "sc_books");
    const title = books.columns.find((c) => c.name === "title")!;
    const refusals: SchemaChange[] = [
      { kind: "alterColumn", table: "sc_books", from: title, to: { ...title, notNull: false } },
      { kind: "addForeignKey", table: "sc_books", foreignKey: { ...books.foreignKeys[0]!, name: "fk" }, notValid: false },
      { kind: "dropForeignKey", table: "sc_books", foreignKey: { ...books.foreignKeys[0]!, name: "fk" } },
      { kind: "addCheck", table: "sc_books", name: "c", notNullOf: "title", notValid: false },
      { kind: "dropCheck", table: "sc_books", name: "c", notNullOf: "title" },
      { kind: "createIndex", table: "sc_books", index: books.indexes[0]!, concurrently: true },
    ];
    for (const change of refusals) {
      const error = await schemaSteps(engine, change).catch((e: unknown) => e);
      expect(UnsupportedFeatureError.isInstance(error), change.kind).toBe(true);
      expect((error as UnsupportedFeatureError).dialect).toBe("SQLite");
      expect((error as UnsupportedFeatureError).hint.length).toBeGreaterThan(20);
    }
    const drop = await schemaSteps(engine, {
      kind: "dropColumn",
      table: "sc_authors",
      column: columnSnapshot("email", "varchar", { unique: true }),
    }).catch((e: unknown) => e);
    expect((drop as UnsupportedFeatureError).feature).toMatch(/UNIQUE column/);
  });
});

function identity(table: TableSnapshot): Record<string, string> {
  return Object.fromEntries(table.columns.map((c) => [c.name, c.name]));
}
