import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "@tempest-db-js/dialect-postgres";
import sqlite from "@tempest-db-js/dialect-sqlite";
import type { Dialect, ModelClass } from "tempest-db-js";
import { modelsSnapshot } from "tempest-db-js";
import { afterAll, describe, expect, it } from "vitest";
import { pullModels, sameSchema } from "../../src/index.js";
import { col, idCol, idx, snap, table } from "../snapshot-fixtures.js";
import { tempFolder } from "../support/targets.js";
import { pullModelsFixture } from "./pull-fixtures.js";

const folder = tempFolder("pull");
afterAll(() => folder.remove());

/** Writes the source where it resolves tempest-db-js as application code does, and imports it. */
async function load(source: string, name: string): Promise<ModelClass[]> {
  const path = join(folder.path, `${name}.ts`);
  writeFileSync(path, source);
  return Object.values(await import(path)) as ModelClass[];
}

describe.each([
  { name: "PostgreSQL", dialect: pg as Dialect },
  { name: "SQLite", dialect: sqlite as Dialect },
])("pullModels on a $name schema", ({ name, dialect }) => {
  const schema = modelsSnapshot(dialect, pullModelsFixture);

  it("writes models whose snapshot is the schema", async () => {
    const pulled = pullModels(schema, { check: dialect });
    expect(pulled.warnings).toEqual([]);
    expect(pulled.roundTrips).toBe(true);
    expect(modelsSnapshot(dialect, pulled.models)).toEqual(schema);
    const loaded = await load(pulled.source, `models-${name}`);
    expect(loaded.map((m) => m.name)).toEqual(["PullTags", "PullTickets", "PullUsers"]);
    expect(modelsSnapshot(dialect, loaded)).toEqual(schema);
  });
});

describe("pullModels", () => {
  it("writes the models as the docs write them", () => {
    const { source } = pullModels(modelsSnapshot(pg as Dialect, pullModelsFixture), { check: pg as Dialect });
    expect(source).toContain('import { column, index, Model, op, sql, uniqueIndex } from "tempest-db-js";');
    expect(source).toContain('  static naming = "snake_case";');
    expect(source).toContain("  id = column.uuid().primaryKey().defaultRandom();");
    expect(source).toContain("  createdAt = column.datetime().notNull().default(sql.now());");
    expect(source).toContain('  legacyId = column.integer().name("LegacyID");');
    expect(source).toContain('  ownerId = column.uuid().notNull().references(() => PullUsers, undefined, { onDelete: "cascade" });');
    expect(source).toContain("  parentId = column.bigint().references(() => PullTickets);");
    expect(source).toContain("  big = column.bigint().default(9007199254740993n);");
    expect(source).toContain('  since = column.datetime().default(new Date("2024-05-06T07:08:09.123Z"));');
    expect(source).toContain(
      '    uniqueIndex<PullTickets>("pull_tickets_key", ["ownerId", "idempotencyKey"]).where({ idempotencyKey: op.isNull(false), status: op.in(["open", "closed"]) }),',
    );
    expect(source).toContain('    index<PullTickets>("pull_tickets_urgent", ["priority"]).where({ priority: op.gte(5) }),');
  });

  it("writes source that type-checks", () => {
    const { source } = pullModels(modelsSnapshot(pg as Dialect, pullModelsFixture), { check: pg as Dialect });
    const path = join(folder.path, "typed.ts");
    writeFileSync(path, source);
    // The repository root holds the TypeScript the project builds with.
    const tsc = join(import.meta.dirname, "..", "..", "..", "..", "node_modules", ".bin", "tsc");
    const args = [
      "--noEmit",
      "--strict",
      "--target",
      "ES2022",
      "--module",
      "NodeNext",
      "--moduleResolution",
      "NodeNext",
      "--skipLibCheck",
      path,
    ];
    expect(() => execFileSync(tsc, args, { stdio: "pipe" })).not.toThrow();
  });

  it("says what a model cannot express, and that the result does not round-trip", () => {
    const schema = snap([
      table("weird", [idCol(), col("total", "integer", { generated: { sql: "id * 2", stored: true } }), col("a"), col("b")], {
        primaryKey: ["id"],
        indexes: [idx("weird_odd", ["a"], { where: 'length("a") > 3' })],
        foreignKeys: [
          { name: "weird_pair", columns: ["a", "b"], referencedTable: "weird", referencedColumns: ["a", "b"], onDelete: "no action" },
        ],
      }),
    ]);
    const pulled = pullModels(schema, { check: pg as Dialect });
    expect(pulled.roundTrips).toBe(false);
    const messages = pulled.warnings.map((w) => w.message);
    expect(messages.some((m) => m.startsWith("total is a generated column"))).toBe(true);
    expect(messages.some((m) => m.startsWith("the index weird_odd has a predicate"))).toBe(true);
    expect(messages.some((m) => m.startsWith("the foreign key weird_pair spans several columns"))).toBe(true);
    expect(pulled.source).toContain("// weird: total is a generated column");
  });

  it("gives each table a class name of its own and leaves the imports' names alone", () => {
    const schema = snap([table("model", [idCol()]), table("Model", [idCol()]), table("2fa_codes", [idCol()])]);
    const { models } = pullModels(schema);
    expect(models.map((m) => m.name)).toEqual(["ModelTable", "ModelTable2", "T2faCodes"]);
    expect(sameSchema(modelsSnapshot(pg as Dialect, models), schema)).toBe(true);
  });
});
