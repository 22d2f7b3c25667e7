import type { DialectCapabilities, Engine } from "tempest-db-js";
import { createEngine, defineCapabilities } from "tempest-db-js";
import type { Target } from "./targets.js";
import { dialectOf } from "./targets.js";

/**
 * An engine whose dialect claims fewer capabilities than the server has, so that the recipes'
 * other strategies (the ones a MySQL 8 or an older SQLite would get) run against this real server.
 * Capabilities can only be taken away: the server must still do everything that is left.
 */
export function degradedEngine(target: Target, without: Partial<DialectCapabilities>, poolSize = 6): Engine {
  const dialect = dialectOf(target);
  const lower = (caps: DialectCapabilities) => defineCapabilities({ ...caps, ...without });
  const inspect = dialect.inspectServer?.bind(dialect);
  return createEngine(target.url, {
    poolSize,
    dialect: {
      ...dialect,
      capabilitiesFor: (url) => lower(dialect.capabilitiesFor(url)),
      ...(inspect ? { inspectServer: async (connection, assumed) => lower(await inspect(connection, assumed)) } : {}),
    },
  });
}
