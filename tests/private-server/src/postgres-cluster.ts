import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

/** runuser lives in sbin, which a root shell's PATH may leave out (`env -i PATH=/usr/bin:/bin`). */
const RUNUSER = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].find((path) => existsSync(path)) ?? "runuser";

export interface PostgresClusterOptions {
  /** The initdb binary of the PostgreSQL to run. */
  readonly initdb: string;
  /** The start of the cluster directory's name under /tmp. */
  readonly prefix: string;
  /** The first port tried (see freePort). */
  readonly preferredPort: number;
  readonly maxConnections: number;
  /** More initdb arguments, e.g. `--locale=C.UTF-8`. */
  readonly initdbArgs?: readonly string[];
}

/** A private cluster, initialised and not yet started: the caller starts and stops it with its own pg_ctl. */
export interface PostgresCluster {
  /** The cluster's own directory: data, server log, socket. */
  readonly dir: string;
  readonly data: string;
  readonly logFile: string;
  readonly port: number;
  /** pg_ctl's `-o`: this port, the socket in dir, 127.0.0.1 only, fsync off, max_connections. */
  readonly serverOptions: string;
  /** The file and arguments that run a PostgreSQL binary as the postgres OS user when we are root (PostgreSQL refuses root). */
  command(file: string, args: readonly string[]): [string, string[]];
  /** Runs a PostgreSQL binary as `command` says, bounded by `timeoutMs` (default 120 s). */
  run(file: string, args: readonly string[], timeoutMs?: number): Promise<{ stdout: string; stderr: string }>;
  /** The server log so far, or "(no server log)". */
  log(): string;
  /** Removes the directory; stop the server first. */
  remove(): void;
}

/**
 * initdb into a fresh directory under /tmp (owned by the postgres OS user when we are root), with
 * trust authentication for the `postgres` role and UTF8, and a free port for it. The directory is
 * removed again if that fails.
 */
export async function initPostgresCluster(options: PostgresClusterOptions): Promise<PostgresCluster> {
  const asRoot = process.getuid?.() === 0;
  const command = (file: string, args: readonly string[]): [string, string[]] =>
    asRoot ? [RUNUSER, ["-u", "postgres", "--", file, ...args]] : [file, [...args]];
  const runAs = (file: string, args: readonly string[], timeoutMs = 120_000) => {
    const [bin, argv] = command(file, args);
    return run(bin, argv, { timeout: timeoutMs });
  };
  const dir = mkdtempSync(join("/tmp", options.prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    if (asRoot) {
      const { stdout: uid } = await run("id", ["-u", "postgres"]);
      const { stdout: gid } = await run("id", ["-g", "postgres"]);
      chownSync(dir, Number(uid.trim()), Number(gid.trim()));
    }
    const data = join(dir, "data");
    const logFile = join(dir, "server.log");
    await runAs(options.initdb, ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", ...(options.initdbArgs ?? []), "--no-sync"]);
    const port = await freePort(options.preferredPort);
    const serverOptions = [
      `-p ${port}`,
      `-k ${dir}`,
      "-c listen_addresses=127.0.0.1",
      "-c fsync=off",
      `-c max_connections=${options.maxConnections}`,
    ].join(" ");
    const log = () => {
      try {
        return readFileSync(logFile, "utf8");
      } catch {
        return "(no server log)";
      }
    };
    return { dir, data, logFile, port, serverOptions, command, run: runAs, log, remove };
  } catch (error) {
    remove();
    throw error;
  }
}
