import type { ColumnMeta, Dialect, DialectCapabilities, Driver, Engine, EngineOptions } from "../../src/index.js";
import {
  createEngine,
  DIALECT_CONTRACT_VERSION,
  defineCapabilities,
  passThroughCodec,
  SqlCompiler,
  safeCapabilities,
} from "../../src/index.js";

/** Each boolean capability of the safe table, switched on. */
const everyFlagOn = Object.fromEntries(
  Object.entries(safeCapabilities).flatMap(([flag, value]) => (typeof value === "boolean" ? [[flag, true]] : [])),
);

/**
 * Every feature on — a flag core adds later is on here too — for the base compiler's full SQL, with `?`
 * placeholders. Off: the three flags that say how a server behaves rather than which SQL it takes.
 */
export const fullCapabilities = defineCapabilities({
  ...everyFlagOn,
  listenNotify: false,
  serializedWrites: false,
  nulInText: false,
  windowsPerSelect: Number.MAX_SAFE_INTEGER,
});

/** A test-only compiler: standard SQL from the base class, `?` placeholders, plain column types. */
export class TestCompiler extends SqlCompiler {
  constructor(capabilities: DialectCapabilities) {
    super("TestSQL", capabilities, passThroughCodec);
  }

  placeholder(_index: number): string {
    return "?";
  }

  nowSql(): string {
    return "NOW()";
  }

  nowPlusSecondsSql(seconds: string): string {
    return `NOW_PLUS(${seconds})`;
  }

  columnType(column: ColumnMeta): string {
    switch (column.kind) {
      case "varchar":
        return `varchar(${column.length ?? 255})`;
      case "datetime":
        return "timestamp";
      case "enum":
        return "text";
      default:
        return column.kind;
    }
  }

  override randomUuidSql(): string {
    return "random_uuid()";
  }
}

/** A driver that must never be reached: these tests only build and compile. */
const throwingDriver: Driver = {
  acquire: () => Promise.reject(new Error("test dialect: no database in core unit tests")),
  close: () => Promise.resolve(),
};

export function testDialect(capabilities: DialectCapabilities = fullCapabilities, name = "TestSQL"): Dialect {
  return {
    contractVersion: DIALECT_CONTRACT_VERSION,
    name,
    schemes: ["test"],
    capabilitiesFor: () => capabilities,
    createCompiler: (caps) => new TestCompiler(caps),
    codec: passThroughCodec,
    createDriver: () => throwingDriver,
    classifyError: (error) => ({ kind: "other", driverCode: undefined, message: String(error) }),
  };
}

export function testEngine(capabilities: DialectCapabilities = fullCapabilities, options: EngineOptions = {}): Engine {
  return createEngine("test://x", { ...options, dialect: testDialect(capabilities) });
}
