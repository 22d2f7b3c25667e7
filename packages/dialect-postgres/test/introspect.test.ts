import type { Engine } from "tempest-db-js";
import { createEngine, introspect, modelsSnapshot, sql } from "tempest-db-js";
import { SchemaParent, schemaTests } from "tempest-db-js/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresDialect } from "../src/index.js";
import { canonicalPgSql, isoText, plainDecimal } from "../src/postgres-schema-text.js";
import { PG_URL } from "./pg-url.js";

describe("PostgreSQL introspection", () => {
  let engine: Engine;
  beforeAll(() => {
    engine = createEngine(PG_URL, { dialect: postgresDialect });
  });
  afterAll(() => engine.close());

  schemaTests(() => engine);

  it("reads a table made by raw DDL: named enum types, generated columns, serials, checks, expression indexes", async () => {
    const run = (text: string) => engine.execute(sql.raw(text)).rowsAffected();
    await run("DROP TABLE IF EXISTS raw_pg_things");
    await run("DROP TABLE IF EXISTS raw_pg_owner");
    await run("DROP TYPE IF EXISTS raw_pg_mood");
    await run("CREATE TYPE raw_pg_mood AS ENUM ('happy', 'sad', 'meh')");
    await run("CREATE TABLE raw_pg_owner (id bigserial PRIMARY KEY, email varchar(200) UNIQUE)");
    await run(`CREATE TABLE raw_pg_things (
      id serial PRIMARY KEY,
      mood raw_pg_mood NOT NULL DEFAULT 'meh',
      price numeric(10, 2) DEFAULT 9.99,
      at timestamp DEFAULT CURRENT_TIMESTAMP,
      tags text[],
      width integer,
      area integer GENERATED ALWAYS AS (width * width) STORED,
      owner bigint REFERENCES raw_pg_owner (id) ON DELETE SET NULL,
      size text CHECK (size IN ('s', 'm', 'l')),
      CONSTRAINT raw_pg_things_pair UNIQUE (width, size)
    )`);
    await run("CREATE INDEX raw_pg_things_lower ON raw_pg_things (lower(size)) WHERE width > 10 OR size IS NULL");
    try {
      const live = await introspect(engine, { tables: ["raw_pg_things", "raw_pg_owner"] });
      const [owner, things] = live.tables;
      expect(owner?.columns.map((c) => [c.name, c.kind, c.unique])).toEqual([
        ["id", "bigint", false],
        ["email", "varchar", true],
      ]);
      const col = (name: string) => things?.columns.find((c) => c.name === name);
      expect(col("id")).toMatchObject({
        kind: "integer",
        notNull: true,
        default: { kind: "sql", sql: `nextval('raw_pg_things_id_seq'::regclass)` },
      });
      expect(col("mood")).toMatchObject({ kind: "enum", enumValues: ["happy", "sad", "meh"], default: { kind: "value", value: "meh" } });
      expect(col("price")).toMatchObject({ kind: "numeric", precision: 10, scale: 2, default: { kind: "value", value: "9.99" } });
      expect(col("at")).toMatchObject({ kind: "datetime", precision: 6, default: { kind: "sql", sql: "CURRENT_TIMESTAMP" } });
      expect(col("tags")?.kind).toBe("text");
      expect(col("area")).toMatchObject({ default: null, generated: { sql: `"width" * "width"`, stored: true } });
      expect(col("size")).toMatchObject({ kind: "enum", enumValues: ["s", "m", "l"] });
      expect(things?.indexes).toEqual([
        { name: "raw_pg_things_lower", columns: ["lower(size)"], unique: false, where: `"width" > '10' OR "size" IS NULL` },
        { name: "raw_pg_things_pair", columns: ["width", "size"], unique: true, where: null },
      ]);
      expect(things?.foreignKeys).toEqual([
        {
          name: "raw_pg_things_owner_fkey",
          columns: ["owner"],
          referencedTable: "raw_pg_owner",
          referencedColumns: ["id"],
          onDelete: "set null",
        },
      ]);
    } finally {
      await run("DROP TABLE raw_pg_things");
      await run("DROP TABLE raw_pg_owner");
      await run("DROP TYPE raw_pg_mood");
    }
  });

  it("reads a virtual generated column on PostgreSQL 18, which earlier servers refuse", async () => {
    const run = (text: string) => engine.execute(sql.raw(text)).rowsAffected();
    const version = Number((await engine.execute(sql.raw("SELECT current_setting('server_version_num') AS v")).first())?.v);
    await run("DROP TABLE IF EXISTS raw_pg_virtual");
    const create = run("CREATE TABLE raw_pg_virtual (w integer, twice integer GENERATED ALWAYS AS (w * 2) VIRTUAL)");
    if (version < 180000) {
      await expect(create).rejects.toThrow(/VIRTUAL|syntax/i);
      return;
    }
    await create;
    try {
      const live = await introspect(engine, { tables: ["raw_pg_virtual"] });
      expect(live.tables[0]?.columns[1]).toMatchObject({ name: "twice", default: null, generated: { sql: `"w" * 2`, stored: false } });
    } finally {
      await run("DROP TABLE raw_pg_virtual");
    }
  });

  it("names a model's foreign key as PostgreSQL does, cut to 63 bytes", () => {
    const snapshot = modelsSnapshot(postgresDialect, [SchemaParent]);
    expect(snapshot.tables[0]?.foreignKeys.map((fk) => fk.name)).toEqual(["tempest_schema_parents_parent_id_fkey"]);
  });
});

describe("PostgreSQL's text normalisation", () => {
  it("moves an exponent's digits, as PostgreSQL deparses a numeric constant", () => {
    expect(["1e+21", "1.5e-7", "-2.25E2", "12e0", "0.5", "7"].map(plainDecimal)).toEqual([
      "1000000000000000000000",
      "0.00000015",
      "-225",
      "12",
      "0.5",
      "7",
    ]);
  });

  it("writes a timestamptz constant as ISO text in UTC, whatever the session zone", () => {
    expect(isoText("2026-01-02 09:49:05.678+05:45")).toBe("2026-01-02T04:04:05.678Z");
    expect(isoText("2026-01-02 00:04:05-03")).toBe("2026-01-02T03:04:05.000Z");
  });

  it("gives the compiler's predicate and the deparsed one one spelling", () => {
    const pairs = [
      [`"s" IN ('a', 'b') AND "n" > 0`, `((s = ANY (ARRAY['a'::text, 'b'::text])) AND (n > (0)::double precision))`],
      [`"b" = '9007199254740993'`, `(b = '9007199254740993'::bigint)`],
      [
        `"r" <> 1.5 AND "t" = '2026-01-02T03:04:05.678Z'::timestamptz`,
        `((r <> '1.5'::double precision) AND (t = '2026-01-02 08:49:05.678+05:45'::timestamp with time zone))`,
      ],
      [`"v" NOT IN ('x', 'y')`, `((v)::text <> ALL (ARRAY['x'::character varying, 'y'::character varying]::text[]))`],
    ];
    for (const [compiled, deparsed] of pairs) expect(canonicalPgSql(deparsed as string)).toBe(canonicalPgSql(compiled as string));
  });
});
