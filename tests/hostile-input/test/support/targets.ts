import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import type { Engine, EngineOptions, QueryEvent } from "tempest-db-js";
import { createEngine, sql } from "tempest-db-js";

export const PG_URL = process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
export const MYSQL_URL = process.env.TEMPEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";

/** Where hostile tables live: a schema / database of their own, so that no other test ever sees them. */
const SPACE = "tempest_hostile";

/** One engine for a whole file, and the statements it sent (to prove a refused one never left). */
export interface OpenTarget {
  readonly engine: Engine;
  readonly sent: QueryEvent[];
  close(): Promise<void>;
}

export interface Target {
  /** The dialect name errors carry. */
  readonly dialect: string;
  /** What an UnsupportedFeatureError's message names (the server, for the MySQL dialect). */
  readonly messageNames: RegExp;
  readonly label: string;
  /** Whether the dialect keeps NUL in text (capability `nulInText`). */
  readonly nul: boolean;
  open(): Promise<OpenTarget>;
  /**
   * Maps away what the server itself refuses in a name, with its own (loud) error: generated names
   * go through it, so the property exercises everything else.
   */
  readonly serverFit: (name: string) => string;
  /** Names the dialect refuses with ValidationError before anything is sent. */
  readonly tooLong: (name: string) => boolean;
  /** Enum values the dialect refuses with UnsupportedFeatureError (the server would change them). */
  readonly enumUnsupported: (value: string) => boolean;
}

function recording(url: string, options: EngineOptions = {}): { engine: Engine; sent: QueryEvent[] } {
  const sent: QueryEvent[] = [];
  const engine = createEngine(url, { ...options, poolSize: 2, onQuery: (event) => sent.push(event) });
  return { engine, sent };
}

async function once(url: string, statements: string[]): Promise<void> {
  const engine = createEngine(url, { poolSize: 1 });
  try {
    for (const text of statements) await engine.execute(sql.raw(text)).rowsAffected();
  } finally {
    await engine.close();
  }
}

export const postgres: Target = {
  dialect: "PostgreSQL",
  messageNames: /^PostgreSQL does not support /,
  label: "PostgreSQL",
  nul: false,
  async open() {
    await once(PG_URL, [`DROP SCHEMA IF EXISTS ${SPACE} CASCADE`, `CREATE SCHEMA ${SPACE}`]);
    const { engine, sent } = recording(PG_URL, { driver: { options: `-c search_path=${SPACE}` } });
    return {
      engine,
      sent,
      async close() {
        await engine.close();
        await once(PG_URL, [`DROP SCHEMA IF EXISTS ${SPACE} CASCADE`]);
      },
    };
  },
  serverFit: (name) => name,
  tooLong: (name) => Buffer.byteLength(name, "utf8") > 63,
  enumUnsupported: () => false,
};

export const mariadb: Target = {
  // One dialect serves both servers; its refusals name the server that answered.
  dialect: "MySQL",
  messageNames: /^MariaDB \d+\.\d+(\.\d+)? does not support /,
  label: "MariaDB",
  nul: false,
  async open() {
    await once(MYSQL_URL, [`DROP DATABASE IF EXISTS ${SPACE}`, `CREATE DATABASE ${SPACE} CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin`]);
    const url = new URL(MYSQL_URL);
    url.pathname = `/${SPACE}`;
    const { engine, sent } = recording(url.toString());
    return {
      engine,
      sent,
      async close() {
        await engine.close();
        await once(MYSQL_URL, [`DROP DATABASE IF EXISTS ${SPACE}`]);
      },
    };
  },
  // MySQL and MariaDB identifiers hold only the Basic Multilingual Plane ("Invalid utf8mb4 character string").
  serverFit: (name) => name.replace(/[\u{10000}-\u{10ffff}]/gu, "\ufffd"),
  tooLong: () => false,
  // The server strips trailing spaces from ENUM members, then stores "a " as "a".
  enumUnsupported: (value) => value.endsWith(" "),
};

function sqlite(kind: "file" | "memory"): Target {
  return {
    dialect: "SQLite",
    messageNames: /^SQLite does not support /,
    label: `SQLite (${kind === "file" ? "file" : ":memory:"})`,
    nul: false,
    async open() {
      if (kind === "memory") {
        const { engine, sent } = recording("sqlite::memory:");
        return { engine, sent, close: () => engine.close() };
      }
      const dir = mkdtempSync(join(tmpdir(), "tempest-hostile-"));
      const { engine, sent } = recording(`sqlite://${join(dir, "hostile.db")}`);
      return {
        engine,
        sent,
        async close() {
          await engine.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
    // "object name reserved for internal use".
    serverFit: (name) => (/^sqlite_/i.test(name) ? `x${name}` : name),
    tooLong: () => false,
    enumUnsupported: () => false,
  };
}

export const sqliteFile = sqlite("file");
export const sqliteMemory = sqlite("memory");
