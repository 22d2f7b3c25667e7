/**
 * Text no database stores faithfully. Every driver encodes strings as UTF-8, which has no spelling
 * for an unpaired UTF-16 surrogate: pg and mysql2 write U+FFFD instead, better-sqlite3 three of them,
 * so the row would hold another value than the one written, and a where on it would match that other
 * value. NUL is refused only where the dialect cannot keep it (`nulInText`): PostgreSQL rejects it in
 * text and jsonb, and SQLite's LIKE, length() and friends stop at it. In SQL text itself NUL is refused
 * everywhere, because SQLite's prepare stops at the first NUL and would run only the statement's start.
 */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * String.prototype.isWellFormed (Node 20+) answers the same question as LONE_SURROGATE, natively and
 * at once for one-byte strings, which cannot hold a surrogate; the regex stays as the fallback.
 */
const wellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;
const isWellFormed = (text: string): boolean => (wellFormed ? wellFormed.call(text) : !LONE_SURROGATE.test(text));

/** Why `text` cannot travel unchanged, or undefined when it can. */
export function textProblem(text: string, nulAllowed: boolean): string | undefined {
  if (!nulAllowed && text.includes("\0")) return "contains NUL (U+0000)";
  if (!isWellFormed(text)) return "contains a lone UTF-16 surrogate (not valid Unicode; drivers would write U+FFFD instead)";
  return undefined;
}

/** The first problem of any string in a bound value: the value itself, or inside a JSON value, keys included. */
export function valueTextProblem(value: unknown, nulAllowed: boolean, depth = 0): string | undefined {
  if (typeof value === "string") return textProblem(value, nulAllowed);
  if (typeof value !== "object" || value === null || depth > 100) return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = valueTextProblem(item, nulAllowed, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const problem = textProblem(key, nulAllowed) ?? valueTextProblem(item, nulAllowed, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}
