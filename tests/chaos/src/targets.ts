import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type DialectName = "postgres" | "mysql" | "sqlite";

export const DIALECTS: readonly DialectName[] = ["postgres", "mysql", "sqlite"];

export interface ChaosTarget {
  readonly dialect: DialectName;
  readonly label: string;
  readonly url: string;
  /** Imported so that the dialect registers itself (in the supervisor and in each worker). */
  readonly dialectPackage: string;
}

export const PG_URL = process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
export const MYSQL_URL = process.env.TEMPEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";

/** The shared servers (TEMPEST_PG_URL, TEMPEST_MYSQL_URL) or a fresh SQLite file in a temporary directory. */
export function targetFor(dialect: DialectName): ChaosTarget {
  switch (dialect) {
    case "postgres":
      return { dialect, label: "PostgreSQL", url: PG_URL, dialectPackage: "@tempest-db-js/dialect-postgres" };
    case "mysql":
      return { dialect, label: "MariaDB/MySQL", url: MYSQL_URL, dialectPackage: "@tempest-db-js/dialect-mysql" };
    case "sqlite": {
      const dir = mkdtempSync(join(tmpdir(), "tempest-chaos-"));
      return {
        dialect,
        label: "SQLite (WAL file)",
        url: `sqlite://${join(dir, "chaos.db")}`,
        dialectPackage: "@tempest-db-js/dialect-sqlite",
      };
    }
  }
}

/** "postgres,sqlite", "pg", "mariadb", "all" → dialect names. */
export function parseDialects(value: string | undefined): DialectName[] {
  if (!value || value === "all") return [...DIALECTS];
  const aliases: Record<string, DialectName> = {
    postgres: "postgres",
    postgresql: "postgres",
    pg: "postgres",
    mysql: "mysql",
    mariadb: "mysql",
    sqlite: "sqlite",
  };
  return value.split(",").map((name) => {
    const dialect = aliases[name.trim().toLowerCase()];
    if (!dialect) throw new Error(`Unknown dialect ${JSON.stringify(name)}; use postgres, mysql (mariadb) or sqlite`);
    return dialect;
  });
}
