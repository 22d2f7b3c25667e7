import type { Dialect } from "tempest-db-js/dialect";
import { DIALECT_CONTRACT_VERSION, defineCapabilities } from "tempest-db-js/dialect";
import { classifyPostgresJsError } from "./classify-postgresjs-error.js";
import { postgresJsCodec } from "./postgresjs-codec.js";
import { PostgresJsCompiler } from "./postgresjs-compiler.js";
import { PostgresJsDriver } from "./postgresjs-driver.js";

/** PostgreSQL 13 or later (gen_random_uuid, SKIP LOCKED, partial-index conflict targets). */
export const postgresJsCapabilities = defineCapabilities({
  calendarIntervals: true,
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
  partialIndexes: true,
  savepoints: true,
  listenNotify: true,
  // The driver passes statementTimeoutMs to the server as statement_timeout (postgresjs-driver.ts).
  statementTimeout: true,
  rightJoin: true,
  fullJoin: true,
  nullsOrder: true,
  exactDecimalAggregates: true,
  windowFunctions: true,
  lateralJoin: true,
  windowGroups: true,
  windowRangeOffset: true,
  windowOffsetDefault: true,
  windowsPerSelect: Number.MAX_SAFE_INTEGER,
  ctes: true,
  recursiveCtes: true,
  cteMaterialized: true,
  dataModifyingCtes: true,
  intersectExcept: true,
  intersectAll: true,
  exceptAll: true,
  parenthesizedSetParts: true,
  maxParams: 65535,
});

/** The dialect object: everything createEngine needs, through the public contract only. */
export const postgresJsDialect: Dialect = {
  contractVersion: DIALECT_CONTRACT_VERSION,
  name: "PostgreSQL (postgres.js)",
  schemes: ["postgresjs"],
  capabilitiesFor: () => postgresJsCapabilities,
  createCompiler: (capabilities) => new PostgresJsCompiler(capabilities),
  codec: postgresJsCodec,
  createDriver: (config) => new PostgresJsDriver(config),
  classifyError: classifyPostgresJsError,
};
