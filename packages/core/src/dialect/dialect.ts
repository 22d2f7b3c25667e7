import type { ValueCodec } from "../codec/value-codec.js";
import type { SqlCompiler } from "../compiler/sql-compiler.js";
import type { QueryErrorKind } from "../errors.js";
import type { DialectCapabilities } from "./capabilities.js";
import type { Driver, DriverConfig, DriverConnection } from "./driver.js";
import type { Introspector } from "./introspector.js";
import type { MigrationSupport } from "./migration-support.js";

/**
 * The version of this contract. A dialect states the one it was written for; core takes dialects
 * written for versions from DIALECT_CONTRACT_MIN_VERSION up to this one.
 * 2: `codec` (the value codec, split out of the compiler); the compiler's internals are protected.
 * 3: the optional `DriverConnection.stream` (engine.stream); a dialect written for 2 still works, and
 *    its streams are refused with UnsupportedFeatureError.
 */
export const DIALECT_CONTRACT_VERSION = 3;
/** The oldest contract this core still serves. */
export const DIALECT_CONTRACT_MIN_VERSION = 2;

export interface ClassifiedError {
  readonly kind: QueryErrorKind;
  readonly driverCode: string | undefined;
  readonly constraint?: string | undefined;
  readonly message: string;
  /** Overrides the kind's `retryable` (e.g. a server that is starting up: try again in a moment). */
  readonly retryable?: boolean | undefined;
}

/**
 * The plugin contract: everything a dialect package provides. The built-in dialects use nothing
 * beyond it, so a third-party dialect can do whatever they do.
 */
export interface Dialect {
  readonly contractVersion: number;
  /** Human name used in errors: "PostgreSQL", "MySQL", "SQLite". */
  readonly name: string;
  /** URL schemes without the colon: ["postgres", "postgresql"]. */
  readonly schemes: readonly string[];
  /** Capabilities assumed before a connection has told more (see `inspectServer`). */
  capabilitiesFor(url: string): DialectCapabilities;
  /** A compiler for these capabilities (called again once `inspectServer` has answered). */
  createCompiler(capabilities: DialectCapabilities): SqlCompiler;
  /**
   * How values travel to and from the driver, per column kind. One object for the dialect: the
   * engine decodes rows with it, whichever compiler is current; the dialect's compiler encodes with it.
   */
  readonly codec: ValueCodec;
  createDriver(config: DriverConfig): Driver;
  /** Checks `createEngine(url, { driver })` options up front, so a typo fails in createEngine, not at the first statement. */
  validateOptions?(options: Readonly<Record<string, unknown>>): void;
  classifyError(error: unknown): ClassifiedError;
  /** Run once on the first connection: the capabilities of the actual server (e.g. its version). */
  inspectServer?(connection: DriverConnection, assumed: DialectCapabilities): Promise<DialectCapabilities>;
  /** Reads a live schema for migrations (optional, versioned on its own: see INTROSPECTOR_VERSION). */
  readonly introspector?: Introspector;
  /** What the migration runner needs beyond the introspector (optional, versioned on its own: see MIGRATION_SUPPORT_VERSION). */
  readonly migrationSupport?: MigrationSupport;
}
