import type { ChildProcess } from "node:child_process";
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { freePort, initPostgresCluster } from "@tempest-db-js/private-server";
import { createEngine, sql } from "tempest-db-js";

// Private database servers for the tests that restart one: the shared servers on 5432/3306 are
// used by everyone else and are never touched. Each server lives in its own directory under /tmp,
// listens on 127.0.0.1 only, and is stopped and removed by destroy(). Every wait is bounded.

const run = promisify(execFile);

export interface RestartTimes {
  readonly stoppedAt: number;
  readonly startedAt: number;
}

export interface ThrowawayServer {
  readonly url: string;
  readonly port: number;
  /** Stops the server abruptly (PostgreSQL: immediate shutdown, no checkpoint; MariaDB: SIGKILL). */
  crash(): Promise<void>;
  start(): Promise<void>;
  /**
   * PostgreSQL only: `pg_ctl restart -m immediate` (crash and start again in one step), then waits
   * until it answers. Resolves with when pg_ctl said the old server had stopped and the new one had
   * started (epoch ms, read from its output as it is printed).
   */
  restart?(): Promise<RestartTimes>;
  /** Stops the server if running and removes its directory. */
  destroy(): Promise<void>;
  /** The server's own log, for failure messages. */
  log(): string;
}

/** Polls `select 1` through the library until it answers, at most `limitMs`. */
async function waitUntilUp(url: string, dialectPackage: string, limitMs: number, describe: () => string): Promise<void> {
  await import(dialectPackage);
  const deadline = Date.now() + limitMs;
  let last: unknown;
  while (Date.now() < deadline) {
    const probe = createEngine(url, { poolSize: 1 });
    try {
      await probe.execute(sql.raw("SELECT 1 AS ok")).scalar();
      return;
    } catch (error) {
      last = error;
    } finally {
      await probe.close().catch(() => {});
    }
    await sleep(200);
  }
  throw new Error(`server at ${url} did not answer within ${limitMs} ms: ${String(last)}\n${describe()}`);
}

/** Runs `pg_ctl … restart`, noting when its output says "server stopped" and "server started" (bounded: 40 s). */
function timedPgCtl(file: string, args: string[]): Promise<RestartTimes> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stoppedAt = 0;
    let startedAt = 0;
    let output = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 40_000);
    const watch = (chunk: Buffer) => {
      output += chunk.toString();
      if (!stoppedAt && output.includes("server stopped")) stoppedAt = Date.now();
      if (!startedAt && output.includes("server started")) startedAt = Date.now();
    };
    child.stdout.on("data", watch);
    child.stderr.on("data", watch);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      if (code === 0 && stoppedAt && startedAt) resolve({ stoppedAt, startedAt });
      else reject(new Error(`pg_ctl restart exited with ${code}:\n${output}`));
    });
  });
}

function postgresBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "pg_ctl"))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL server binaries under ${root}/<version>/bin (initdb, pg_ctl): cannot start a private server`);
  return join(root, newest, "bin");
}

/** A private PostgreSQL cluster (initdb + pg_ctl), run as the `postgres` OS user when we are root. */
export async function throwawayPostgres(preferredPort = 55432): Promise<ThrowawayServer> {
  const bin = postgresBin();
  const pgCtl = join(bin, "pg_ctl");
  const cluster = await initPostgresCluster({
    initdb: join(bin, "initdb"),
    prefix: "tempest-chaos-pg-",
    preferredPort,
    maxConnections: 50,
  });
  const { data, logFile, port, serverOptions: options } = cluster;
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const log = () => cluster.log().slice(-3000);
  const server: ThrowawayServer = {
    url,
    port,
    log,
    async start() {
      await cluster.run(pgCtl, ["-D", data, "-o", options, "-l", logFile, "-w", "-t", "30", "start"], 40_000);
      await waitUntilUp(url, "@tempest-db-js/dialect-postgres", 30_000, log);
    },
    async crash() {
      await cluster.run(pgCtl, ["-D", data, "-m", "immediate", "-w", "-t", "30", "stop"], 40_000);
    },
    async restart() {
      const args = ["-D", data, "-o", options, "-l", logFile, "-m", "immediate", "-w", "-t", "30", "restart"];
      const times = await timedPgCtl(...cluster.command(pgCtl, args));
      await waitUntilUp(url, "@tempest-db-js/dialect-postgres", 30_000, log);
      return times;
    },
    async destroy() {
      if (existsSync(join(data, "postmaster.pid"))) {
        await cluster.run(pgCtl, ["-D", data, "-m", "immediate", "-w", "-t", "30", "stop"], 40_000).catch(() => {});
      }
      cluster.remove();
    },
  };
  await server.start();
  return server;
}

function which(name: string, dirs: readonly string[]): string {
  for (const d of dirs) if (existsSync(join(d, name))) return join(d, name);
  throw new Error(`${name} not found in ${dirs.join(", ")}: cannot start a private MariaDB server`);
}

/** A private MariaDB server (mariadb-install-db + mariadbd), a child of this process, without grant tables. */
export async function throwawayMariadb(preferredPort = 53306): Promise<ThrowawayServer> {
  const dirs = ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"];
  const installDb = which("mariadb-install-db", dirs);
  const mariadbd = which("mariadbd", dirs);
  const dir = mkdtempSync("/tmp/tempest-chaos-mariadb-");
  const data = join(dir, "data");
  const errorLog = join(dir, "error.log");
  const port = await freePort(preferredPort);
  const user = process.getuid?.() === 0 ? "root" : (process.env.USER ?? "root");
  await run(
    installDb,
    ["--no-defaults", `--datadir=${data}`, "--auth-root-authentication-method=normal", "--skip-test-db", `--user=${user}`],
    {
      timeout: 120_000,
    },
  );
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const log = () => (existsSync(errorLog) ? readFileSync(errorLog, "utf8").slice(-3000) : "(no log)");
  const stop = async (signal: NodeJS.Signals) => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    running.kill(signal);
    const timedOut = await Promise.race([exited.then(() => false), sleep(30_000).then(() => true)]);
    if (timedOut) {
      running.kill("SIGKILL");
      await exited;
    }
  };
  const server: ThrowawayServer = {
    url: `mysql://root@127.0.0.1:${port}/test`,
    port,
    log,
    async start() {
      child = spawn(
        mariadbd,
        [
          "--no-defaults",
          `--datadir=${data}`,
          `--port=${port}`,
          "--bind-address=127.0.0.1",
          `--socket=${join(dir, "mariadb.sock")}`,
          `--pid-file=${join(dir, "mariadb.pid")}`,
          `--log-error=${errorLog}`,
          `--user=${user}`,
          "--skip-grant-tables",
          "--skip-name-resolve",
          "--innodb-buffer-pool-size=64M",
          "--max-connections=60",
        ],
        { stdio: "ignore" },
      );
      const current = child;
      exited = new Promise((resolve) => current.once("exit", () => resolve()));
      // The `test` database does not exist yet on a fresh data directory: probe the server without one.
      await waitUntilUp(`mysql://root@127.0.0.1:${port}`, "@tempest-db-js/dialect-mysql", 60_000, log);
      const admin = createEngine(`mysql://root@127.0.0.1:${port}`, { poolSize: 1 });
      try {
        await admin.execute(sql.raw("CREATE DATABASE IF NOT EXISTS test")).rowsAffected();
      } finally {
        await admin.close();
      }
    },
    async crash() {
      await stop("SIGKILL");
    },
    async destroy() {
      await stop("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
