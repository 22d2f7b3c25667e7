import { createRequire } from "node:module";
import { join } from "node:path";
import { DialectNotFoundError, ValidationError } from "../errors.js";
import type { Dialect } from "./dialect.js";
import { DIALECT_CONTRACT_MIN_VERSION, DIALECT_CONTRACT_VERSION } from "./dialect.js";

const registry = new Map<string, Dialect>();

/** The package each built-in scheme comes from, loaded when nothing is registered for it. */
const conventional: Readonly<Record<string, string>> = {
  postgres: "@tempest-db-js/dialect-postgres",
  postgresql: "@tempest-db-js/dialect-postgres",
  mysql: "@tempest-db-js/dialect-mysql",
  mariadb: "@tempest-db-js/dialect-mysql",
  sqlite: "@tempest-db-js/dialect-sqlite",
};

/** Makes a dialect available to `createEngine` for its URL schemes. Dialect packages call it on import. */
export function registerDialect(dialect: Dialect): void {
  checkDialect(dialect);
  for (const scheme of dialect.schemes) registry.set(scheme.toLowerCase(), dialect);
}

/**
 * Refuses a dialect written for a contract this core does not serve, or missing a member the
 * contract requires: registerDialect and createEngine(url, { dialect }) both check.
 */
export function checkDialect(dialect: Dialect): void {
  if (typeof dialect !== "object" || dialect === null) throw new ValidationError("A dialect is an object (see the Dialect type)");
  const version = dialect.contractVersion;
  if (typeof version !== "number" || !Number.isInteger(version)) {
    throw new ValidationError(`The ${String(dialect.name)} dialect states no contractVersion; set it to DIALECT_CONTRACT_VERSION.`);
  }
  if (version > DIALECT_CONTRACT_VERSION) {
    throw new ValidationError(
      `The ${dialect.name} dialect needs dialect contract ${version}; this tempest-db-js has ${DIALECT_CONTRACT_VERSION}. Upgrade tempest-db-js.`,
    );
  }
  if (version < DIALECT_CONTRACT_MIN_VERSION) {
    throw new ValidationError(
      `The ${dialect.name} dialect was written for dialect contract ${version}; this tempest-db-js needs ${DIALECT_CONTRACT_MIN_VERSION} to ${DIALECT_CONTRACT_VERSION}. Upgrade the dialect (contract 2 moved value encoding into Dialect.codec).`,
    );
  }
  for (const member of ["capabilitiesFor", "createCompiler", "createDriver", "classifyError"] as const) {
    if (typeof dialect[member] !== "function")
      throw new ValidationError(`The ${dialect.name} dialect has no ${member}() (see the Dialect type)`);
  }
  const codec = dialect.codec;
  if (
    typeof codec !== "object" ||
    codec === null ||
    ["encode", "decode", "encodesAsIs", "decodesAsIs"].some((m) => typeof (codec as unknown as Record<string, unknown>)[m] !== "function")
  ) {
    throw new ValidationError(
      `The ${dialect.name} dialect has no value codec (Dialect.codec with encode, decode, encodesAsIs, decodesAsIs)`,
    );
  }
}

export function schemeOf(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*):/i.exec(url);
  if (!match?.[1]) throw new ValidationError(`Not a database URL: ${JSON.stringify(redactUrl(url))}`);
  return match[1].toLowerCase();
}

/** The registered dialect for a URL, loading the conventional package when none is registered. */
export function dialectFor(url: string): Dialect {
  const scheme = schemeOf(url);
  const found = registry.get(scheme);
  if (found) return found;
  const pkg = conventional[scheme];
  if (!pkg) {
    throw new DialectNotFoundError(
      `No dialect is registered for "${scheme}:". Pass one with createEngine(url, { dialect }) or call registerDialect(dialect) first.`,
    );
  }
  const exported = loadPackage(pkg);
  // The package registers itself on import; its default export covers a second copy of core.
  const loaded = registry.get(scheme) ?? exported;
  if (!loaded?.schemes?.includes(scheme)) throw new DialectNotFoundError(`${pkg} was loaded but provides no dialect for "${scheme}:"`);
  return loaded;
}

/** Synchronous, so that createEngine stays synchronous: require() of an ES module works on Node ≥ 20.19. */
function loadPackage(pkg: string): Dialect | undefined {
  // From core's own location (npm's flat node_modules), then from the application (pnpm's strict layout).
  const bases = [import.meta.url, join(process.cwd(), "package.json")];
  let lastError: unknown;
  for (const base of bases) {
    try {
      const mod = createRequire(base)(pkg) as { default?: Dialect };
      return mod.default;
    } catch (error) {
      lastError = error;
      if ((error as { code?: string }).code !== "MODULE_NOT_FOUND") break;
    }
  }
  throw new DialectNotFoundError(`This URL needs the ${pkg} package. Install it: npm install ${pkg}`, { cause: lastError });
}

/** The URL with its password masked: the user-info password and any password-like query parameter. */
export function redactUrl(url: string): string {
  const password = passwordSpan(url);
  const masked = password === undefined ? url : `${url.slice(0, password.start)}***${url.slice(password.end)}`;
  return masked.replace(PASSWORD_PARAMS, "$1***");
}

const PASSWORD_PARAMS = /([?&](?:password|passwd|pass|pwd|sslpassword|token|secret)=)[^&#]*/gi;

/**
 * Where the password of `scheme://user:password@host/...` sits. A password may hold `/`, `?`, `#` or an
 * unencoded `@` that a URL parser would not read as part of it, so it runs from the first `:` after
 * `//` (a user name holds none) to the last `@` of the whole text: when in doubt, more is masked (a
 * URL without a password but with an `@` after `host:port`, in a query parameter, masks from the port).
 */
function passwordSpan(url: string): { start: number; end: number } | undefined {
  const slashes = url.indexOf("//");
  if (slashes < 0) return undefined;
  const colon = url.indexOf(":", slashes + 2);
  const at = url.lastIndexOf("@");
  if (colon < 0 || at < colon) return undefined;
  return { start: colon + 1, end: at };
}

/**
 * The strings of a database URL that must not show in any error: the URL itself and its password,
 * raw and decoded (a driver's parse error quotes the input whole, e.g. TypeError's `input`).
 */
export function urlSecrets(url: string): string[] {
  const secrets = [url];
  const password = passwordSpan(url);
  if (password !== undefined) {
    const raw = url.slice(password.start, password.end);
    if (raw.length >= 4) secrets.push(raw);
    try {
      const decoded = decodeURIComponent(raw);
      if (decoded !== raw && decoded.length >= 4) secrets.push(decoded);
    } catch {
      // Not percent-encoded text: the raw form is the one a driver would quote.
    }
  }
  return secrets.sort((a, b) => b.length - a.length);
}
