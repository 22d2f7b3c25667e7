import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import type { Engine } from "tempest-db-js";
import { createEngine } from "tempest-db-js";
import type { ResolvedConfig } from "../config.js";

const DIALECT_PACKAGES: Readonly<Record<string, string>> = {
  "postgres:": "@tempest-db-js/dialect-postgres",
  "postgresql:": "@tempest-db-js/dialect-postgres",
  "mysql:": "@tempest-db-js/dialect-mysql",
  "mariadb:": "@tempest-db-js/dialect-mysql",
  "sqlite:": "@tempest-db-js/dialect-sqlite",
};

/**
 * The engine for the config's URL. The dialect package is looked up from the config file's folder
 * (the application's dependencies), not from this package's, and imported so it registers itself;
 * when it is not there, createEngine's own error names the package to install.
 */
export async function openEngine(config: ResolvedConfig): Promise<Engine> {
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(config.url)?.[0].toLowerCase();
  const name = scheme ? DIALECT_PACKAGES[scheme] : undefined;
  if (name) {
    let resolved: string | undefined;
    try {
      resolved = createRequire(config.path).resolve(name);
    } catch {
      resolved = undefined;
    }
    if (resolved) await import(pathToFileURL(resolved).href);
  }
  return createEngine(config.url, { ...config.engine });
}
