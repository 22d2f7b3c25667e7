import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPackedProject, runInProject, typecheckProject } from "./packed-project.js";

const PG_URL = process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const MYSQL_URL = process.env.TEMPEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";

let dir: string;

beforeAll(() => {
  dir = createPackedProject();
  // The guide connects as app@localhost/app: make sure that role and database exist.
  execFileSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import pg from "pg"; const c = new pg.Client({ connectionString: ${JSON.stringify(PG_URL)} }); await c.connect();
       if (!(await c.query("select 1 from pg_roles where rolname='app'")).rowCount) await c.query("create role app login");
       if (!(await c.query("select 1 from pg_database where datname='app'")).rowCount) await c.query("create database app owner app");
       await c.end();`,
    ],
    { cwd: dir },
  );
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the packed packages in a fresh npm project", () => {
  it("run the guide's claims and idempotent enqueue on PostgreSQL, loading the dialect from the URL scheme (ESM)", () => {
    expect(runInProject(dir, "guide-postgres.mjs")).toEqual({ first: 1, repeat: 0, batches: [5, 5, 5], distinct: 15, claimed: 6 });
  });

  it("work from CommonJS on SQLite, and refuse row locks there", () => {
    expect(runInProject(dir, "sqlite-commonjs.cjs")).toEqual({ count: 2, sameDate: true, refused: "SQLite" });
  });

  it("run the two-step claim on MySQL/MariaDB and refuse LIMIT inside an IN subquery there (ESM)", () => {
    expect(runInProject(dir, "mysql-two-step.mjs", { DATABASE_URL: MYSQL_URL })).toEqual({
      sizes: [10, 10, 10],
      distinct: 30,
      refused: "LIMIT inside an IN (SELECT ...) subquery",
    });
  });

  it("run the queue recipes: idempotent enqueue, a drain that delivers each message once, a schedule pass (SQLite file)", () => {
    expect(runInProject(dir, "recipes-sqlite.mjs")).toEqual({
      inserted: 30,
      duplicates: 10,
      sent: 30,
      deliveredOnce: true,
      scheduled: ["2026-01-05T10:00:00.000Z"],
    });
  });

  it("type-check the guide's code under strict, with exact row types and misuse rejected", () => {
    expect(typecheckProject(dir)).toBe("");
  });
});
