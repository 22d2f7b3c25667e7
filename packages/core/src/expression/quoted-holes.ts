/** Where the SQL text of a template is when a `${}` hole comes. */
type Place = "code" | "single-quoted string" | "double-quoted name" | "backquoted name" | "line comment" | "block comment";

export interface QuotedHole {
  /** The hole's index: 0 for the first `${}`. */
  readonly hole: number;
  readonly place: Place;
}

const NONE: readonly QuotedHole[] = Object.freeze([]);

/**
 * The holes of an `sql.expr` template that sit inside a quoted string, a quoted name or a comment,
 * with where each one is. A hole is always bound as a parameter, so there it is not a value but the
 * characters of a placeholder (`'$1'` is a string; PostgreSQL then counts one parameter fewer than
 * it is sent). Only what every dialect reads the same way is judged: a template with a backslash
 * (MySQL escapes with it, PostgreSQL does not) or a `$` (PostgreSQL dollar quoting) is not.
 */
export function quotedHoles(strings: readonly string[]): readonly QuotedHole[] {
  if (strings.length < 2) return NONE;
  for (const text of strings) if (text.includes("\\") || text.includes("$")) return NONE;
  const found: QuotedHole[] = [];
  let place: Place = "code";
  for (let i = 0; i < strings.length; i++) {
    const text = strings[i] as string;
    for (let j = 0; j < text.length; j++) {
      const c = text[j];
      const next = text[j + 1];
      switch (place) {
        case "code":
          if (c === "'") place = "single-quoted string";
          else if (c === '"') place = "double-quoted name";
          else if (c === "`") place = "backquoted name";
          else if (c === "-" && next === "-") place = "line comment";
          else if (c === "/" && next === "*") {
            place = "block comment";
            j++;
          }
          break;
        case "single-quoted string":
          if (c === "'") place = "code";
          break;
        case "double-quoted name":
          if (c === '"') place = "code";
          break;
        case "backquoted name":
          if (c === "`") place = "code";
          break;
        case "line comment":
          if (c === "\n") place = "code";
          break;
        case "block comment":
          if (c === "*" && next === "/") {
            place = "code";
            j++;
          }
          break;
      }
    }
    if (i < strings.length - 1 && place !== "code") found.push({ hole: i, place });
  }
  return found.length === 0 ? NONE : Object.freeze(found);
}
