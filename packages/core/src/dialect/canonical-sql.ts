import type { SqlLexOptions, SqlToken } from "./sql-tokens.js";
import { isPunct, isWord, SQL_KEYWORDS, sqlTokens } from "./sql-tokens.js";

/**
 * One spelling for an SQL expression the dialect's compiler wrote and the same expression as a
 * catalog hands it back (PostgreSQL re-deparses predicates and defaults: `(status = 'a'::text)` for
 * `"status" = 'a'`; MariaDB lowercases functions). The text is parsed into a small expression tree
 * and printed with one rule set:
 *
 * - names always quoted with the dialect's quote, keywords in capitals, function names in lower case;
 * - parentheses only where precedence needs them (`a AND b AND c`, `(a OR b) AND c`);
 * - one space around binary operators and after commas, none inside parentheses;
 * - string literals in single quotes with `''` (and, where the dialect reads them, `\\`) escapes;
 * - whatever the dialect's `rewrite` hook changes (PostgreSQL: casts it added, `= ANY (ARRAY[...])`).
 *
 * Text the parser does not understand is printed token by token with the same spacing rules, so it
 * still compares equal to itself; it never throws.
 */
export interface CanonicalSqlOptions extends SqlLexOptions {
  /** Quotes a name (`"name"`, `` `name` ``). */
  readonly quote: (name: string) => string;
  /** Rewrites a node after its children were read (drop a cast, turn `= ANY (ARRAY[...])` into IN). */
  readonly rewrite?: (node: SqlNode) => SqlNode;
}

export type SqlNode =
  | { readonly t: "literal"; readonly text: string }
  | { readonly t: "string"; readonly value: string; readonly prefix: string }
  | { readonly t: "name"; readonly parts: readonly string[] }
  | { readonly t: "keyword"; readonly word: string }
  | { readonly t: "call"; readonly name: string; readonly args: readonly SqlNode[]; readonly star: boolean }
  | { readonly t: "binary"; readonly op: string; readonly left: SqlNode; readonly right: SqlNode }
  | { readonly t: "unary"; readonly op: string; readonly operand: SqlNode }
  | { readonly t: "is"; readonly operand: SqlNode; readonly negated: boolean; readonly what: string }
  | { readonly t: "in"; readonly operand: SqlNode; readonly negated: boolean; readonly items: readonly SqlNode[] }
  | {
      readonly t: "like";
      readonly op: string;
      readonly operand: SqlNode;
      readonly negated: boolean;
      readonly pattern: SqlNode;
      readonly escape: SqlNode | undefined;
    }
  | { readonly t: "between"; readonly operand: SqlNode; readonly negated: boolean; readonly low: SqlNode; readonly high: SqlNode }
  | { readonly t: "cast"; readonly operand: SqlNode; readonly type: string }
  | { readonly t: "collate"; readonly operand: SqlNode; readonly collation: string }
  | { readonly t: "array"; readonly items: readonly SqlNode[] }
  | { readonly t: "quantified"; readonly op: string; readonly operand: SqlNode; readonly quantifier: string; readonly list: SqlNode };

const COMPARISONS = new Set(["=", "<>", "!=", "<", ">", "<=", ">=", "<=>"]);
/** Binding strength, weakest first. */
const PRECEDENCE: Readonly<Record<string, number>> = { or: 1, and: 2, not: 3, compare: 4, "||": 5, "+": 6, "-": 6, "*": 7, "/": 7, "%": 7 };
const ASSOCIATIVE = new Set(["or", "and", "||", "+", "*"]);

export function canonicalSql(text: string, options: CanonicalSqlOptions): string {
  let tokens: SqlToken[];
  try {
    tokens = sqlTokens(text, options);
  } catch {
    return text.trim();
  }
  try {
    const parser = new Parser(tokens, options.rewrite ?? ((n) => n));
    const node = parser.expression();
    if (parser.done()) return print(node, options);
  } catch {
    // Not an expression the parser knows: printed token by token below.
  }
  return printTokens(tokens, options);
}

/** The expression tree of `text` (after the dialect's rewrites), or undefined when the parser does not understand it. */
export function parseSql(
  text: string,
  options: Pick<CanonicalSqlOptions, "backslashEscapes" | "identifierQuotes" | "rewrite"> = {},
): SqlNode | undefined {
  try {
    const parser = new Parser(sqlTokens(text, options), options.rewrite ?? ((n) => n));
    const node = parser.expression();
    return parser.done() ? node : undefined;
  } catch {
    return undefined;
  }
}

/** An expression tree printed with the canonical rules (see canonicalSql). */
export function printSql(node: SqlNode, options: CanonicalSqlOptions): string {
  return print(node, options);
}

class Parser {
  #i = 0;
  constructor(
    private readonly tokens: readonly SqlToken[],
    private readonly rewrite: (node: SqlNode) => SqlNode,
  ) {}

  done(): boolean {
    return this.#i === this.tokens.length;
  }

  #peek(offset = 0): SqlToken | undefined {
    return this.tokens[this.#i + offset];
  }

  #next(): SqlToken {
    const token = this.tokens[this.#i++];
    if (!token) throw new Error("unexpected end");
    return token;
  }

  #word(word: string): boolean {
    if (!isWord(this.#peek(), word)) return false;
    this.#i++;
    return true;
  }

  #punct(value: string): boolean {
    if (!isPunct(this.#peek(), value)) return false;
    this.#i++;
    return true;
  }

  #expect(value: string): void {
    if (!this.#punct(value)) throw new Error(`expected ${value}`);
  }

  #node(node: SqlNode): SqlNode {
    return this.rewrite(node);
  }

  expression(): SqlNode {
    let left = this.#and();
    while (this.#word("or")) left = this.#node({ t: "binary", op: "or", left, right: this.#and() });
    return left;
  }

  #and(): SqlNode {
    let left = this.#not();
    while (this.#word("and")) left = this.#node({ t: "binary", op: "and", left, right: this.#not() });
    return left;
  }

  #not(): SqlNode {
    if (this.#word("not")) return this.#node({ t: "unary", op: "not", operand: this.#not() });
    return this.#comparison();
  }

  #comparison(): SqlNode {
    const left = this.#concat();
    const token = this.#peek();
    if (token?.kind === "punct" && COMPARISONS.has(token.value)) {
      this.#i++;
      const op = token.value === "!=" ? "<>" : token.value;
      const quantifier = ["any", "all", "some"].find((q) => isWord(this.#peek(), q) && isPunct(this.#peek(1), "("));
      if (quantifier) {
        this.#i += 2;
        const list = this.expression();
        this.#expect(")");
        return this.#node({ t: "quantified", op, operand: left, quantifier, list });
      }
      return this.#node({ t: "binary", op, left, right: this.#concat() });
    }
    if (this.#word("is")) {
      const negated = this.#word("not");
      if (this.#word("distinct")) {
        if (!this.#word("from")) throw new Error("expected FROM");
        return this.#node({ t: "binary", op: negated ? "IS NOT DISTINCT FROM" : "IS DISTINCT FROM", left, right: this.#concat() });
      }
      const what = this.#next();
      if (what.kind !== "word") throw new Error("expected IS operand");
      return this.#node({ t: "is", operand: left, negated, what: what.value.toUpperCase() });
    }
    const negated =
      isWord(this.#peek(), "not") && ["in", "like", "ilike", "between", "glob", "regexp"].some((w) => isWord(this.#peek(1), w));
    if (negated) this.#i++;
    if (this.#word("in")) {
      this.#expect("(");
      const items = this.#list(")");
      return this.#node({ t: "in", operand: left, negated, items });
    }
    for (const op of ["like", "ilike", "glob", "regexp"]) {
      if (this.#word(op)) {
        const pattern = this.#concat();
        const escapeWith = this.#word("escape") ? this.#concat() : undefined;
        return this.#node({ t: "like", op: op.toUpperCase(), operand: left, negated, pattern, escape: escapeWith });
      }
    }
    if (this.#word("between")) {
      const low = this.#concat();
      if (!this.#word("and")) throw new Error("expected AND");
      return this.#node({ t: "between", operand: left, negated, low, high: this.#concat() });
    }
    if (negated) throw new Error("dangling NOT");
    return left;
  }

  #list(close: string): SqlNode[] {
    const items: SqlNode[] = [];
    if (this.#punct(close)) return items;
    do items.push(this.expression());
    while (this.#punct(","));
    this.#expect(close);
    return items;
  }

  #binaryLevel(ops: readonly string[], operand: () => SqlNode): SqlNode {
    let left = operand();
    for (;;) {
      const token = this.#peek();
      if (token?.kind !== "punct" || !ops.includes(token.value)) return left;
      this.#i++;
      left = this.#node({ t: "binary", op: token.value, left, right: operand() });
    }
  }

  #concat(): SqlNode {
    return this.#binaryLevel(["||"], () => this.#additive());
  }

  #additive(): SqlNode {
    return this.#binaryLevel(["+", "-"], () => this.#multiplicative());
  }

  #multiplicative(): SqlNode {
    return this.#binaryLevel(["*", "/", "%"], () => this.#unary());
  }

  #unary(): SqlNode {
    const token = this.#peek();
    if (isPunct(token, "-") || isPunct(token, "+")) {
      this.#i++;
      const operand = this.#unary();
      if (operand.t === "literal" && /^[\d.]/.test(operand.text))
        return this.#node({ t: "literal", text: `${token?.value === "-" ? "-" : ""}${operand.text}` });
      return this.#node({ t: "unary", op: (token as SqlToken).value, operand });
    }
    return this.#postfix(this.#primary());
  }

  #postfix(start: SqlNode): SqlNode {
    let node = start;
    for (;;) {
      if (this.#punct("::")) node = this.#node({ t: "cast", operand: node, type: this.#typeName() });
      else if (this.#word("collate")) node = this.#node({ t: "collate", operand: node, collation: this.#nameToken() });
      else return node;
    }
  }

  /** A PostgreSQL type after `::`: words (`timestamp with time zone`), a modifier, `[]`. */
  #typeName(): string {
    const words: string[] = [];
    const first = this.#next();
    if (first.kind !== "word" && first.kind !== "quoted") throw new Error("expected a type");
    words.push(first.value.toLowerCase());
    const more = ["varying", "precision", "with", "without", "time", "zone"];
    while (this.#peek()?.kind === "word" && more.includes((this.#peek() as SqlToken).value.toLowerCase()))
      words.push(this.#next().value.toLowerCase());
    let type = words.join(" ");
    if (isPunct(this.#peek(), "(")) {
      this.#i++;
      const mods: string[] = [];
      do mods.push(this.#next().value);
      while (this.#punct(","));
      this.#expect(")");
      type += `(${mods.join(",")})`;
    }
    while (isPunct(this.#peek(), "[") && isPunct(this.#peek(1), "]")) {
      this.#i += 2;
      type += "[]";
    }
    return type;
  }

  #nameToken(): string {
    const token = this.#next();
    if (token.kind !== "word" && token.kind !== "quoted") throw new Error("expected a name");
    return token.value;
  }

  #primary(): SqlNode {
    const token = this.#next();
    switch (token.kind) {
      case "number":
        return this.#node({ t: "literal", text: token.value });
      case "string":
        return this.#node({ t: "string", value: token.value, prefix: token.prefix.toUpperCase() === "E" ? "" : token.prefix });
      case "quoted":
        return this.#dotted(token.value);
      case "punct":
        if (token.value === "(") {
          const inner = this.expression();
          this.#expect(")");
          return inner;
        }
        throw new Error(`unexpected ${token.value}`);
      case "word": {
        const lower = token.value.toLowerCase();
        if (lower === "array" && this.#punct("[")) return this.#node({ t: "array", items: this.#list("]") });
        if (lower === "case" || lower === "exists" || lower === "select") throw new Error("not handled");
        if (isPunct(this.#peek(), "(")) {
          this.#i++;
          if (this.#punct("*")) {
            this.#expect(")");
            return this.#node({ t: "call", name: lower, args: [], star: true });
          }
          return this.#node({ t: "call", name: lower, args: this.#list(")"), star: false });
        }
        if (SQL_KEYWORDS.has(lower)) return this.#node({ t: "keyword", word: lower.toUpperCase() });
        return this.#dotted(token.value);
      }
    }
  }

  #dotted(first: string): SqlNode {
    const parts = [first];
    while (isPunct(this.#peek(), ".")) {
      this.#i++;
      parts.push(this.#nameToken());
    }
    return this.#node({ t: "name", parts });
  }
}

function precedenceOf(node: SqlNode): number {
  switch (node.t) {
    case "binary":
      return PRECEDENCE[node.op] ?? PRECEDENCE.compare ?? 4;
    case "unary":
      return node.op === "not" ? 3 : 8;
    case "is":
    case "in":
    case "like":
    case "between":
    case "quantified":
      return 4;
    default:
      return 9;
  }
}

function stringLiteral(value: string, options: CanonicalSqlOptions): string {
  const escaped = options.backslashEscapes ? value.replaceAll("\\", "\\\\") : value;
  return `'${escaped.replaceAll("'", "''")}'`;
}

function print(node: SqlNode, options: CanonicalSqlOptions): string {
  const p = (child: SqlNode, min: number): string => {
    const text = print(child, options);
    return precedenceOf(child) < min ? `(${text})` : text;
  };
  const not = (negated: boolean) => (negated ? "NOT " : "");
  switch (node.t) {
    case "literal":
      return node.text;
    case "string":
      return `${node.prefix}${stringLiteral(node.value, options)}`;
    case "name":
      return node.parts.map(options.quote).join(".");
    case "keyword":
      return node.word;
    case "call":
      return `${node.name}(${node.star ? "*" : node.args.map((a) => print(a, options)).join(", ")})`;
    case "binary": {
      const level = precedenceOf(node);
      const right = ASSOCIATIVE.has(node.op) ? level : level + 1;
      const op = node.op === "or" || node.op === "and" ? node.op.toUpperCase() : node.op;
      return `${p(node.left, level)} ${op} ${p(node.right, right)}`;
    }
    case "unary":
      return node.op === "not" ? `NOT ${p(node.operand, 3)}` : `${node.op}${p(node.operand, 8)}`;
    case "is":
      return `${p(node.operand, 5)} IS ${not(node.negated)}${node.what}`;
    case "in":
      return `${p(node.operand, 5)} ${not(node.negated)}IN (${node.items.map((i) => print(i, options)).join(", ")})`;
    case "like":
      return `${p(node.operand, 5)} ${not(node.negated)}${node.op} ${p(node.pattern, 5)}${node.escape ? ` ESCAPE ${p(node.escape, 5)}` : ""}`;
    case "between":
      return `${p(node.operand, 5)} ${not(node.negated)}BETWEEN ${p(node.low, 5)} AND ${p(node.high, 5)}`;
    case "cast":
      return `${p(node.operand, 9)}::${node.type}`;
    case "collate":
      return `${p(node.operand, 9)} COLLATE ${options.quote(node.collation)}`;
    case "array":
      return `ARRAY[${node.items.map((i) => print(i, options)).join(", ")}]`;
    case "quantified":
      return `${p(node.operand, 5)} ${node.op} ${node.quantifier.toUpperCase()} (${print(node.list, options)})`;
  }
}

/** The fallback: tokens with the canonical spacing, names quoted, keywords in capitals. */
function printTokens(tokens: readonly SqlToken[], options: CanonicalSqlOptions): string {
  let out = "";
  let previous: SqlToken | undefined;
  for (const [i, token] of tokens.entries()) {
    const next = tokens[i + 1];
    let text: string;
    if (token.kind === "string") text = `${token.prefix}${stringLiteral(token.value, options)}`;
    else if (token.kind === "quoted") text = options.quote(token.value);
    else if (token.kind === "word") {
      const lower = token.value.toLowerCase();
      text = isPunct(next, "(") ? lower : SQL_KEYWORDS.has(lower) ? lower.toUpperCase() : options.quote(token.value);
    } else text = token.value;
    const tight =
      previous === undefined ||
      isPunct(previous, "(") ||
      isPunct(previous, "[") ||
      isPunct(previous, "::") ||
      isPunct(previous, ".") ||
      isPunct(token, ")") ||
      isPunct(token, "]") ||
      isPunct(token, ",") ||
      isPunct(token, "::") ||
      isPunct(token, ".") ||
      (isPunct(token, "(") && previous.kind === "word" && !SQL_KEYWORDS.has(previous.value.toLowerCase()));
    out += tight ? text : ` ${text}`;
    previous = token;
  }
  return out;
}
