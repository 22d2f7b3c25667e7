import { describe, expect, it } from "vitest";
import type { Driver, DriverConnection } from "../src/index.js";
import { createEngine, DIALECT_CONTRACT_MIN_VERSION, select, UnsupportedFeatureError } from "../src/index.js";
import { Outbound } from "./support/outbound.js";
import { testDialect } from "./support/test-dialect.js";

/** A driver written for contract 2: its connections run statements and have no stream(). */
function contract2Engine(released: boolean[]) {
  const connection: DriverConnection = {
    query: () => Promise.resolve({ rows: [], rowsAffected: 0 }),
    release: (broken) => {
      released.push(broken === true);
    },
  };
  const driver: Driver = { acquire: () => Promise.resolve(connection), close: () => Promise.resolve() };
  const dialect = { ...testDialect(), contractVersion: DIALECT_CONTRACT_MIN_VERSION, createDriver: () => driver };
  return createEngine("test://x", { dialect });
}

describe("stream() on a dialect without streaming", () => {
  it("a contract-2 dialect is still taken, and its streams are refused with UnsupportedFeatureError, connection released", async () => {
    const released: boolean[] = [];
    const engine = contract2Engine(released);
    const error = await (async () => {
      for await (const _ of engine.stream(select(Outbound))) break;
    })().catch((e: unknown) => e);
    expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
    expect((error as UnsupportedFeatureError).feature).toContain("streaming");
    expect((error as UnsupportedFeatureError).dialect).toBe("TestSQL");
    expect(released).toEqual([false]);
    await engine.close();
  });
});
