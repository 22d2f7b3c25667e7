import { describe, expect, it } from "vitest";
import type { Dialect, Introspector, ModelTableDdl, TableSnapshot } from "../src/index.js";
import {
  column,
  createEngine,
  INTROSPECTOR_VERSION,
  introspect,
  Model,
  modelsSnapshot,
  SCHEMA_SNAPSHOT_VERSION,
  TempestError,
  UnsupportedFeatureError,
  ValidationError,
} from "../src/index.js";
import { IndexedOutbound, Outbound } from "./support/outbound.js";
import { testDialect } from "./support/test-dialect.js";

/** An introspector that hands the DDL texts back as they are, to see what modelsSnapshot gives it. */
function echoIntrospector(seen: ModelTableDdl[], overrides: Partial<Introspector> = {}): Introspector {
  return {
    version: INTROSPECTOR_VERSION,
    introspect: async () => ({ version: SCHEMA_SNAPSHOT_VERSION, dialect: "TestSQL", tables: [table("b"), table("a")] }),
    modelTable: (ddl): TableSnapshot => {
      seen.push(ddl);
      return table(ddl.name);
    },
    ...overrides,
  };
}

function table(name: string): TableSnapshot {
  return { name, columns: [], primaryKey: [], indexes: [], foreignKeys: [] };
}

const withIntrospector = (introspector: unknown): Dialect => ({ ...testDialect(), introspector: introspector as Introspector });

describe("the introspector contract", () => {
  it("refuses a dialect without an introspector by name, before anything reaches the driver", async () => {
    const engine = createEngine("test://x", { dialect: testDialect() });
    const refused = await introspect(engine).catch((e: unknown) => e);
    expect(UnsupportedFeatureError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({ dialect: "TestSQL", feature: expect.stringContaining("introspection") });
    expect((refused as UnsupportedFeatureError).hint).toMatch(/Introspector/);
    expect(() => modelsSnapshot(testDialect(), [Outbound])).toThrow(UnsupportedFeatureError);
    expect(() => modelsSnapshot(testDialect(), [Outbound])).toThrow(/migrations/);
    await engine.close();
  });

  it("checks the introspector's version and members as the dialect contract's", () => {
    const seen: ModelTableDdl[] = [];
    expect(() => modelsSnapshot(withIntrospector(echoIntrospector(seen, { version: INTROSPECTOR_VERSION + 1 })), [Outbound])).toThrow(
      /needs introspector contract 2.*Upgrade tempest-db-js/,
    );
    expect(() => modelsSnapshot(withIntrospector({ ...echoIntrospector(seen), version: undefined }), [Outbound])).toThrow(ValidationError);
    expect(() => modelsSnapshot(withIntrospector({ ...echoIntrospector(seen), modelTable: undefined }), [Outbound])).toThrow(
      /no modelTable\(\)/,
    );
    expect(seen).toEqual([]);
  });

  it("hands the introspector the texts the dialect's compiler writes, and sorts the tables", () => {
    const seen: ModelTableDdl[] = [];
    class Other extends Model {
      static tablename = "a_other";
      id = column.integer().primaryKey();
    }
    const snapshot = modelsSnapshot(withIntrospector(echoIntrospector(seen)), [IndexedOutbound, Other]);
    expect(snapshot.tables.map((t) => t.name)).toEqual(["a_other", IndexedOutbound.tablename]);
    const ddl = seen.find((d) => d.name === IndexedOutbound.tablename);
    expect(ddl?.columns.find((c) => c.name === "attempts")).toMatchObject({
      modelKind: "integer",
      notNull: true,
      defaultSql: "0",
      defaultRandom: false,
    });
    expect(ddl?.columns.find((c) => c.name === "status")?.enumValues).toEqual(["queued", "sending", "sent", "failed"]);
    expect(ddl?.indexes.some((i) => i.where?.includes("IS NOT NULL") === true)).toBe(true);
  });

  it("refuses two models of one table", () => {
    class Again extends Model {
      static tablename = Outbound.tablename;
      id = column.integer().primaryKey();
    }
    expect(() => modelsSnapshot(withIntrospector(echoIntrospector([])), [Outbound, Again])).toThrow(/two models create the table/);
  });

  it("sorts what introspect returns, and reads the catalog through the engine (errors typed)", async () => {
    const sorted = createEngine("test://x", { dialect: withIntrospector(echoIntrospector([])) });
    expect((await introspect(sorted)).tables.map((t) => t.name)).toEqual(["a", "b"]);
    await sorted.close();
    const reading = createEngine("test://x", {
      dialect: withIntrospector(
        echoIntrospector([], {
          introspect: async (reader) => ({
            version: 1,
            dialect: "TestSQL",
            tables: [table(String((await reader.query("SELECT ?", ["t"]))[0]))],
          }),
        }),
      ),
    });
    const failed = await introspect(reading).catch((e: unknown) => e);
    // The test dialect's driver has no database: the failure comes back typed, like any statement's.
    expect(TempestError.isInstance(failed)).toBe(true);
    await reading.close();
  });

  it("validates its options", async () => {
    const engine = createEngine("test://x", { dialect: withIntrospector(echoIntrospector([])) });
    await expect(introspect(engine, { tables: "t" as unknown as string[] })).rejects.toThrow(ValidationError);
    await expect(introspect({} as never)).rejects.toThrow(/takes an engine/);
    expect(() => modelsSnapshot({} as never, [Outbound])).toThrow(/engine or a dialect/);
    await engine.close();
  });
});
