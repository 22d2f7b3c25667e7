// The servers `npm test` runs against: TEMPEST_PG_URL (PostgreSQL) and TEMPEST_MYSQL_URL
// (MySQL/MariaDB). A local server that is installed but down is started the way this Debian-style
// machine does it (pg_ctlcluster, mariadbd), each test database is created when missing, and a
// server that stays unreachable is reported. Under CI=true that fails the run; elsewhere it is a
// warning and the tests needing that server fail on their own (none of them skips).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export const DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/test";
export const DEFAULT_MYSQL_URL = "mysql://root@127.0.0.1:3306/test";

const START_WAIT_MS = 60_000;
const REFUSED = new Set(["ECONNREFUSED", "ENOENT"]);

/** Returns the list of servers still unreachable (empty when both are up and have their database). */
export async function ensureDatabases(root, log, env = process.env) {
  const servers = [postgres(root, env.TEMPEST_PG_URL || DEFAULT_PG_URL), mysql(root, env.TEMPEST_MYSQL_URL || DEFAULT_MYSQL_URL)];
  const down = [];
  for (const server of servers) {
    let failure = await server.probe();
    // Only a local server that refuses connections is started: a wrong password or a full server is
    // not fixed by starting anything.
    if (failure && REFUSED.has(failure.code) && isLocal(server.url) && server.start(log)) {
      const deadline = Date.now() + START_WAIT_MS;
      while (failure && Date.now() < deadline) {
        await sleep(1000);
        failure = await server.probe();
      }
    }
    if (failure) {
      down.push(`${server.name} at ${redact(server.url)}: ${failure.code ? `${failure.code} ` : ""}${failure.message}`);
      continue;
    }
    const database = databaseName(server.url);
    if (database && (await server.createDatabase(database))) log(`created database ${database} on ${server.name}`);
  }
  return down;
}

function postgres(root, url) {
  const { Client } = createRequire(join(root, "packages/dialect-postgres/package.json"))("pg");
  const admin = () => {
    const target = new URL(url);
    target.pathname = "/postgres";
    return new Client({ connectionString: target.toString(), connectionTimeoutMillis: 3000 });
  };
  const withAdmin = async (work) => {
    const client = admin();
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  return {
    name: "PostgreSQL",
    url,
    probe: () => failureOf(withAdmin((client) => client.query("SELECT 1"))),
    start: (log) => startPostgres(url, log),
    createDatabase: (name) =>
      withAdmin(async (client) => {
        const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
        if (found.rowCount > 0) return false;
        await client.query(`CREATE DATABASE "${name}"`);
        return true;
      }),
  };
}

function mysql(root, url) {
  const driver = createRequire(join(root, "packages/dialect-mysql/package.json"))("mysql2/promise");
  const withAdmin = async (work) => {
    const target = new URL(url);
    target.protocol = "mysql:";
    target.pathname = "/";
    const connection = await driver.createConnection({ uri: target.toString(), connectTimeout: 3000 });
    try {
      return await work(connection);
    } finally {
      await connection.end();
    }
  };
  return {
    name: "MySQL/MariaDB",
    url,
    probe: () => failureOf(withAdmin((connection) => connection.query("SELECT 1"))),
    start: (log) => startMariadb(url, log),
    createDatabase: (name) =>
      withAdmin(async (connection) => {
        const [rows] = await connection.query("SELECT 1 FROM information_schema.schemata WHERE schema_name = ?", [name]);
        if (rows.length > 0) return false;
        await connection.query(`CREATE DATABASE IF NOT EXISTS \`${name}\``);
        return true;
      }),
  };
}

/** Starts the Debian cluster (pg_lsclusters) that listens on the URL's port; false when there is none. */
function startPostgres(url, log) {
  if (!existsSync("/etc/postgresql") || !onPath("pg_lsclusters") || !onPath("pg_ctlcluster")) return false;
  const port = new URL(url).port || "5432";
  const clusters = spawnSync("pg_lsclusters", ["-h"], { encoding: "utf8" }).stdout ?? "";
  const cluster = clusters
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .find((fields) => fields[2] === port);
  if (!cluster) return false;
  const [version, name] = cluster;
  log(`starting PostgreSQL ${version}/${name}`);
  spawnSync("pg_ctlcluster", ["--skip-systemctl-redirect", version, name, "start"], { stdio: "inherit" });
  return true;
}

/** Starts the packaged server when the URL names its default port; false when there is none. */
function startMariadb(url, log) {
  if ((new URL(url).port || "3306") !== "3306") return false;
  const daemon = ["/usr/sbin/mariadbd", "/usr/sbin/mysqld"].find((file) => existsSync(file));
  if (!daemon || !onPath("start-stop-daemon")) return false;
  log(`starting ${daemon}`);
  // /run is a tmpfs: after a reboot the socket directory is gone and the server will not start.
  spawnSync("install", ["-d", "-o", "mysql", "-g", "mysql", "/run/mysqld"], { stdio: "ignore" });
  spawnSync("start-stop-daemon", ["--start", "--oknodo", "--background", "--exec", daemon], { stdio: "inherit" });
  return true;
}

async function failureOf(attempt) {
  try {
    await attempt;
    return undefined;
  } catch (error) {
    // pg and mysql2 report a refused connection as an AggregateError (one per address) on Node 20.
    const code = error?.code ?? error?.errors?.[0]?.code;
    return { code, message: String(error?.message || error?.errors?.[0]?.message || error) };
  }
}

/** The test database of a URL, when it is a plain name (anything else is left to the tests). */
function databaseName(url) {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  return /^[A-Za-z0-9_]+$/.test(name) ? name : undefined;
}

function isLocal(url) {
  return ["127.0.0.1", "localhost", "[::1]", ""].includes(new URL(url).hostname);
}

function redact(url) {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}

function onPath(command) {
  return spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
}
