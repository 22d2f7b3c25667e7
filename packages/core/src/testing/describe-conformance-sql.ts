import type { Engine } from "../engine/engine.js";
import type { ConformanceCaseId } from "./conformance-cases.js";
import { conformanceCases } from "./conformance-cases.js";
import type { ExpectedStatement } from "./run-conformance-suite.js";

/**
 * Compiles every case with an engine (no connection needed) and returns the expectations object a
 * conformance test takes. Review it line by line before pasting it into a test: it records what
 * the dialect does, not what it should do.
 */
export function describeConformanceSql(engine: Engine): Record<ConformanceCaseId, ExpectedStatement> {
  const out = {} as Record<ConformanceCaseId, ExpectedStatement>;
  for (const id of Object.keys(conformanceCases) as ConformanceCaseId[]) {
    try {
      const compiled = engine.compile(conformanceCases[id].build());
      out[id] = { sql: compiled.sql, params: compiled.params };
    } catch (error) {
      out[id] = { unsupported: (error as { feature?: string }).feature ?? String(error) };
    }
  }
  return out;
}
