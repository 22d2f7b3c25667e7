import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../../..");
const PG_URL = process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const MYSQL_URL = process.env.TEMPEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";

/** `node scripts/setup.mjs --databases -- <a command that prints "command ran">` with these servers. */
function setup(env: Record<string, string>) {
  const run = spawnSync(
    process.execPath,
    [join(repo, "scripts/setup.mjs"), "--databases", "--", process.execPath, "-e", "console.log('command ran')"],
    { cwd: repo, encoding: "utf8", env: { ...process.env, ...env }, timeout: 120_000 },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The same server with another database in the URL. */
function withDatabase(url: string, name: string): string {
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.toString();
}

const unreachable = {
  TEMPEST_PG_URL: "postgresql://postgres:hunter2@127.0.0.1:1/test",
  TEMPEST_MYSQL_URL: "mysql://root:hunter2@127.0.0.1:1/test",
};

describe("npm test's check of the test servers", () => {
  it("with CI=true, fails before any test runs when a server cannot be reached, and names it without its password", () => {
    const run = setup({ ...unreachable, CI: "true" });
    expect(run.status).toBe(1);
    expect(run.stdout).not.toContain("command ran");
    expect(run.stderr).toContain("unreachable: PostgreSQL at postgresql://postgres:***@127.0.0.1:1/test: ECONNREFUSED");
    expect(run.stderr).toContain("unreachable: MySQL/MariaDB at mysql://root:***@127.0.0.1:1/test: ECONNREFUSED");
    expect(run.stderr).toContain("CI=true: every test server must be reachable");
    expect(run.stderr).not.toContain("hunter2");
  });

  it("outside CI, reports the unreachable server and runs the tests anyway (those needing it fail)", () => {
    const run = setup({ ...unreachable, CI: "" });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("command ran");
    expect(run.stderr).toContain("unreachable: PostgreSQL at");
    expect(run.stderr).toContain("the tests that need these servers will fail");
  });

  describe("on the real servers", () => {
    const name = `tempest_setup_probe_${process.pid}`;
    const urls = { TEMPEST_PG_URL: withDatabase(PG_URL, name), TEMPEST_MYSQL_URL: withDatabase(MYSQL_URL, name) };

    afterAll(async () => {
      const pg = createRequire(join(repo, "packages/dialect-postgres/package.json"))("pg");
      const admin = new pg.Client({ connectionString: withDatabase(PG_URL, "postgres") });
      await admin.connect();
      // A bounded wait: a lock held elsewhere fails the hook with a message instead of hanging it.
      await admin.query("SET lock_timeout = '30s'");
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin.end();
      const mysql = createRequire(join(repo, "packages/dialect-mysql/package.json"))("mysql2/promise");
      const connection = await mysql.createConnection({ uri: withDatabase(MYSQL_URL, "") });
      await connection.query("SET SESSION lock_wait_timeout = 30");
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await connection.end();
    });

    it("creates the database a URL names when it is missing, then finds it there the next time", () => {
      const first = setup({ ...urls, CI: "true" });
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toContain("command ran");
      expect(first.stderr).toContain(`created database ${name} on PostgreSQL`);
      expect(first.stderr).toContain(`created database ${name} on MySQL/MariaDB`);
      const second = setup({ ...urls, CI: "true" });
      expect(second.status, second.stderr).toBe(0);
      expect(second.stderr).not.toContain("created database");
      expect(second.stderr).not.toContain("unreachable");
    });
  });
});
