import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { caseArb } from "./support/arbitraries.js";
import type { Target } from "./support/databases.js";
import { closeTargets, openTargets } from "./support/databases.js";
import { differences } from "./support/run-case.js";

// Random models, rows and where trees through every real database, each answer compared with the
// rules table's JavaScript oracle (support/rules.ts). CI runs a quick sample; DIFFERENTIAL_RUNS=500
// (and DIFFERENTIAL_SEED to replay) runs more by hand. The process zone comes from TZ (the test
// script runs it under America/Sao_Paulo and Europe/Amsterdam); the sessions run in non-UTC zones.
const RUNS = Number(process.env.DIFFERENTIAL_RUNS ?? (process.env.CI ? 40 : 120));
const SEED = process.env.DIFFERENTIAL_SEED === undefined ? undefined : Number(process.env.DIFFERENTIAL_SEED);

let targets: Target[] = [];
/** A table per case: a prepared INSERT keeps the parameter types of the table it was first prepared on. */
let cases = 0;

beforeAll(async () => {
  targets = await openTargets();
});

afterAll(async () => {
  await closeTargets(targets);
});

describe(`every database answers what the rules say (TZ=${process.env.TZ ?? "unset"})`, () => {
  it("runs in the process zone the test script names, and it is not UTC", () => {
    expect(["America/Sao_Paulo", "Europe/Amsterdam"]).toContain(process.env.TZ);
    expect(Intl.DateTimeFormat().resolvedOptions().timeZone).toBe(process.env.TZ);
    expect(new Date("2024-07-01T00:00:00Z").getTimezoneOffset()).not.toBe(0);
  });

  it("stores, reads back, filters and orders random rows as the oracle does", async () => {
    await fc.assert(
      fc.asyncProperty(caseArb(), async (c) => {
        const found: string[] = [];
        const table = `differential_${++cases}`;
        for (const target of targets) found.push(...(await differences(target, c, table)));
        if (found.length > 0) throw new Error(found.join("\n"));
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: false, interruptAfterTimeLimit: 20 * 60_000 },
    );
  });
});
