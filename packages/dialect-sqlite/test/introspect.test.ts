import { introspect, modelsSnapshot, sql } from "tempest-db-js";
import { SchemaParent, schemaTests } from "tempest-db-js/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqliteDialect } from "../src/index.js";
import type { TestDatabase } from "./support/engines.js";
import { openDatabase, targets } from "./support/engines.js";

for (const target of targets) {
  describe(`SQLite (${target}) introspection`, () => {
    let db: TestDatabase;
    beforeAll(() => {
      db = openDatabase(target);
    });
    afterAll(() => db.close());

    schemaTests(() => db.engine);

    it("reads a table made by raw DDL: declared types, CHECK enums, generated columns, implicit references", async () => {
      const { engine } = db;
      await engine.execute(sql.raw("CREATE TABLE raw_owner (id INTEGER PRIMARY KEY, name TEXT)")).rowsAffected();
      await engine
        .execute(
          sql.raw(
            `CREATE TABLE raw_things (
              id INTEGER PRIMARY KEY,
              flag BOOLEAN NOT NULL DEFAULT TRUE,
              big BIGINT,
              title VARCHAR(80) UNIQUE,
              price DECIMAL(10, 2) DEFAULT 0,
              seen_at DATETIME DEFAULT CURRENT_TIMESTAMP,
              payload JSON,
              anything,
              mood TEXT CHECK (mood IN ('happy', 'sad')),
              doubled INTEGER GENERATED ALWAYS AS (id * 2) STORED,
              tripled INTEGER AS (id*3),
              owner INTEGER REFERENCES raw_owner ON DELETE CASCADE,
              UNIQUE (big, title)
            )`,
          ),
        )
        .rowsAffected();
      await engine.execute(sql.raw("CREATE INDEX raw_things_mood ON raw_things (mood) WHERE mood = 'happy' and big>0")).rowsAffected();
      try {
        const live = await introspect(engine, { tables: ["raw_things"] });
        expect(live.dialect).toBe("SQLite");
        const [table] = live.tables;
        const col = (name: string) => table?.columns.find((c) => c.name === name);
        expect(table?.primaryKey).toEqual(["id"]);
        expect(col("id")).toMatchObject({ kind: "integer", notNull: true });
        expect(col("flag")).toMatchObject({ kind: "boolean", notNull: true, default: { kind: "value", value: true } });
        expect(col("big")?.kind).toBe("bigint");
        expect(col("title")).toMatchObject({ kind: "varchar", length: 80, unique: true });
        expect(col("price")).toMatchObject({ kind: "numeric", precision: 10, scale: 2, default: { kind: "value", value: "0" } });
        expect(col("seen_at")).toMatchObject({ kind: "datetime", default: { kind: "sql", sql: "CURRENT_TIMESTAMP" } });
        expect(col("payload")?.kind).toBe("json");
        expect(col("anything")?.kind).toBe("bytes");
        expect(col("mood")).toMatchObject({ kind: "enum", enumValues: ["happy", "sad"] });
        expect(col("doubled")?.generated).toEqual({ sql: `"id" * 2`, stored: true });
        expect(col("tripled")?.generated).toEqual({ sql: `"id" * 3`, stored: false });
        expect(table?.indexes).toEqual([
          { name: "raw_things_mood", columns: ["mood"], unique: false, where: `"mood" = 'happy' AND "big" > 0` },
          { name: "sqlite_autoindex_raw_things_2", columns: ["big", "title"], unique: true, where: null },
        ]);
        expect(table?.foreignKeys).toEqual([
          { name: null, columns: ["owner"], referencedTable: "raw_owner", referencedColumns: ["id"], onDelete: "cascade" },
        ]);
      } finally {
        await engine.execute(sql.raw("DROP TABLE raw_things")).rowsAffected();
        await engine.execute(sql.raw("DROP TABLE raw_owner")).rowsAffected();
      }
    });
  });
}

describe("SQLite modelsSnapshot without a server", () => {
  it("takes the dialect object and gives what an engine gives", () => {
    const snapshot = modelsSnapshot(sqliteDialect, [SchemaParent]);
    expect(snapshot.dialect).toBe("SQLite");
    const token = snapshot.tables[0]?.columns.find((c) => c.name === "token");
    // No uuid function on SQLite: the builder fills defaultRandom() in, so the table has no default.
    expect(token).toMatchObject({ kind: "text", default: null, notNull: true });
  });
});
