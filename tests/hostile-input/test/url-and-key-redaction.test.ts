import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import type { Engine, QueryEvent } from "tempest-db-js";
import { column, createEngine, insert, Model, redactUrl, sql, TempestError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { MYSQL_URL, PG_URL } from "./support/targets.js";

/**
 * Two holes of the secret redaction: a URL password with `/`, an unencoded `@` (or `?`, `#`, `:`)
 * that the old pattern did not see as a password, and that a driver's URL parse error quoted whole
 * (TypeError's `input`); and PostgreSQL's `Key (lower(btrim(email)))=(value)` for a unique index on
 * an expression, whose nested parentheses the old pattern did not match.
 */
const sqliteDir = mkdtempSync(join(tmpdir(), "tempest-url-key-"));

/** Everything an error or an event shows of itself: message, stack, every property of the cause chain. */
const shown = (value: unknown): string =>
  `${inspect(value, { depth: 10, showHidden: true })}\n${JSON.stringify(value, (_, v) => (typeof v === "bigint" ? String(v) : v))}`;

const PASSWORDS = ["s3cr/etPass", "s3c@retPass", "s3c?ret#Pass", "pa:ss/w@rd-Tok", "x%zzSecretTok", "s3cr/et@hostZq"];
const SERVERS = [
  { name: "PostgreSQL", url: (pw: string) => `postgresql://postgres:${pw}@127.0.0.1:1/none` },
  { name: "MariaDB", url: (pw: string) => `mysql://root:${pw}@127.0.0.1:1/none` },
  { name: "MariaDB (reachable)", url: (pw: string) => MYSQL_URL.replace("//root@", `//root:${pw}@`) },
  { name: "PostgreSQL (reachable)", url: (pw: string) => PG_URL.replace("//postgres@", `//postgres:${pw}@`) },
];

describe.each(SERVERS)("$name: a URL password is never shown", ({ url }) => {
  it.each(PASSWORDS)("password %s: redactUrl, inspect, JSON.stringify and the connect error hide it", async (password) => {
    const full = url(password);
    const secretParts = [password, ...password.split(/[/@?#:]/).filter((part) => part.length >= 4)];
    for (const part of secretParts) expect(redactUrl(full)).not.toContain(part);
    expect(redactUrl(full)).toMatch(/:\*\*\*@/);
    const events: QueryEvent[] = [];
    const engine = createEngine(full, { poolSize: 1, onQuery: (e: QueryEvent) => events.push(e) });
    for (const part of secretParts) {
      expect(inspect(engine)).not.toContain(part);
      expect(JSON.stringify(engine)).not.toContain(part);
    }
    const error = await engine
      .execute(sql.raw("SELECT 1 AS one"))
      .all()
      .catch((e: unknown) => e);
    await engine.close();
    // The reachable server trusts local connections and ignores the password; the others fail.
    if (TempestError.isInstance(error)) {
      for (const part of secretParts) {
        expect(shown(error)).not.toContain(part);
        expect(shown(events)).not.toContain(part);
      }
    } else {
      expect(error).toEqual([{ one: 1 }]);
    }
  });

  it("a URL without a password is left as it is", () => {
    expect(redactUrl("mysql://root@127.0.0.1:3306/db")).toBe("mysql://root@127.0.0.1:3306/db");
    expect(redactUrl("postgresql://127.0.0.1:5432/db?sslmode=require")).toBe("postgresql://127.0.0.1:5432/db?sslmode=require");
    expect(redactUrl(`sqlite://${join(sqliteDir, "a.db")}`)).toBe(`sqlite://${join(sqliteDir, "a.db")}`);
  });
});

class Person extends Model {
  static tablename = "tempest_key_people";
  id = column.integer().primaryKey();
  email = column.text().notNull();
}

const EMAIL = "Victim.Private@Example.org";
const databases = [
  {
    name: "PostgreSQL",
    url: PG_URL,
    index: "CREATE UNIQUE INDEX tempest_key_people_email ON tempest_key_people (lower(btrim(email)))",
  },
  {
    // MariaDB indexes an expression through a generated column.
    name: "MariaDB",
    url: MYSQL_URL,
    index:
      "ALTER TABLE tempest_key_people ADD COLUMN email_key VARCHAR(200) AS (lower(trim(email))) VIRTUAL, ADD UNIQUE INDEX tempest_key_people_email (email_key)",
  },
  {
    name: "SQLite",
    url: `sqlite://${join(sqliteDir, "keys.db")}`,
    index: "CREATE UNIQUE INDEX tempest_key_people_email ON tempest_key_people (lower(trim(email)))",
  },
];

describe.each(databases)("$name: a unique index on an expression does not quote the value", ({ url, index }) => {
  let engine: Engine;
  const events: QueryEvent[] = [];

  beforeAll(async () => {
    engine = createEngine(url, { poolSize: 1, onQuery: (event) => events.push(event) });
    await engine.dropAll([Person]);
    await engine.createAll([Person]);
    await engine.execute(sql.raw(index)).rowsAffected();
    await engine.execute(insert(Person).values({ id: 1, email: EMAIL })).rowsAffected();
  });

  afterAll(async () => {
    await engine.dropAll([Person]);
    await engine.close();
  });

  it("the duplicate's error and its query event name the key, never the value (nor its lower-cased form)", async () => {
    events.length = 0;
    const error = await engine
      .execute(insert(Person).values({ id: 2, email: `  ${EMAIL.toUpperCase()} ` }))
      .rowsAffected()
      .catch((e: unknown) => e);
    expect(TempestError.isInstance(error)).toBe(true);
    expect((error as { kind?: string }).kind).toBe("unique-violation");
    for (const form of [EMAIL, EMAIL.toLowerCase(), EMAIL.toUpperCase(), "victim.private", "VICTIM.PRIVATE"]) {
      expect(shown(error)).not.toContain(form);
      expect(shown(events)).not.toContain(form);
    }
    if (url === PG_URL) expect(shown(error)).toContain("Key (lower(btrim(email)))=([redacted]) already exists");
  });
});

afterAll(() => {
  rmSync(sqliteDir, { recursive: true, force: true });
});
