import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { createHash } from "node:crypto";
import { createEngine, sql } from "tempest-db-js";
import type { Target } from "./doc-blocks.js";

export const PG_URL = process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
export const MYSQL_URL = process.env.TEMPEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";

/**
 * A private database per program, so that every program starts empty and none sees another's
 * tables: a schema first on the search_path on PostgreSQL, a database on MySQL/MariaDB, and
 * `:memory:` on SQLite (private per engine anyway). Returns each program's URL and a cleanup.
 * MySQL databases are server-wide, so their names start with the URL's own database: two runs
 * pointed at different databases (two developers, two worktrees) never drop each other's.
 */
export async function targetDatabases(
  target: Target,
  logicalNames: readonly string[],
): Promise<{ urls: Map<string, string>; drop: () => Promise<void> }> {
  let names = logicalNames;
  const urls = new Map<string, string>();
  if (target === "sqlite") {
    for (const name of names) urls.set(name, "sqlite::memory:");
    return { urls, drop: async () => {} };
  }
  const admin = createEngine(target === "postgres" ? PG_URL : MYSQL_URL, { poolSize: 1 });
  if (target !== "postgres") names = names.map((name) => serverWideName(MYSQL_URL, name));
  const quote = (name: string) => (target === "postgres" ? `"${name}"` : `\`${name}\``);
  const dropAll = async () => {
    for (const name of names) {
      await admin
        .execute(sql.raw(target === "postgres" ? `DROP SCHEMA IF EXISTS ${quote(name)} CASCADE` : `DROP DATABASE IF EXISTS ${quote(name)}`))
        .rowsAffected();
    }
  };
  await dropAll();
  for (const name of names) {
    await admin.execute(sql.raw(`CREATE ${target === "postgres" ? "SCHEMA" : "DATABASE"} ${quote(name)}`)).rowsAffected();
    const base = new URL(target === "postgres" ? PG_URL : MYSQL_URL);
    if (target === "postgres") base.searchParams.set("options", `-c search_path=${name}`);
    else base.pathname = `/${name}`;
    urls.set(logicalNames[names.indexOf(name)] as string, base.toString());
  }
  return {
    urls,
    drop: async () => {
      try {
        await dropAll();
      } finally {
        await admin.close();
      }
    },
  };
}

/** `<url database>_<name>`, within MySQL's 64-character limit (a hash keeps long names apart). */
function serverWideName(url: string, name: string): string {
  const full = `${new URL(url).pathname.slice(1) || "test"}_${name}`;
  if (full.length <= 64) return full;
  return `${full.slice(0, 55)}_${createHash("sha1").update(full).digest("hex").slice(0, 8)}`;
}
