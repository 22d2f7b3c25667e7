import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine } from "tempest-db-js";
import { column, createEngine, insert, Model, QueryError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { MYSQL_URL, PG_URL } from "./support/targets.js";

/** An error message repeats at most 500 characters of the SQL, the statement's kind and table first; error.sql keeps it whole. */
class Wide extends Model {
  static tablename = "tempest_error_length_wide";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  a = column.text().notNull();
  b = column.text();
  c = column.integer();
}

const sqliteDir = mkdtempSync(join(tmpdir(), "tempest-error-length-"));
const databases = [
  { name: "PostgreSQL", url: PG_URL, quoted: '"tempest_error_length_wide"' },
  { name: "MariaDB", url: MYSQL_URL, quoted: "`tempest_error_length_wide`" },
  { name: "SQLite", url: `sqlite://${join(sqliteDir, "length.db")}`, quoted: '"tempest_error_length_wide"' },
];

describe.each(databases)("$name: the SQL in an error message is cut to a stated length", ({ url, quoted }) => {
  let engine: Engine;

  beforeAll(async () => {
    engine = createEngine(url, { poolSize: 1 });
    await engine.dropAll([Wide]);
    await engine.createAll([Wide]);
  });

  afterAll(async () => {
    await engine.dropAll([Wide]);
    await engine.close();
  });

  it("a failing 120-row insert: kind and table first, at most 500 characters of SQL, the whole text in error.sql", async () => {
    const rows = Array.from({ length: 120 }, (_, i) => ({ id: i % 119, a: `a${i}`, b: null, c: i }));
    const error = await engine
      .execute(insert(Wide).values(rows))
      .rowsAffected()
      .catch((e: unknown) => e);
    expect(QueryError.isInstance(error)).toBe(true);
    const { message, sql } = error as QueryError;
    expect(sql.length).toBeGreaterThan(1_000);
    expect(message).toContain(`sql (INSERT ${quoted}, ${sql.length} characters, the first 500 shown): `);
    expect(message.length).toBeLessThan(1_500);
    expect(message).toContain(sql.slice(0, 500));
    expect(message).not.toContain(sql.slice(0, 501));
  });

  it("a short statement is shown whole, as before", async () => {
    await engine.execute(insert(Wide).values({ id: 1000, a: "x" })).rowsAffected();
    const error = await engine
      .execute(insert(Wide).values({ id: 1000, a: "x" }))
      .rowsAffected()
      .catch((e: unknown) => e);
    const { message, sql } = error as QueryError;
    expect(message.endsWith(`\n  sql: ${sql}`)).toBe(true);
  });
});

afterAll(() => {
  rmSync(sqliteDir, { recursive: true, force: true });
});
