import type { Target } from "./doc-blocks.js";

const POSTGRES_SCHEMES = new Set(["postgres", "postgresql", "postgresjs"]);

/**
 * Rewrites the URL literal of every `createEngine("...")` in a program so that it reaches the test
 * database of `target`. A PostgreSQL-family scheme is kept (so `postgresjs://` still picks its
 * dialect); anything else becomes the target's own URL.
 */
export function pointAtDatabase(code: string, target: Target, url: string): string {
  return code.replace(/createEngine\(\s*(["'`])([a-z][a-z0-9+.-]*):([^"'`]*)\1/gi, (_match, quote: string, scheme: string) => {
    const rest = url.slice(url.indexOf(":") + 1);
    const chosen = target === "postgres" && POSTGRES_SCHEMES.has(scheme.toLowerCase()) ? `${scheme}:${rest}` : url;
    return `createEngine(${quote}${chosen}${quote}`;
  });
}
