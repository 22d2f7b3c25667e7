import { randomBytes } from "node:crypto";
import type { Engine, Executor } from "tempest-db-js";
import { sql } from "tempest-db-js";
import { MYSQL_URL, PG_URL } from "../../src/targets.js";

/**
 * What the fault tests need to know about a server dialect: how to name a backend, kill it, and give
 * one engine connections that can be told apart from everyone else's on the shared server (other
 * engineers' tests run there at the same time; only our own connections are ever killed).
 */
export interface ServerKit {
  readonly name: string;
  readonly url: string;
  readonly dialectPackage: string;
  /** The server-side id of the connection a transaction runs on. */
  backendId(tx: Executor): Promise<number>;
  /** Kills one connection from another one. */
  kill(admin: Engine, id: number): Promise<void>;
  /** A URL whose connections `killAll` can find, and the clean-up for it. */
  isolated(admin: Engine): Promise<{ url: string; killAll: () => Promise<number>; cleanup: () => Promise<void> }>;
}

const tag = () => `chaos_victim_${randomBytes(4).toString("hex")}`;

export const postgresKit: ServerKit = {
  name: "PostgreSQL",
  url: PG_URL,
  dialectPackage: "@tempest-db-js/dialect-postgres",
  async backendId(tx) {
    return Number(await tx.execute(sql.raw("SELECT pg_backend_pid() AS id")).scalar());
  },
  async kill(admin, id) {
    await admin.execute(sql.expr`SELECT pg_terminate_backend(${id}) AS killed`).all();
  },
  async isolated(admin) {
    const name = tag();
    const url = `${PG_URL}${PG_URL.includes("?") ? "&" : "?"}application_name=${name}`;
    return {
      url,
      killAll: async () => {
        const rows = await admin
          .execute(
            sql.expr`SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE application_name = ${name} AND pid <> pg_backend_pid()`,
          )
          .all();
        return rows.filter((r) => r.killed === true).length;
      },
      cleanup: async () => {},
    };
  },
};

export const mariadbKit: ServerKit = {
  name: "MariaDB",
  url: MYSQL_URL,
  dialectPackage: "@tempest-db-js/dialect-mysql",
  async backendId(tx) {
    return Number(await tx.execute(sql.raw("SELECT CONNECTION_ID() AS id")).scalar());
  },
  async kill(admin, id) {
    if (!Number.isSafeInteger(id)) throw new Error(`not a connection id: ${id}`);
    await admin.execute(sql.raw(`KILL ${id}`)).rowsAffected();
  },
  async isolated(admin) {
    // A database of its own: its connections are the ones whose current database is that one.
    const name = tag();
    await admin.execute(sql.raw(`CREATE DATABASE ${name}`)).rowsAffected();
    const url = new URL(MYSQL_URL);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      killAll: async () => {
        const rows = await admin
          .execute(sql.expr`SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = ${name} AND ID <> CONNECTION_ID()`)
          .all();
        let killed = 0;
        for (const row of rows) {
          // Gone in between: "Unknown thread id".
          if (
            await mariadbKit.kill(admin, Number(row.id)).then(
              () => true,
              () => false,
            )
          )
            killed++;
        }
        return killed;
      },
      cleanup: async () => {
        await admin.execute(sql.raw(`DROP DATABASE IF EXISTS ${name}`)).rowsAffected();
      },
    };
  },
};

export const serverKits: readonly ServerKit[] = [postgresKit, mariadbKit];
