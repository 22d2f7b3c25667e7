import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { deleteFrom } from "../builder/delete-builder.js";
import { insert } from "../builder/insert-builder.js";
import { select } from "../builder/select.js";
import type { Dialect } from "../dialect/dialect.js";
import type { Engine, EngineOptions } from "../engine/engine.js";
import { createEngine } from "../engine/engine.js";
import { UnsupportedFeatureError } from "../errors.js";
import { behaviourTests } from "./conformance-behaviour.js";
import type { ConformanceCase, ConformanceCaseId } from "./conformance-cases.js";
import { conformanceCases, seedJobs } from "./conformance-cases.js";
import { cteQueryTests } from "./conformance-cte-queries.js";
import { datetimeTests } from "./conformance-datetimes.js";
import { expressionEdgeTests } from "./conformance-expression-edges.js";
import { expressionTests } from "./conformance-expressions.js";
import { ConformanceJob, ConformanceValue } from "./conformance-models.js";
import { queryTests } from "./conformance-queries.js";
import { queryOrderTests } from "./conformance-query-order.js";
import { relationTests } from "./conformance-relations.js";
import { schemaTests } from "./conformance-schema.js";
import { schemaChangeTests } from "./conformance-schema-changes.js";
import { SHAPE_CASE_KINDS, shapeCacheMismatches } from "./conformance-shape-cache.js";
import { streamTests } from "./conformance-streams.js";
import { stringTests } from "./conformance-strings.js";
import { windowTests } from "./conformance-windows.js";

/** Shapes per statement kind in "cached compile equals full compile"; TEMPEST_SHAPE_RUNS for a longer run. */
const SHAPE_RUNS = Number(process.env.TEMPEST_SHAPE_RUNS ?? 200);

/** What a dialect compiles a case to, or the feature it refuses (a substring of UnsupportedFeatureError.feature). */
export type ExpectedStatement = { readonly sql: string; readonly params: readonly unknown[] } | { readonly unsupported: string };

export interface ConformanceTarget {
  /** Shown in the test names. */
  readonly name: string;
  readonly url: string;
  /** Pass the dialect explicitly (third-party dialects); otherwise the URL scheme picks it. */
  readonly dialect?: Dialect;
  readonly engineOptions?: EngineOptions;
  /**
   * `false` for a dialect whose driver has no `stream()` (optional in contract 3): the suite then
   * checks that stream() is refused with UnsupportedFeatureError instead of reading rows.
   */
  readonly streams?: boolean;
  /** Every case, with the exact SQL text and parameters this dialect must produce. */
  readonly expected: Readonly<Record<ConformanceCaseId, ExpectedStatement>>;
}

/**
 * The suite every dialect runs on its real server: for each case the exact SQL and parameters,
 * then execution and the rows it leaves; for each refused case the typed error and an untouched
 * table; then the behaviour every dialect owes (types, transactions, errors, results).
 */
export function runConformanceSuite(target: ConformanceTarget): void {
  const makeEngine = (options: EngineOptions = {}) =>
    createEngine(target.url, { poolSize: 4, ...target.engineOptions, ...(target.dialect ? { dialect: target.dialect } : {}), ...options });

  describe(`${target.name} conformance`, () => {
    let engine: Engine;
    const models = [ConformanceJob, ConformanceValue];

    beforeAll(async () => {
      engine = makeEngine();
      await engine.dropAll(models);
      await engine.createAll(models);
    });

    afterAll(async () => {
      await engine.dropAll(models);
      await engine.close();
    });

    beforeEach(async () => {
      await engine.execute(deleteFrom(ConformanceJob).allRows()).rowsAffected();
      await engine.execute(insert(ConformanceJob).values(seedJobs)).rowsAffected();
    });

    for (const [id, testCase] of Object.entries(conformanceCases) as [ConformanceCaseId, ConformanceCase][]) {
      it(id, async () => {
        const expected = target.expected[id];
        if (!expected) throw new Error(`No expectation for conformance case ${id}`);
        if ("unsupported" in expected) {
          await expectRefused(engine, testCase, expected.unsupported);
          return;
        }
        const query = testCase.build();
        const compiled = engine.compile(query);
        expect({ sql: compiled.sql, params: compiled.params }).toEqual({ sql: expected.sql, params: expected.params });
        await testCase.check?.(engine, query);
      });
    }

    behaviourTests(() => engine, makeEngine);
    queryTests(() => engine);
    windowTests(() => engine);
    queryOrderTests(() => engine);
    cteQueryTests(() => engine);
    relationTests(() => engine, makeEngine);
    expressionTests(() => engine);
    expressionEdgeTests(() => engine);
    stringTests(() => engine);
    datetimeTests(() => engine);
    streamTests(() => engine, makeEngine, target.streams ?? true);
    schemaTests(() => engine);

    describe("cached compile equals full compile", () => {
      for (const kind of SHAPE_CASE_KINDS) {
        it(kind, async () => {
          // Connected first: a dialect may learn its capabilities from the server.
          await engine.execute(select(ConformanceJob).limit(1)).all();
          const { dialect } = (engine as unknown as { core: { dialect: Dialect } }).core;
          const capabilities = engine.capabilities;
          expect(shapeCacheMismatches(() => dialect.createCompiler(capabilities), kind, SHAPE_RUNS)).toEqual([]);
        });
      }
    });
    schemaChangeTests(() => engine);
  });
}

async function expectRefused(engine: Engine, testCase: ConformanceCase, feature: string): Promise<void> {
  let error: unknown;
  try {
    engine.compile(testCase.build());
  } catch (e) {
    error = e;
  }
  expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
  const refused = error as UnsupportedFeatureError;
  expect(refused.dialect).toBe(engine.dialectName);
  expect(refused.feature).toContain(feature);
  expect(refused.hint.length).toBeGreaterThan(10);
  // Nothing reaches the server: executing it fails the same way and the table is unchanged.
  const snapshot = () => engine.execute(select(ConformanceJob).orderBy("id")).all();
  const before = await snapshot();
  const executed = await engine.transaction(async (tx) => tx.execute(testCase.build()).all()).catch((e: unknown) => e);
  expect(UnsupportedFeatureError.isInstance(executed)).toBe(true);
  expect(await snapshot()).toEqual(before);
}

export { conformanceCases } from "./conformance-cases.js";
