import { describe, expect, test } from "vitest";
import {
  createEngine,
  DIALECT_CONTRACT_MIN_VERSION,
  DIALECT_CONTRACT_VERSION,
  DialectNotFoundError,
  QueryError,
  redactUrl,
  registerDialect,
  select,
  sql,
  ValidationError,
} from "../src/index.js";
import { Outbound } from "./support/outbound.js";
import { testDialect } from "./support/test-dialect.js";

describe("createEngine without a database", () => {
  test("compile needs no connection: the driver is never created", () => {
    let created = 0;
    const dialect = testDialect();
    const counting = {
      ...dialect,
      createDriver: (config: Parameters<typeof dialect.createDriver>[0]) => {
        created++;
        return dialect.createDriver(config);
      },
    };
    const engine = createEngine("test://x", { dialect: counting });
    expect(engine.compile(select(Outbound, ["id"])).sql).toBe(`SELECT "id" FROM "outbound_messages"`);
    expect(created).toBe(0);
  });

  test("an explicit dialect is checked like a registered one: contract version and required members", () => {
    const dialect = testDialect();
    expect(() => createEngine("test://x", { dialect: { ...dialect, contractVersion: DIALECT_CONTRACT_VERSION + 1 } })).toThrow(
      /needs dialect contract .*Upgrade tempest-db-js/,
    );
    expect(() => createEngine("test://x", { dialect: { ...dialect, contractVersion: DIALECT_CONTRACT_MIN_VERSION - 1 } })).toThrow(
      /was written for dialect contract .*Upgrade the dialect/,
    );
    const { codec: _codec, ...withoutCodec } = dialect;
    expect(() => createEngine("test://x", { dialect: withoutCodec as never })).toThrow(/has no value codec/);
    expect(() => registerDialect(withoutCodec as never)).toThrow(/has no value codec/);
    expect(() => createEngine("test://x", { dialect: { ...dialect, createCompiler: undefined } as never })).toThrow(/no createCompiler/);
  });

  test("an explicit dialect wins over the URL scheme", () => {
    const engine = createEngine("postgresql://x@127.0.0.1/none", { dialect: testDialect() });
    expect(engine.dialectName).toBe("TestSQL");
    expect(engine.compile(select(Outbound, ["id"]).where({ status: "queued" })).sql).toBe(
      `SELECT "id" FROM "outbound_messages" WHERE "status" = ?`,
    );
  });

  test("execute validates at the call site, synchronously, before anything runs", () => {
    const engine = createEngine("test://x", { dialect: testDialect() });
    expect(() => engine.execute({ sql: "SELECT 1" } as never)).toThrow(ValidationError);
    expect(() => engine.execute({ toNode: () => ({ kind: "select" }) } as never)).toThrow(/execute\(\) takes a query builder/);
  });

  test("a driver failure is wrapped in a QueryError that redacts parameters", async () => {
    const engine = createEngine("test://x", { dialect: testDialect() });
    const error = await engine
      .execute(sql.expr`SELECT ${"secret"}`)
      .all()
      .catch((e: unknown) => e);
    expect(QueryError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: "other", sql: "(connect)", params: "[redacted]" });
    expect((error as QueryError).message).not.toContain("secret");
  });

  test("options are checked", () => {
    expect(() => createEngine("test://x", { dialect: testDialect(), poolSize: 0 })).toThrow(/poolSize/);
    expect(() => createEngine(42 as never)).toThrow(ValidationError);
    expect(() => createEngine("not a url", {})).toThrow(/Not a database URL/);
  });
});

describe("dialect registry", () => {
  test("an unknown scheme names both ways out", () => {
    expect(() => createEngine("nosuch://x")).toThrow(DialectNotFoundError);
    expect(() => createEngine("nosuch://x")).toThrow(/createEngine\(url, \{ dialect \}\) or call registerDialect/);
  });

  test("a registered dialect is found by scheme, case-insensitively", () => {
    registerDialect({ ...testDialect(), schemes: ["coretest"] });
    expect(createEngine("CoreTest://db").compile(select(Outbound, ["id"])).sql).toBe(`SELECT "id" FROM "outbound_messages"`);
  });

  test("a dialect written for a newer contract is refused", () => {
    expect(() => registerDialect({ ...testDialect(), schemes: ["future"], contractVersion: DIALECT_CONTRACT_VERSION + 1 })).toThrow(
      /Upgrade tempest-db-js/,
    );
  });

  test("redactUrl hides the password only", () => {
    expect(redactUrl("postgresql://app:s3cret@localhost/app")).toBe("postgresql://app:***@localhost/app");
    expect(redactUrl("postgresql://app@localhost/app")).toBe("postgresql://app@localhost/app");
  });
});
