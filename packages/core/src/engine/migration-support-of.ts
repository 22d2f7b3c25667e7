import type { MigrationSupport } from "../dialect/migration-support.js";
import { requireMigrationSupport } from "../dialect/require-migration-support.js";
import { ValidationError } from "../errors.js";
import { Engine } from "./engine.js";

/**
 * What the engine's dialect provides for the migration runner (see MigrationSupport); an
 * UnsupportedFeatureError naming the dialect when it provides none.
 */
export function migrationSupportOf(engine: Engine): MigrationSupport {
  if (!(engine instanceof Engine)) throw new ValidationError("migrationSupportOf takes an engine");
  return requireMigrationSupport(engine.schemaAccess().dialect);
}
