import { UnsupportedFeatureError, ValidationError } from "../errors.js";
import type { Dialect } from "./dialect.js";
import type { Introspector } from "./introspector.js";
import { INTROSPECTOR_VERSION } from "./introspector.js";

/**
 * The dialect's introspector, checked like the dialect contract itself: a dialect without one is
 * refused by name (it still serves every other statement), one written for a newer contract asks
 * for a newer core.
 */
export function requireIntrospector(dialect: Dialect, feature: "migrations" | "introspection"): Introspector {
  const introspector = dialect.introspector;
  if (introspector === undefined) {
    throw new UnsupportedFeatureError(
      dialect.name,
      `${feature} (the dialect provides no introspector)`,
      "Use a dialect package that provides `introspector` (the built-in PostgreSQL, MySQL/MariaDB and SQLite dialects do), or add one to this dialect: see the Introspector type in tempest-db-js.",
    );
  }
  const version = introspector.version;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
    throw new ValidationError(`The ${dialect.name} dialect's introspector states no version; set it to INTROSPECTOR_VERSION.`);
  }
  if (version > INTROSPECTOR_VERSION) {
    throw new ValidationError(
      `The ${dialect.name} dialect's introspector needs introspector contract ${version}; this tempest-db-js has ${INTROSPECTOR_VERSION}. Upgrade tempest-db-js.`,
    );
  }
  for (const member of ["introspect", "modelTable"] as const) {
    if (typeof introspector[member] !== "function") {
      throw new ValidationError(`The ${dialect.name} dialect's introspector has no ${member}() (see the Introspector type)`);
    }
  }
  return introspector;
}
