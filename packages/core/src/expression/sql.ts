import type { Expression } from "../ast/expression.js";
import { brandExpression, expressionNode } from "../ast/expression.js";
import type { ValueNode } from "../ast/value-node.js";
import { columnRefNode, excludedNode, nowNode, paramNode, rawNode, templateNode } from "../ast/value-node.js";
import { typedQuery } from "../builder/typed-raw.js";
import { textProblem } from "../codec/check-text.js";
import { ValidationError } from "../errors.js";
import { assertBindable, describe } from "./assert-bindable.js";
import { quotedHoles } from "./quoted-holes.js";

/**
 * Expressions are frozen values, so the ones that carry no bound value are shared: `sql.now()` is one
 * object, and `sql.raw` / `sql.ref` / `sql.excluded` keep the few texts and fields a program uses.
 */
const NOW: Expression<Date> = brandExpression(nowNode(undefined));
const MAX_SHARED = 512;
const shared = { raw: new Map<string, Expression>(), ref: new Map<string, Expression>(), excluded: new Map<string, Expression>() };

function sharedExpression(kind: keyof typeof shared, key: unknown, make: () => Expression): Expression<any> {
  if (typeof key !== "string") return make();
  const cache = shared[kind];
  let expression = cache.get(key);
  if (expression === undefined) {
    expression = make();
    if (cache.size < MAX_SHARED) cache.set(key, expression);
  }
  return expression;
}

/**
 * SQL text that no statement may carry: NUL (SQLite's prepare stops at it and would run only the
 * statement's start) and lone surrogates (drivers would send U+FFFD). Checked where the text enters,
 * so the statement is refused when it is built, not when it is compiled.
 */
function checkSqlText(text: string, what: string): void {
  const problem = textProblem(text, false);
  if (problem) throw new ValidationError(`The SQL text of ${what} ${problem}. Pass data as a value.`);
}

function raw<T = unknown>(text: string): Expression<T> {
  if (typeof text !== "string") throw new ValidationError("sql.raw() takes a string of SQL");
  return sharedExpression("raw", text, () => {
    checkSqlText(text, "sql.raw");
    return brandExpression(rawNode(text));
  });
}

/** Template string arrays already checked, with their quoted holes: one per call site, so each is checked once. */
const checkedTemplates = new WeakMap<readonly string[], ReturnType<typeof quotedHoles>>();

function expr<T = unknown>(strings: TemplateStringsArray, ...values: unknown[]): Expression<T> {
  if (!Array.isArray(strings) || !("raw" in strings)) {
    throw new ValidationError("sql.expr is a tagged template: write sql.expr`...${value}...`");
  }
  let quoted = checkedTemplates.get(strings);
  if (quoted === undefined) {
    for (const text of strings) {
      if (typeof text !== "string") throw new ValidationError("sql.expr is a tagged template: its text parts are strings");
      checkSqlText(text, "an sql.expr template");
    }
    quoted = quotedHoles(strings);
    if (Object.isFrozen(strings)) checkedTemplates.set(strings, quoted);
  }
  for (const { hole, place } of quoted) {
    // An expression there is pasted as SQL text, which may be meant; a value is bound, which never is.
    if (expressionNode(values[hole]) !== undefined) continue;
    throw new ValidationError(
      `sql.expr value #${hole + 1} sits inside a ${place}: every \${} is bound as a parameter, never pasted into the text, so there it would be the characters of a placeholder, not the value. Remove the quotes around it (write = \${value}, not = '\${value}').`,
    );
  }
  values.forEach((value, i) => {
    if (expressionNode(value) === undefined) assertBindable(value, `sql.expr value #${i + 1}`);
  });
  return brandExpression(templateNode(strings, values));
}

/**
 * The largest shift sql.nowPlusSeconds takes either way: 1,000 years of seconds. Every datetime type
 * served holds the years 1000 to 9999, so the shifted time stays in range for centuries; past it
 * MariaDB and SQLite compute NULL (a silently empty result) and PostgreSQL fails at run time.
 */
export const MAX_SHIFT_SECONDS = 1000 * 365.2425 * 86_400;

function secondsNode(seconds: number | Expression<number>): ValueNode {
  const node = expressionNode(seconds);
  if (node) return node;
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || Math.abs(seconds) > MAX_SHIFT_SECONDS) {
    // The value itself stays out of the message, as in every other error: only what kind it was.
    throw new ValidationError(
      `sql.nowPlusSeconds takes a finite number of seconds within ±${MAX_SHIFT_SECONDS} (1,000 years), got ${
        typeof seconds === "number" && Number.isFinite(seconds) ? "a number out of that range" : describe(seconds)
      }`,
    );
  }
  return paramNode(seconds);
}

/**
 * The SQL toolbox. `sql.raw` is the only way to put text into a statement verbatim; everything
 * else binds values as parameters.
 */
export const sql = {
  /** Verbatim SQL. Never build its text from user input. */
  raw,
  /** A parameterized SQL fragment: each `${value}` is bound, or inlined when it is itself an expression. */
  expr,
  /** The database's current time, in a form every dialect compares correctly with stored datetimes. */
  now: (): Expression<Date> => NOW,
  /** The database's current time plus (or minus) a number of seconds, bound as a parameter. */
  nowPlusSeconds: (seconds: number | Expression<number>): Expression<Date> => brandExpression(nowNode(secondsNode(seconds))),
  /** In an upsert's update: the value the insert proposed for this field. */
  excluded: <T = unknown>(field: string): Expression<T> => sharedExpression("excluded", field, () => brandExpression(excludedNode(field))),
  /** The column behind a model field of the statement's table, quoted for the dialect. */
  ref: <T = unknown>(field: string): Expression<T> => sharedExpression("ref", field, () => brandExpression(columnRefNode(field))),
  /**
   * A raw SELECT with a declared row, `sql.typed(sql.expr\`SELECT ...\`, { n: "integer", at: "datetime?" })`:
   * typed, and decoded by the declared kinds the same way on every database.
   */
  typed: typedQuery,
};
