import { createEngine, cte, select, UnsupportedFeatureError } from "tempest-db-js";
import { cteQueryTests, ConformanceOrder as Order } from "tempest-db-js/testing";
import { afterAll, describe, expect, it } from "vitest";
import { capabilitiesForVersion, sqliteCapabilities, sqliteDialect } from "../src/index.js";

// The CTE and set-operation queries of the conformance suite (run there on a file) on :memory: too.
const engine = createEngine("sqlite::memory:", { dialect: sqliteDialect });
afterAll(() => engine.close());
cteQueryTests(() => engine);

describe("SQLite's versions", () => {
  it("MATERIALIZED from 3.35.0; INTERSECT ALL / EXCEPT ALL never", () => {
    expect(capabilitiesForVersion("3.35.0", sqliteCapabilities).cteMaterialized).toBe(true);
    expect(capabilitiesForVersion("3.34.1", sqliteCapabilities).cteMaterialized).toBe(false);
    expect(sqliteCapabilities.intersectAll || sqliteCapabilities.exceptAll).toBe(false);
  });

  it("an older SQLite refuses MATERIALIZED by name before anything runs", () => {
    const old = sqliteDialect.createCompiler(capabilitiesForVersion("3.34.0", sqliteCapabilities));
    const query = select(cte("once", select(Order, ["id"]), { materialized: true }));
    let error: unknown;
    try {
      old.compile(query.toNode());
    } catch (e) {
      error = e;
    }
    expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
    expect((error as UnsupportedFeatureError).feature).toBe("MATERIALIZED on a CTE");
  });
});
