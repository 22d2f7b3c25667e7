import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";

/** A real database the console's tests run against. */
export interface Target {
  readonly name: "PostgreSQL" | "MySQL" | "SQLite";
  readonly url: string;
}

const sqliteDir = mkdtempSync(join(tmpdir(), "tempest-console-"));

export const targets: Target[] = [
  { name: "PostgreSQL", url: process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test" },
  { name: "MySQL", url: process.env.TEMPEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test" },
  { name: "SQLite", url: `sqlite://${join(sqliteDir, "console.db")}` },
];
