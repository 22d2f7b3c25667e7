import type { ColumnMeta, Dialect, DialectCapabilities, Driver, Engine, EngineOptions } from "../../src/index.js";
import { createEngine, DIALECT_CONTRACT_VERSION, defineCapabilities, passThroughCodec, SqlCompiler } from "../../src/index.js";

/** Every capability on: the base compiler's full SQL, with `?` placeholders. */
export const fullCapabilities = defineCapabilities({
  rowLocks: true,
  shareLocks: true,
  skipLocked: true,
  noWait: true,
  lockOf: true,
  returningInsert: true,
  returningUpdate: true,
  returningDelete: true,
  limitInSubquery: true,
  conflictTarget: true,
  conflictTargetWhere: true,
  onDuplicateKey: true,
  partialIndexes: true,
  savepoints: true,
  rightJoin: true,
  fullJoin: true,
  nullsOrder: true,
  exactDecimalAggregates: true,
  ctes: true,
  recursiveCtes: true,
  cteMaterialized: true,
  dataModifyingCtes: true,
  intersectExcept: true,
  intersectAll: true,
  exceptAll: true,
  parenthesizedSetParts: true,
  windowFunctions: true,
  windowGroups: true,
  windowRangeOffset: true,
  windowOffsetDefault: true,
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
