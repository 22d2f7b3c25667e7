import { introspect, modelsSnapshot, sql } from "tempest-db-js";
import { SchemaChild, SchemaParent, schemaTests } from "tempest-db-js/testing";
import { afterAll, describe, expect, it } from "vitest";
import { mysqlDialect } from "../src/index.js";
import { closeEngines, testEngine } from "./support.js";

describe("MySQL/MariaDB introspection", () => {
  const engine = testEngine();
  afterAll(() => closeEngines());

  schemaTests(() => engine);

  it("reads a table made by raw DDL: display widths, quoted defaults, generated columns, CHECK enums, JSON", async () => {
    const run = (text: string) => engine.execute(sql.raw(text)).rowsAffected();
    await run("DROP TABLE IF EXISTS raw_my_things");
    await run("DROP TABLE IF EXISTS raw_my_owner");
    await run("CREATE TABLE raw_my_owner (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, email VARCHAR(200) UNIQUE) ENGINE=InnoDB");
    await run(`CREATE TABLE raw_my_things (
      id INT AUTO_INCREMENT PRIMARY KEY,
      flag BOOL NOT NULL DEFAULT 1,
      note VARCHAR(40) DEFAULT 'it''s \\\\ ok',
      nothing VARCHAR(10) DEFAULT NULL,
      literal_null VARCHAR(10) DEFAULT 'NULL',
      at DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6),
      payload JSON,
      width INT,
      area INT AS (width * width) STORED,
      half INT AS (width / 2) VIRTUAL,
      size VARCHAR(1) CHECK (size IN ('s', 'm')),
      owner BIGINT UNSIGNED,
      CONSTRAINT raw_my_things_owner FOREIGN KEY (owner) REFERENCES raw_my_owner (id) ON DELETE CASCADE,
      UNIQUE KEY raw_my_pair (width, size),
      KEY raw_my_note (note(10))
    ) ENGINE=InnoDB`);
    try {
      const live = await introspect(engine, { tables: ["raw_my_owner", "raw_my_things"] });
      expect(live.dialect).toBe("MySQL");
      const [owner, things] = live.tables;
      expect(owner?.columns.map((c) => [c.name, c.kind, c.unique])).toEqual([
        ["id", "bigint", false],
        ["email", "varchar", true],
      ]);
      const col = (name: string) => things?.columns.find((c) => c.name === name);
      expect(col("flag")).toMatchObject({ kind: "boolean", notNull: true, default: { kind: "value", value: true } });
      expect(col("note")).toMatchObject({ kind: "varchar", length: 40, default: { kind: "value", value: "it's \\ ok" } });
      expect(col("nothing")?.default).toBeNull();
      expect(col("literal_null")?.default).toEqual({ kind: "value", value: "NULL" });
      expect(col("at")).toMatchObject({ kind: "datetime", precision: 6, default: { kind: "sql", sql: "current_timestamp(6)" } });
      expect(col("payload")?.kind).toBe("json");
      expect(col("area")).toMatchObject({ default: null, generated: { sql: "`width` * `width`", stored: true } });
      expect(col("half")?.generated).toEqual({ sql: "`width` / 2", stored: false });
      expect(col("size")).toMatchObject({ kind: "enum", enumValues: ["s", "m"] });
      expect(things?.primaryKey).toEqual(["id"]);
      // The index InnoDB made for the foreign key is not listed; the prefix index is, by its column.
      expect(things?.indexes).toEqual([
        { name: "raw_my_note", columns: ["note"], unique: false, where: null },
        { name: "raw_my_pair", columns: ["width", "size"], unique: true, where: null },
      ]);
      expect(things?.foreignKeys).toEqual([
        {
          name: "raw_my_things_owner",
          columns: ["owner"],
          referencedTable: "raw_my_owner",
          referencedColumns: ["id"],
          onDelete: "cascade",
        },
      ]);
    } finally {
      await run("DROP TABLE raw_my_things");
      await run("DROP TABLE raw_my_owner");
    }
  });

  it("names foreign keys <table>_ibfk_<n> in declaration order; NO ACTION and RESTRICT (one action in InnoDB) read alike", async () => {
    const expected = [
      ["tempest_schema_children_ibfk_1", "cascade"],
      ["tempest_schema_children_ibfk_2", "restrict"],
      ["tempest_schema_children_ibfk_3", "restrict"],
      ["tempest_schema_children_ibfk_4", "restrict"],
      ["tempest_schema_children_ibfk_5", "restrict"],
    ];
    // The same whichever server the models are snapshotted for (a mysql:// URL assumes MySQL 8 until one answers).
    const offline = modelsSnapshot(mysqlDialect, [SchemaChild]).tables[0];
    expect(offline?.foreignKeys.map((fk) => [fk.name, fk.onDelete])).toEqual(expected);
    await engine.execute(sql.raw("SELECT 1")).all();
    const live = modelsSnapshot(engine, [SchemaParent, SchemaChild]).tables.find((t) => t.name === SchemaChild.tablename);
    expect(live?.foreignKeys.map((fk) => [fk.name, fk.onDelete])).toEqual(expected);
  });
});
