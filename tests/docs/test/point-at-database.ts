import type { Target } from "./doc-blocks.js";

const POSTGRES_SCHEMES = new Set(["postgres", "postgresql", "postgresjs"]);

/**
 * Rewrites the URL literal of every `createEngine("...")` whose scheme is a database this project
 * knows (PostgreSQL, MySQL/MariaDB, SQLite, postgres.js) so that it reaches the test database of
 * `target`. A PostgreSQL-family scheme is kept (so `postgresjs://` still picks its dialect); the
 * others become the target's own URL. Any other scheme is left alone, so a block can show the error
 * an unknown one gets.
 */
export function pointAtDatabase(code: string, target: Target, url: string): string {
  const literal = /createEngine\(\s*(["'`])(postgres|postgresql|postgresjs|mysql|mariadb|sqlite):([^"'`]*)\1/gi;
  return code.replace(literal, (_match, quote: string, scheme: string) => {
    const rest = url.slice(url.indexOf(":") + 1);
    const chosen = target === "postgres" && POSTGRES_SCHEMES.has(scheme.toLowerCase()) ? `${scheme}:${rest}` : url;
    return `createEngine(${quote}${chosen}${quote}`;
  });
}
