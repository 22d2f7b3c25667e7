import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { createEngine } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "./support/databases.js";
import { closeTargets, openTargets } from "./support/databases.js";
import { compareStatement, createTables, load, timing } from "./support/query-run.js";
import { dataArb } from "./support/query-schema.js";
import { buildSetQuery, neededSetCapabilities } from "./support/set-build.js";
import type { SetSpec } from "./support/set-spec.js";
import { setSpecArb, setTotallyOrdered } from "./support/set-spec.js";

// Random CTEs (plain, MATERIALIZED or not, recursive with a bounded depth, read twice, joined to a
// table) and random chains of 2-4 set operations (every operator, ALL or not, parts with and without
// their own ORDER BY + LIMIT/OFFSET, an order and a page of the result) over random rows with NULLs,
// duplicates and empty tables, on every database: the same JavaScript rows (in the same order where
// the order is total, as multisets otherwise), or an UnsupportedFeatureError exactly where the
// dialect's capability flags lack the construct. No oracle: the databases are compared with each
// other. DIFFERENTIAL_CTE_RUNS raises the sample, DIFFERENTIAL_SEED replays one.
const RUNS = Number(process.env.DIFFERENTIAL_CTE_RUNS ?? process.env.DIFFERENTIAL_RUNS ?? (process.env.CI ? 15 : 30));
const SEED = process.env.DIFFERENTIAL_SEED === undefined ? undefined : Number(process.env.DIFFERENTIAL_SEED);
/** Statements per data set: the rows are written once for several statements. */
const STATEMENTS = 5;
/**
 * A bound on each MariaDB statement, in seconds, against a runaway plan. It does not stop the
 * INTERSECT ALL / EXCEPT ALL chain MariaDB 10.11 loops on (that loop never checks for a kill); the
 * compiler keeps that chain from being sent at all.
 */
const MARIADB_STATEMENT_SECONDS = 60;
/** SQLite in a file as well as in memory (a file has WAL, a page cache and temp files of its own). */
const SQLITE_FILE = join(tmpdir(), `tempest-differential-ctes-${process.pid}.db`);

let targets: Target[] = [];

/** The text a target gets for the spec, for a failure message. */
function sqlOf(target: Target, spec: SetSpec): string {
  try {
    return target.engine.compile(buildSetQuery(spec)).sql;
  } catch (error) {
    return `(${(error as Error).message})`;
  }
}

const tally = {
  statements: 0,
  invalid: 0,
  /** Compared: answered by two databases or more. */
  compared: 0,
  answeredEverywhere: 0,
  nonEmpty: 0,
  refusedSomewhere: 0,
  refusedBy: {} as Record<string, number>,
};

beforeAll(async () => {
  targets = await openTargets({ mysql: { statementTimeoutMs: MARIADB_STATEMENT_SECONDS * 1000 } });
  const none = async () => {};
  targets.push({ label: "SQLite (file)", database: "SQLite", engine: createEngine(`sqlite://${SQLITE_FILE}`), prepare: none });
  for (const target of targets) await createTables(target);
});

afterAll(async () => {
  await closeTargets(targets);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${SQLITE_FILE}${suffix}`, { force: true });
  console.log(JSON.stringify(timing));
  console.log(`differential CTEs and set operations: ${JSON.stringify(tally)}`);
});

describe(`every database answers a CTE / set operation the same (TZ=${process.env.TZ ?? "unset"})`, () => {
  it("CTEs and chains of set operations give the same rows or a typed refusal", async () => {
    await fc.assert(
      fc.asyncProperty(dataArb(), fc.array(setSpecArb(), { minLength: 1, maxLength: STATEMENTS }), async (data, specs) => {
        for (const target of targets) await load(target, data);
        const found: string[] = [];
        for (const spec of specs) {
          tally.statements++;
          const verdict = await compareStatement(targets, () => buildSetQuery(spec), neededSetCapabilities(spec), setTotallyOrdered(spec));
          if (verdict.invalid) tally.invalid++;
          if (verdict.answered >= 2) tally.compared++;
          if (verdict.answered === targets.length) tally.answeredEverywhere++;
          if (verdict.rows > 0) tally.nonEmpty++;
          if (verdict.refusedSomewhere) tally.refusedSomewhere++;
          for (const r of verdict.refused) tally.refusedBy[r] = (tally.refusedBy[r] ?? 0) + 1;
          if (verdict.problems.length > 0) {
            const text = targets.map((t) => `${t.label}: ${sqlOf(t, spec)}`).join("\n  ");
            found.push(`statement ${JSON.stringify(spec)}\n  ${text}\n  ${verdict.problems.join("\n  ")}`);
          }
        }
        if (found.length > 0) throw new Error(`over rows ${JSON.stringify(data)}\n${found.join("\n")}`);
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true, interruptAfterTimeLimit: 20 * 60_000 },
    );
    expect(tally.answeredEverywhere).toBeGreaterThan(0);
  });
});
