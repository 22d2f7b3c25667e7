import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Engine } from "tempest-db-js";
import { column, createEngine, Model, QueryError, RetryableTransactionError, select, sql, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresJsDialect } from "../src/index.js";
import { parseTimestamp } from "../src/postgresjs-types.js";
import { POSTGRESJS_URL } from "./postgresjs-url.js";

class Counter extends Model {
  static tablename = "postgresjs_example_counters";
  id = column.integer().primaryKey();
  hits = column.integer().notNull().default(0);
}

describe("the postgres.js example dialect", () => {
  let engine: Engine;

  beforeAll(async () => {
    engine = createEngine(POSTGRESJS_URL, { dialect: postgresJsDialect, poolSize: 4 });
    await engine.dropAll([Counter]);
    await engine.createAll([Counter]);
    await engine.execute(sql.raw("INSERT INTO postgresjs_example_counters (id) VALUES (1), (2)")).rowsAffected();
  });

  afterAll(async () => {
    await engine.dropAll([Counter]);
    await engine.close();
  });

  it("imports nothing but tempest-db-js's public entry points and its own driver", () => {
    const src = join(import.meta.dirname, "../src");
    for (const file of readdirSync(src)) {
      const imports = [...readFileSync(join(src, file), "utf8").matchAll(/from "([^"]+)"/g)].map((m) => m[1]);
      for (const specifier of imports)
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^(tempest-db-js|tempest-db-js\/dialect|postgres|\.\/[\w-]+\.js)$/);
    }
  });

  it("reads timestamps of every year the server writes, in any session zone, where new Date(text) reads 0001 as 2001", async () => {
    expect(new Date("0001-01-01 00:00:00+00").getUTCFullYear()).toBe(2001); // the trap
    expect(parseTimestamp("0001-01-01 00:00:00+00").toISOString()).toBe("0001-01-01T00:00:00.000Z");
    expect(parseTimestamp("0049-06-30 12:00:00.5-03").toISOString()).toBe("0049-06-30T15:00:00.500Z");
    expect(parseTimestamp("9999-12-31 23:59:59.999+00").toISOString()).toBe("9999-12-31T23:59:59.999Z");
    expect(parseTimestamp("0001-01-01 00:00:00+00:53:28").toISOString()).toBe("0000-12-31T23:06:32.000Z");
    expect(parseTimestamp("0001-01-01 00:00:00+00 BC").getUTCFullYear()).toBe(0);
    expect(parseTimestamp("2026-03-29 02:30:00").toISOString()).toBe("2026-03-29T02:30:00.000Z");
    for (const zone of ["UTC", "Europe/Amsterdam", "America/Sao_Paulo"]) {
      const rows = await engine.transaction(async (tx) => {
        await tx.execute(sql.raw(`SET LOCAL TIME ZONE '${zone}'`)).rowsAffected();
        return tx
          .execute(
            sql.raw(
              "SELECT '0001-01-01T00:00:00Z'::timestamptz AS first, '0012-07-04T10:00:00.25Z'::timestamptz AS early, '9999-12-31T23:59:59.999Z'::timestamptz AS last",
            ),
          )
          .one();
      });
      expect([rows.first, rows.early, rows.last].map((d) => (d as Date).toISOString())).toEqual([
        "0001-01-01T00:00:00.000Z",
        "0012-07-04T10:00:00.250Z",
        "9999-12-31T23:59:59.999Z",
      ]);
    }
  });

  it("is found by its URL scheme once imported, like any registered dialect", async () => {
    const byScheme = createEngine(POSTGRESJS_URL);
    try {
      expect(byScheme.dialectName).toBe("PostgreSQL (postgres.js)");
      expect(await byScheme.execute(select(Counter, ["id"]).orderBy("id")).all()).toEqual([{ id: 1 }, { id: 2 }]);
    } finally {
      await byScheme.close();
    }
  });

  it("delivers a notification sent inside a transaction when it commits", async () => {
    const received: string[] = [];
    const unlisten = await engine.listen("postgresjs_example", (payload) => received.push(payload));
    try {
      await engine.transaction(async (tx) => tx.notify("postgresjs_example", "hello"));
      const deadline = Date.now() + 5000;
      while (received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(received).toEqual(["hello"]);
    } finally {
      await unlisten();
    }
  });

  it("classifies a statement timeout", async () => {
    const impatient = createEngine(POSTGRESJS_URL, { dialect: postgresJsDialect, statementTimeoutMs: 50 });
    try {
      const error = await impatient
        .execute(sql.raw("SELECT pg_sleep(2)"))
        .all()
        .catch((e: unknown) => e);
      expect(QueryError.isInstance(error)).toBe(true);
      expect((error as QueryError).kind).toBe("statement-timeout");
    } finally {
      await impatient.close();
    }
  });

  /** Two transactions that each lock one row, wait for each other, then want the other's row. */
  async function crosswise(retryOnDeadlock: number): Promise<{ errors: unknown[]; attempts: number }> {
    const bump = (id: number) =>
      update(Counter)
        .set({ hits: sql.raw("hits + 1") })
        .where({ id });
    let arrived = 0;
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => (release = resolve));
    const errors: unknown[] = [];
    let attempts = 0;
    const run = (first: number, second: number) =>
      engine.transaction(
        async (tx) => {
          attempts++;
          await tx.execute(bump(first)).rowsAffected();
          if (attempts <= 2) {
            if (++arrived === 2) release();
            await barrier;
          }
          await tx.execute(bump(second)).rowsAffected();
        },
        { retryOnDeadlock },
      );
    await Promise.all([run(1, 2), run(2, 1)].map((p) => p.catch((e: unknown) => errors.push(e))));
    return { errors, attempts };
  }

  it("classifies a real deadlock as a retryable error", async () => {
    const { errors } = await crosswise(0);
    expect(errors).toHaveLength(1);
    expect(RetryableTransactionError.isInstance(errors[0])).toBe(true);
    expect((errors[0] as QueryError).kind).toBe("deadlock");
    expect((errors[0] as QueryError).driverCode).toBe("40P01");
  });

  it("retryOnDeadlock runs the losing transaction again", async () => {
    await engine.execute(update(Counter).set({ hits: 0 }).allRows()).rowsAffected();
    const { errors, attempts } = await crosswise(3);
    expect(errors).toEqual([]);
    // At least one rerun; on a loaded server the rerun can meet the winner again and be rerun once more.
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(await engine.execute(select(Counter).orderBy("id")).all()).toEqual([
      { id: 1, hits: 2 },
      { id: 2, hits: 2 },
    ]);
  });
});
