import { describe, expect, test } from "vitest";
import * as dialect from "../src/dialect/index.js";
import * as root from "../src/index.js";

describe("the tempest-db-js/dialect entry point", () => {
  test("each value it exports is the root entry's own (code importing either keeps working)", () => {
    const names = Object.keys(dialect);
    expect(names.length).toBeGreaterThan(30);
    for (const name of names) expect((root as Record<string, unknown>)[name], name).toBe((dialect as Record<string, unknown>)[name]);
  });

  test("holds the contract and the base compiler, and none of the query builders or the engine", () => {
    expect(typeof dialect.SqlCompiler).toBe("function");
    expect(typeof dialect.registerDialect).toBe("function");
    expect(typeof dialect.defineCapabilities).toBe("function");
    expect(dialect.DIALECT_CONTRACT_VERSION).toBe(root.DIALECT_CONTRACT_VERSION);
    expect(dialect.INTROSPECTOR_VERSION).toBe(root.INTROSPECTOR_VERSION);
    expect(dialect.UnsupportedFeatureError).toBe(root.UnsupportedFeatureError);
    for (const userName of ["select", "update", "insert", "createEngine", "Engine", "Model", "column", "sql"]) {
      expect(Object.keys(dialect), userName).not.toContain(userName);
    }
  });
});
