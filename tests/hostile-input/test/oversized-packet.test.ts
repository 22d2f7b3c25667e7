import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine } from "tempest-db-js";
import { column, createEngine, insert, Model, select, sql, TempestError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { MYSQL_URL, PG_URL } from "./support/targets.js";

/**
 * A statement larger than the server takes (MariaDB: max_allowed_packet) fails with a typed error, and
 * the connection it broke is discarded: the next, unrelated statement on the same one-connection pool
 * runs (it failed with ECONNRESET when the broken connection was handed out again).
 */
class Blob extends Model {
  static tablename = "tempest_oversized_blobs";
  id = column.integer().primaryKey();
  body = column.text();
}

const sqliteDir = mkdtempSync(join(tmpdir(), "tempest-oversized-"));
const databases = [
  { name: "PostgreSQL", url: PG_URL },
  { name: "MariaDB", url: MYSQL_URL },
  { name: "SQLite", url: `sqlite://${join(sqliteDir, "oversized.db")}` },
];

describe.each(databases)("$name: after an oversized statement the pool still works", ({ name, url }) => {
  let engine: Engine;
  let limit = 0;

  beforeAll(async () => {
    engine = createEngine(url, { poolSize: 1 });
    await engine.dropAll([Blob]);
    await engine.createAll([Blob]);
    if (name === "MariaDB") {
      const [row] = await engine.execute(sql.raw("SELECT @@max_allowed_packet AS n")).all();
      limit = Number((row as { n: unknown }).n);
    }
  });

  afterAll(async () => {
    await engine.dropAll([Blob]);
    await engine.close();
  });

  it("the oversized insert fails typed or succeeds; the next statement runs either way", async () => {
    // Past MariaDB's packet limit; on the other two a large value that they take.
    const size = name === "MariaDB" ? limit + 1024 : 2_000_000;
    const outcome = await engine
      .execute(insert(Blob).values({ id: 1, body: "x".repeat(size) }))
      .rowsAffected()
      .catch((e: unknown) => e);
    if (name === "MariaDB") {
      expect(TempestError.isInstance(outcome)).toBe(true);
      expect((outcome as Error).message).toMatch(/max_allowed_packet/);
      expect((outcome as Error).name).toBe("ConnectionError");
    } else expect(outcome).toBe(1);
    for (let i = 0; i < 3; i++) expect(await engine.execute(select(Blob, ["id"]).where({ id: 99 })).all()).toEqual([]);
  });
});

afterAll(() => {
  rmSync(sqliteDir, { recursive: true, force: true });
});
