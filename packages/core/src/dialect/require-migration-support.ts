import { UnsupportedFeatureError, ValidationError } from "../errors.js";
import type { Dialect } from "./dialect.js";
import type { MigrationSupport } from "./migration-support.js";
import { MIGRATION_SUPPORT_VERSION } from "./migration-support.js";

/** The dialect's migration support, checked like its introspector (see requireIntrospector). */
export function requireMigrationSupport(dialect: Dialect): MigrationSupport {
  const support = dialect.migrationSupport;
  if (support === undefined) {
    throw new UnsupportedFeatureError(
      dialect.name,
      "migrations (the dialect provides no migrationSupport)",
      "Use a dialect package that provides `migrationSupport` (the built-in PostgreSQL, MySQL/MariaDB and SQLite dialects do), or add one to this dialect: see the MigrationSupport type in tempest-db-js.",
    );
  }
  const version = support.version;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
    throw new ValidationError(`The ${dialect.name} dialect's migrationSupport states no version; set it to MIGRATION_SUPPORT_VERSION.`);
  }
  if (version > MIGRATION_SUPPORT_VERSION) {
    throw new ValidationError(
      `The ${dialect.name} dialect's migrationSupport needs migration-support contract ${version}; this tempest-db-js has ${MIGRATION_SUPPORT_VERSION}. Upgrade tempest-db-js.`,
    );
  }
  const lock = support.lock as { kind?: unknown; tryLock?: unknown; unlock?: unknown } | undefined;
  const sessionLock = lock?.kind === "session" && typeof lock.tryLock === "function" && typeof lock.unlock === "function";
  if (!sessionLock && lock?.kind !== "write-transaction") {
    throw new ValidationError(
      `The ${dialect.name} dialect's migrationSupport.lock is neither a session lock (tryLock, unlock) nor "write-transaction"`,
    );
  }
  return support;
}
