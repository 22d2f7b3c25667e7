import { execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const BINARY_PATHS = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer", "/usr/local/bin/pgbouncer"];

function findBinary(): string | undefined {
  return BINARY_PATHS.find((p) => existsSync(p));
}

/**
 * The pgbouncer binary, installed with apt-get when it is missing and this process is root (the
 * package list is refreshed only when apt knows no candidate). Otherwise a clear error: the
 * PgBouncer tests need a real PgBouncer (`apt-get install -y pgbouncer`).
 */
export function ensurePgBouncer(): string {
  const found = findBinary();
  if (found) return found;
  if (process.getuid?.() !== 0) {
    throw new Error(
      "pgbouncer is not installed and this is not root: run `apt-get update && apt-get install -y pgbouncer` (the PgBouncer tests run a real one).",
    );
  }
  const candidate = () => /Candidate: (?!\(none\))/.test(execFileSync("apt-cache", ["policy", "pgbouncer"], { encoding: "utf8" }));
  if (!candidate()) execFileSync("apt-get", ["update"], { stdio: "ignore", timeout: 300_000 });
  execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "pgbouncer"], {
    stdio: "ignore",
    timeout: 300_000,
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  const installed = findBinary();
  if (!installed) throw new Error("apt-get install pgbouncer finished but no pgbouncer binary was found");
  return installed;
}

/** "1.18.0" from `pgbouncer --version`. */
export function pgBouncerVersion(binary: string): string {
  const out = execFileSync(binary, ["--version"], { encoding: "utf8" });
  return /PgBouncer (\S+)/.exec(out)?.[1] ?? "unknown";
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export interface PgBouncer {
  /** The connection string through the pooler (same user and database as `upstream`). */
  readonly url: string;
  readonly version: string;
  stop(): Promise<void>;
}

/**
 * Starts a private PgBouncer in transaction mode on a free loopback port, in front of the server of
 * `upstream` (a postgresql:// URL without password), with `serverConnections` server connections,
 * its configuration and log in a temporary directory. Runs as the `postgres` user when this process
 * is root (PgBouncer refuses to run as root).
 */
export async function startPgBouncer(upstream: string, serverConnections = 2): Promise<PgBouncer> {
  const binary = ensurePgBouncer();
  const version = pgBouncerVersion(binary);
  const target = new URL(upstream);
  const user = decodeURIComponent(target.username || "postgres");
  const database = target.pathname.slice(1);
  const dir = mkdtempSync(join(tmpdir(), "tempest-pgbouncer-"));
  chmodSync(dir, 0o777);
  const port = await freePort();
  writeFileSync(join(dir, "users.txt"), `"${user}" ""\n`);
  writeFileSync(
    join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${join(dir, "users.txt")}`,
      "pool_mode = transaction",
      `default_pool_size = ${serverConnections}`,
      "max_client_conn = 100",
      `logfile = ${join(dir, "pgbouncer.log")}`,
      `pidfile = ${join(dir, "pgbouncer.pid")}`,
      "",
    ].join("\n"),
  );
  for (const file of ["users.txt", "pgbouncer.ini"]) chmodSync(join(dir, file), 0o644);
  const args = process.getuid?.() === 0 ? ["-u", "postgres", join(dir, "pgbouncer.ini")] : [join(dir, "pgbouncer.ini")];
  const child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  // Ready once the port accepts connections.
  const deadline = Date.now() + 10_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.end();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (open) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      const log = existsSync(join(dir, "pgbouncer.log")) ? readFileSync(join(dir, "pgbouncer.log"), "utf8") : "";
      throw new Error(`pgbouncer did not start: ${stderr}${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const url = new URL(upstream);
  url.port = String(port);
  url.hostname = "127.0.0.1";
  return {
    url: url.toString(),
    version,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
