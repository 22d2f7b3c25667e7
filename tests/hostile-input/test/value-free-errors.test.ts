import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine, QueryEvent } from "tempest-db-js";
import { column, createEngine, insert, Model, op, select, sql, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { MYSQL_URL, PG_URL } from "./support/targets.js";

/**
 * sql.nowPlusSeconds out of range returned no rows on MariaDB and SQLite (the shifted time computes
 * NULL) and failed at run time on PostgreSQL: now the same ValidationError everywhere, while
 * building, that names the range and never the value. The stream batch size likewise.
 */
class Lease extends Model {
  static tablename = "tempest_value_free_leases";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  until = column.datetime().notNull();
}

const sqliteDir = mkdtempSync(join(tmpdir(), "tempest-value-free-"));
const databases = [
  { name: "PostgreSQL", url: PG_URL },
  { name: "MariaDB", url: MYSQL_URL },
  { name: "SQLite", url: `sqlite://${join(sqliteDir, "value-free.db")}` },
];

const YEARS_1000 = 1000 * 365.2425 * 86_400;
/** Out of range, each with the digits that must not show in the message. */
const OUT_OF_RANGE: [number, string][] = [
  [1e21, "1e+21"],
  [2 ** 53, "9007199254740992"],
  [-(2 ** 53), "9007199254740992"],
  [YEARS_1000 + 1, "31556952001"],
  [Number.POSITIVE_INFINITY, "Infinity"],
];

describe.each(databases)("$name: out-of-range values are refused while building, without the value", ({ url }) => {
  let engine: Engine;
  const sent: QueryEvent[] = [];

  beforeAll(async () => {
    engine = createEngine(url, { poolSize: 2, onQuery: (event) => sent.push(event) });
    await engine.dropAll([Lease]);
    await engine.createAll([Lease]);
    await engine.execute(insert(Lease).values([{ id: 1, until: new Date("2020-01-01T00:00:00Z") }])).rowsAffected();
  });

  afterAll(async () => {
    await engine.dropAll([Lease]);
    await engine.close();
  });

  it.each(OUT_OF_RANGE)("sql.nowPlusSeconds(%d): a ValidationError naming the range", (seconds, digits) => {
    sent.length = 0;
    let error: unknown;
    try {
      engine.execute(select(Lease).where({ until: op.lt(sql.nowPlusSeconds(seconds)) }));
    } catch (e) {
      error = e;
    }
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/within ±31556952000 \(1,000 years\)/);
    expect((error as Error).message).not.toContain(digits);
    expect(sent).toEqual([]);
  });

  it("the edges of the range run, and compare as they should", async () => {
    const later = await engine.execute(select(Lease, ["id"]).where({ until: op.lt(sql.nowPlusSeconds(YEARS_1000)) })).all();
    expect(later).toEqual([{ id: 1 }]);
    const earlier = await engine.execute(select(Lease, ["id"]).where({ until: op.lt(sql.nowPlusSeconds(-YEARS_1000)) })).all();
    expect(earlier).toEqual([]);
  });

  it.each([0, -1, 1.5, 100_001, Number.NaN])("stream batchSize %d: refused without the value", (batchSize) => {
    let error: unknown;
    try {
      engine.stream(select(Lease), { batchSize });
    } catch (e) {
      error = e;
    }
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^batchSize must be an integer from 1 to 100000, got (a number|NaN)$/);
  });
});

afterAll(() => {
  rmSync(sqliteDir, { recursive: true, force: true });
});
