/**
 * A lexer for the SQL texts catalogs hand back (defaults, index predicates, CHECKs, generated
 * expressions, CREATE statements), shared by the dialects' introspectors so each reads those texts
 * by tokens rather than by regular expressions over raw text, where a quote or a parenthesis inside
 * a string literal would mislead them.
 */
export type SqlToken =
  /** A string literal's value, quotes and escapes removed (`prefix`: E, N, X, _utf8mb4, ...). */
  | { readonly kind: "string"; readonly value: string; readonly prefix: string }
  /** A quoted identifier's name, quotes removed. */
  | { readonly kind: "quoted"; readonly value: string }
  /** An unquoted word: keyword, function or identifier, as written. */
  | { readonly kind: "word"; readonly value: string }
  | { readonly kind: "number"; readonly value: string }
  /** Punctuation and operators: `(`, `)`, `,`, `::`, `<>`, `>=`, `||`, ... */
  | { readonly kind: "punct"; readonly value: string };

export interface SqlLexOptions {
  /** MySQL reads `\` in string literals as an escape (unless NO_BACKSLASH_ESCAPES). */
  readonly backslashEscapes?: boolean;
  /** Which quotes make identifiers: `"` (standard), `` ` `` (MySQL, SQLite), `[` (SQLite). */
  readonly identifierQuotes?: string;
}

const OPERATORS = ["::", "<>", "<=", ">=", "!=", "||", "->>", "->", "<=>", "=>"];
const ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", "0": "\0", b: "\b", Z: "\x1a" };

/** The tokens of `text`; throws SqlLexError on an unterminated quote. */
export function sqlTokens(text: string, options: SqlLexOptions = {}): SqlToken[] {
  const quotes = options.identifierQuotes ?? '"';
  const tokens: SqlToken[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === "-" && text[i + 1] === "-") {
      const end = text.indexOf("\n", i);
      i = end < 0 ? text.length : end + 1;
      continue;
    }
    if (ch === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      if (end < 0) throw new SqlLexError("an unterminated comment");
      i = end + 2;
      continue;
    }
    const prefixed = /^(?:[eEnNxXbB]|_[A-Za-z0-9]+)'/.exec(text.slice(i, i + 20));
    if (ch === "'" || prefixed) {
      const prefix = prefixed ? prefixed[0].slice(0, -1) : "";
      const backslash = options.backslashEscapes === true || prefix.toUpperCase() === "E";
      const read = readQuoted(text, i + prefix.length, "'", backslash);
      tokens.push({ kind: "string", value: read.value, prefix });
      i = read.end;
      continue;
    }
    if (quotes.includes(ch)) {
      const close = ch === "[" ? "]" : ch;
      const read = readQuoted(text, i, close, false);
      tokens.push({ kind: "quoted", value: read.value });
      i = read.end;
      continue;
    }
    const number = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (number) {
      tokens.push({ kind: "number", value: number[0] });
      i += number[0].length;
      continue;
    }
    const word = /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/.exec(text.slice(i));
    if (word) {
      tokens.push({ kind: "word", value: word[0] });
      i += word[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i)) ?? ch;
    tokens.push({ kind: "punct", value: op });
    i += op.length;
  }
  return tokens;
}

function readQuoted(text: string, start: number, close: string, backslash: boolean): { value: string; end: number } {
  let value = "";
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i] as string;
    if (backslash && ch === "\\" && i + 1 < text.length) {
      const next = text[i + 1] as string;
      value += ESCAPES[next] ?? next;
      i += 2;
      continue;
    }
    if (ch === close) {
      if (text[i + 1] === close) {
        value += close;
        i += 2;
        continue;
      }
      return { value, end: i + 1 };
    }
    value += ch;
    i++;
  }
  throw new SqlLexError(`an unterminated ${close} quote`);
}

export class SqlLexError extends Error {
  constructor(what: string) {
    super(`The SQL text has ${what}`);
    this.name = "SqlLexError";
  }
}

/** Whether the token is the word `word` (case-insensitive). */
export function isWord(token: SqlToken | undefined, word: string): boolean {
  return token?.kind === "word" && token.value.toLowerCase() === word.toLowerCase();
}

/** Whether the token is the punctuation `value`. */
export function isPunct(token: SqlToken | undefined, value: string): boolean {
  return token?.kind === "punct" && token.value === value;
}

/** The index just past the parenthesis that closes the one at `open`. */
export function closingParen(tokens: readonly SqlToken[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (isPunct(tokens[i], "(")) depth++;
    else if (isPunct(tokens[i], ")") && --depth === 0) return i + 1;
  }
  throw new SqlLexError("an unclosed parenthesis");
}

/** Splits tokens at commas outside parentheses. */
export function splitTopLevel(tokens: readonly SqlToken[], separator = ","): SqlToken[][] {
  const parts: SqlToken[][] = [[]];
  let depth = 0;
  for (const token of tokens) {
    if (isPunct(token, "(")) depth++;
    if (isPunct(token, ")")) depth--;
    if (depth === 0 && isPunct(token, separator)) parts.push([]);
    else (parts[parts.length - 1] as SqlToken[]).push(token);
  }
  return parts;
}

/** Words the canonical printer writes in capitals and never quotes (everything else unquoted is a name). */
export const SQL_KEYWORDS: ReadonlySet<string> = new Set([
  "and",
  "or",
  "not",
  "is",
  "null",
  "true",
  "false",
  "in",
  "like",
  "ilike",
  "escape",
  "between",
  "distinct",
  "from",
  "case",
  "when",
  "then",
  "else",
  "end",
  "collate",
  "as",
  "any",
  "all",
  "some",
  "array",
  "exists",
  "glob",
  "regexp",
  "current_timestamp",
  "current_date",
  "current_time",
  "localtimestamp",
  "localtime",
  "interval",
  "unknown",
]);
