/**
 * What replaces a value in a message: the same text everywhere, so a reader can tell redaction
 * from the server's own words.
 */
export const REDACTED = "[redacted]" as const;

/** Bound strings shorter than this are not looked for: replacing "a" or "42" would garble the text. */
const MIN_SECRET_LENGTH = 4;

/**
 * Where the servers put a value in their own words. Each pattern keeps what names the problem (the
 * key's columns, the type, the constraint) and replaces only the value. They run on every string of
 * a failed statement's error and its cause chain, so a value stored earlier (not bound now) that a
 * server quotes back is hidden too.
 */
const VALUE_SLOTS: readonly [RegExp, string][] = [
  // PostgreSQL detail of not-null and check violations: the whole row.
  [/(Failing row contains \()[\s\S]*\)/g, `$1${REDACTED})`],
  // PostgreSQL: invalid input syntax for type integer: "x", invalid input value for enum e: "x", out of range: "x".
  [/(: )"(?:[^"]|"")*"(?=\s*$)/gm, `$1"${REDACTED}"`],
  [/(value )"(?:[^"]|"")*"( is out of range)/g, `$1"${REDACTED}"$2`],
  // PostgreSQL JSON input errors: detail Token "x" is invalid; where JSON data, line 1: ...
  [/(Token )"(?:[^"]|"")*"/g, `$1"${REDACTED}"`],
  [/(JSON data, line \d+: )[^\n]*/g, `$1${REDACTED}`],
  // PostgreSQL context (where): unnamed portal parameter $1 = '...'
  [/(portal parameter \$\d+ = )'(?:[^']|'')*'/g, `$1'${REDACTED}'`],
  // MySQL / MariaDB: Duplicate entry 'x' for key, Incorrect integer value: 'x' for column, ... out of range in 'x'.
  [/(Duplicate entry )'[\s\S]*'( for key )/g, `$1'${REDACTED}'$2`],
  [/(value: )'[\s\S]*?'(?= for column | for function | at row |$)/gm, `$1'${REDACTED}'`],
  [/(Truncated incorrect [\w ]+ value: )'[\s\S]*?'/g, `$1'${REDACTED}'`],
  [/(out of range in )'[\s\S]*'$/gm, `$1'${REDACTED}'`],
];

/** The strings among a statement's bound values that are worth looking for in a message. */
export function secretsOf(params: readonly unknown[]): string[] {
  const secrets: string[] = [];
  for (const param of params) {
    if (typeof param === "string") {
      if (param.length >= MIN_SECRET_LENGTH) secrets.push(param);
    } else if (Array.isArray(param)) {
      // PostgreSQL IN lists travel as one array parameter.
      for (const item of param) if (typeof item === "string" && item.length >= MIN_SECRET_LENGTH) secrets.push(item);
    }
  }
  // Longest first, so a value holding another is replaced whole.
  return secrets.sort((a, b) => b.length - a.length);
}

/** `text` with every bound value in `secrets` and every value slot the servers write replaced. */
export function redactText(text: string, secrets: readonly string[], slots = true): string {
  let result = text;
  for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  if (!slots) return result;
  result = redactKeys(result);
  for (const [pattern, replacement] of VALUE_SLOTS) result = result.replace(pattern, replacement);
  return result;
}

/** What follows a PostgreSQL key's value: `Key (cols)=(value) already exists`, and the like. */
const AFTER_KEY_VALUE = /\) (?:already exists|is not present in table|is still referenced from table|conflicts with existing key)/g;

/**
 * PostgreSQL's `Key (columns)=(value) ...`: the columns kept, the value replaced. The column list is
 * read by balanced parentheses, so a unique index on an expression, `Key (lower(btrim(email)))=(...)`,
 * is matched however deep its calls nest; the value runs to the last phrase that ends it, else to the
 * last `)` of its line.
 */
function redactKeys(text: string): string {
  let from = 0;
  let result = text;
  for (;;) {
    const key = result.indexOf("Key (", from);
    if (key < 0) return result;
    let depth = 0;
    let i = key + 4;
    for (; i < result.length; i++) {
      const c = result[i];
      if (c === "(") depth++;
      else if (c === ")" && --depth === 0) break;
    }
    if (i >= result.length || !result.startsWith("=(", i + 1)) {
      from = key + 5;
      continue;
    }
    const start = i + 3;
    let end = -1;
    AFTER_KEY_VALUE.lastIndex = start;
    for (let m = AFTER_KEY_VALUE.exec(result); m !== null; m = AFTER_KEY_VALUE.exec(result)) end = m.index;
    if (end < 0) {
      const lineEnd = result.indexOf("\n", start);
      end = result.lastIndexOf(")", lineEnd < 0 ? result.length : lineEnd);
      if (end < start) end = lineEnd < 0 ? result.length : lineEnd;
    }
    result = `${result.slice(0, start)}${REDACTED}${result.slice(end)}`;
    from = start + REDACTED.length;
  }
}

/**
 * A copy of a driver's error (and of its cause chain, and of an AggregateError's errors) with every
 * string property redacted: the message and stack, pg's detail / hint / where / internalQuery,
 * mysql2's sqlMessage / sql, and whatever else a driver adds. Same prototype and the same property
 * names, codes and numbers, so `instanceof` and code checks still work; the original, which holds
 * the values, is dropped. Runs when a statement fails, never on a successful one.
 */
export function redactedCopy(value: unknown, secrets: readonly string[], seen = new Map<object, unknown>(), slots = true): unknown {
  if (typeof value === "string") return redactText(value, secrets, slots);
  if (typeof value !== "object" || value === null) return value;
  const done = seen.get(value);
  if (done !== undefined) return done;
  if (seen.size > 50) return REDACTED;
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (const item of value) copy.push(redactedCopy(item, secrets, seen, slots));
    return copy;
  }
  const proto = Object.getPrototypeOf(value);
  // Only errors and plain records are copied; anything else (a socket, a client) is not a message.
  if (!(value instanceof Error) && proto !== Object.prototype && proto !== null) return REDACTED;
  const copy = Object.create(proto) as Record<PropertyKey, unknown>;
  seen.set(value, copy);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (!descriptor) continue;
    if ("value" in descriptor) {
      descriptor.value = redactedCopy(descriptor.value, secrets, seen, slots);
    } else {
      // An accessor could compute from the hidden original: keep what it gives now, redacted.
      let current: unknown;
      try {
        current = (value as Record<PropertyKey, unknown>)[key];
      } catch {
        current = undefined;
      }
      Object.defineProperty(copy, key, {
        value: redactedCopy(current, secrets, seen, slots),
        enumerable: descriptor.enumerable ?? false,
        writable: true,
        configurable: true,
      });
      continue;
    }
    Object.defineProperty(copy, key, descriptor);
  }
  return copy;
}
