import { createServer } from "node:net";
import {
  AuthenticationError,
  ConnectionError,
  createEngine,
  PoolTimeoutError,
  type QueryError,
  queryErrorClass,
  sql,
  TransactionTimeoutError,
} from "tempest-db-js";
import { describe, expect, it } from "vitest";
import { MYSQL_URL, PG_URL } from "./support/targets.js";

/** A loopback port nothing listens on (taken, then closed again). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function failure(url: string): Promise<unknown> {
  const engine = createEngine(url, { poolSize: 1 });
  try {
    return await Promise.resolve(engine.execute(sql.raw("SELECT 1 AS one"))).catch((e: unknown) => e);
  } finally {
    await engine.close();
  }
}

function withUser(url: string, user: string): string {
  const parsed = new URL(url);
  parsed.username = user;
  return parsed.toString();
}

describe("error kinds a caller can act on", () => {
  it("PostgreSQL: an unknown role is an AuthenticationError, kind authentication, not retryable", async () => {
    const error = await failure(withUser(PG_URL, "tempest_no_such_role"));
    expect(AuthenticationError.isInstance(error), String(error)).toBe(true);
    const e = error as AuthenticationError;
    expect(e.kind).toBe("authentication");
    expect(e.driverCode).toBe("28000");
    expect(e.retryable).toBe(false);
    expect(ConnectionError.isInstance(e)).toBe(false);
  });

  it("MariaDB: access denied is an AuthenticationError, kind authentication, not retryable", async () => {
    const error = await failure(withUser(MYSQL_URL, "tempest_no_such_user"));
    expect(AuthenticationError.isInstance(error), String(error)).toBe(true);
    expect((error as QueryError).kind).toBe("authentication");
    expect((error as QueryError).retryable).toBe(false);
  });

  it.each([
    ["PostgreSQL", PG_URL],
    ["MariaDB", MYSQL_URL],
  ])("%s: a refused connection (server down or restarting) is a retryable ConnectionError", async (_, url) => {
    const target = new URL(url);
    target.port = String(await closedPort());
    const error = await failure(target.toString());
    expect(ConnectionError.isInstance(error), String(error)).toBe(true);
    expect((error as ConnectionError).kind).toBe("connection");
    expect((error as ConnectionError).retryable).toBe(true);
  });

  it("a connection lost mid-statement stays not retryable: its outcome is unknown", async () => {
    const engine = createEngine(PG_URL, { poolSize: 1 });
    const killer = createEngine(PG_URL, { poolSize: 1 });
    try {
      const error = await engine
        .transaction(async (tx) => {
          const pid = await tx.execute(sql.raw("SELECT pg_backend_pid() AS pid")).scalar();
          await killer.execute(sql.raw(`SELECT pg_terminate_backend(${Number(pid)})`));
          await tx.execute(sql.raw("SELECT 1 AS one"));
        })
        .catch((e: unknown) => e);
      expect(ConnectionError.isInstance(error), String(error)).toBe(true);
      expect((error as ConnectionError).retryable).toBe(false);
    } finally {
      await killer.close();
      await engine.close();
    }
  });

  it("each new kind has its class", () => {
    expect(queryErrorClass("authentication")).toBe(AuthenticationError);
    expect(queryErrorClass("pool-timeout")).toBe(PoolTimeoutError);
    expect(queryErrorClass("transaction-timeout")).toBe(TransactionTimeoutError);
  });
});
