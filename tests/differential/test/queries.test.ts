import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "./support/databases.js";
import { closeTargets, openTargets } from "./support/databases.js";
import { compareQuery, createTables, load, showSpec, timing } from "./support/query-run.js";
import { dataArb } from "./support/query-schema.js";
import { querySpecArb } from "./support/query-spec.js";

// Random joins, projections, aggregates, groupBy/having, distinct, subqueries and orders over random
// rows (NULLs, duplicates, empty tables), run on every database: the answers must be the same
// JavaScript rows (in the same order where the order is total), or an UnsupportedFeatureError exactly
// where the dialect's capability flags lack what the query needs. No oracle: the databases are
// compared with each other. CI runs a quick sample; DIFFERENTIAL_QUERY_RUNS (or DIFFERENTIAL_RUNS)
// raises it, DIFFERENTIAL_SEED replays one.
const RUNS = Number(process.env.DIFFERENTIAL_QUERY_RUNS ?? process.env.DIFFERENTIAL_RUNS ?? (process.env.CI ? 30 : 60));
const SEED = process.env.DIFFERENTIAL_SEED === undefined ? undefined : Number(process.env.DIFFERENTIAL_SEED);
/** Queries per data set: the rows are written once for several queries. */
const QUERIES = 6;

let targets: Target[] = [];
const tally = { queries: 0, answered: 0, nonEmpty: 0, refusedSomewhere: 0, invalid: 0 };

beforeAll(async () => {
  targets = await openTargets();
  for (const target of targets) await createTables(target);
});

afterAll(async () => {
  await closeTargets(targets);
  console.log(JSON.stringify(timing));
  console.log(
    `differential queries: ${tally.queries} queries over ${RUNS} data sets; ${tally.answered} answered everywhere they may be (${tally.nonEmpty} with rows), ${tally.refusedSomewhere} refused by a dialect lacking a feature, ${tally.invalid} refused when built`,
  );
});

describe(`every database answers a query the same (TZ=${process.env.TZ ?? "unset"})`, () => {
  it("joins, aggregates, groups, subqueries and orders give the same rows or the same refusal", async () => {
    await fc.assert(
      fc.asyncProperty(dataArb(), fc.array(querySpecArb(), { minLength: 1, maxLength: QUERIES }), async (data, specs) => {
        for (const target of targets) await load(target, data);
        const found: string[] = [];
        for (const spec of specs) {
          const verdict = await compareQuery(targets, spec);
          tally.queries++;
          if (verdict.answered > 0) tally.answered++;
          if (verdict.rows > 0) tally.nonEmpty++;
          if (verdict.refusedSomewhere) tally.refusedSomewhere++;
          if (verdict.invalid) tally.invalid++;
          if (verdict.problems.length > 0) found.push(`query ${showSpec(spec)}\n  ${verdict.problems.join("\n  ")}`);
        }
        if (found.length > 0) throw new Error(`over rows ${JSON.stringify(data)}\n${found.join("\n")}`);
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true, interruptAfterTimeLimit: 20 * 60_000 },
    );
    expect(tally.answered).toBeGreaterThan(0);
  });
});
