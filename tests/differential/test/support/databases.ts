import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import pg from "pg";
import type { Engine, EngineOptions } from "tempest-db-js";
import { createEngine, sql } from "tempest-db-js";
import type { DatabaseName } from "./rules.js";

export const PG_URL = process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
export const MYSQL_URL = process.env.TEMPEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";

/** Server session zones that are not UTC (and not the process's zone either). */
export const PG_SESSION_ZONE = "Asia/Kathmandu";
export const MYSQL_SESSION_ZONE = "-03:00";

export interface Target {
  readonly label: string;
  readonly database: DatabaseName;
  readonly engine: Engine;
  /** Runs before every case: puts the session into its non-UTC zone. */
  prepare(): Promise<void>;
}

function withSessionZone(url: string): string {
  const u = new URL(url);
  u.searchParams.set("options", `-c TimeZone=${PG_SESSION_ZONE}`);
  return u.toString();
}

/** The database beside PG_URL's, created with an ICU locale (en): text order there is not code point order. */
async function icuDatabase(): Promise<string> {
  const base = new URL(PG_URL);
  const name = `${base.pathname.slice(1)}_icu`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (exists.rowCount === 0) {
      await admin.query(`CREATE DATABASE "${name}" LOCALE_PROVIDER icu ICU_LOCALE 'en' LOCALE 'C.UTF-8' TEMPLATE template0`);
    }
  } finally {
    await admin.end();
  }
  base.pathname = `/${name}`;
  return base.toString();
}

/** `mysql`: options for the MariaDB engine beyond its one pooled connection. */
export async function openTargets(options: { readonly mysql?: EngineOptions } = {}): Promise<Target[]> {
  const postgres = createEngine(withSessionZone(PG_URL), { poolSize: 1 });
  const icu = createEngine(withSessionZone(await icuDatabase()), { poolSize: 1 });
  const mysql = createEngine(MYSQL_URL, { ...options.mysql, poolSize: 1 });
  const sqlite = createEngine("sqlite::memory:");
  const none = async () => {};
  return [
    { label: "PostgreSQL", database: "PostgreSQL", engine: postgres, prepare: none },
    { label: "PostgreSQL (ICU en database)", database: "PostgreSQL", engine: icu, prepare: none },
    {
      label: "MariaDB",
      database: "MySQL",
      engine: mysql,
      // One pooled connection, so the session setting holds for the whole case.
      prepare: async () => void (await mysql.execute(sql.raw(`SET SESSION time_zone = '${MYSQL_SESSION_ZONE}'`)).rowsAffected()),
    },
    { label: "SQLite", database: "SQLite", engine: sqlite, prepare: none },
  ];
}

export async function closeTargets(targets: readonly Target[]): Promise<void> {
  await Promise.all(targets.map((t) => t.engine.close()));
}
