import type {
  AggregateOfNode,
  ArithmeticNode,
  CastNode,
  FunctionCallNode,
  StringFunction,
  TypedExpressionNode,
} from "../ast/expression-node.js";
import { isTypedExpression } from "../ast/is-typed-expression.js";
import type { ValueNode } from "../ast/value-node.js";
import { typeOf } from "../expression/value-type.js";
import type { ColumnKind, ColumnMeta } from "../schema/column-meta.js";
import type { CompileContext } from "./compiled-query.js";
import type { Over } from "./compiler-base.js";
import { exhaustive, NO_OVER } from "./compiler-base.js";
import { DatetimeCompiler } from "./datetime-compiler.js";

/**
 * The typed expressions (expression/fn.ts): arithmetic, CASE, COALESCE, casts, comparisons,
 * aggregates over expressions. Every rule that would differ between databases is written out here
 * once — integers computed in 64 bits, division by zero NULL, an integer quotient truncated toward
 * zero, bound values cast to their kind — and the dialects answer only the small hooks below
 * (type names, integer division, truncation), so a value means the same on every database.
 */
export abstract class ExpressionCompiler extends DatetimeCompiler {
  protected typedExpression(node: TypedExpressionNode, ctx: CompileContext): string {
    switch (node.kind) {
      case "arithmetic":
        return this.arithmetic(node, ctx);
      case "negate": {
        const kind = node.type.kind;
        if (kind === "numeric") this.requireExactDecimals("- over a numeric value");
        const operand = this.numberOperand(node.operand, kind, ctx);
        // Not `0 - x`: MariaDB 10.11 answers the minimum integer for `0 - <minimum>` where its unary
        // minus raises (the minimum as a bound value alone is refused when built, see constant-integer).
        if (kind === "integer" || kind === "bigint") return this.checkedIntegerSql(`(-${operand})`);
        // A real as a subtraction from zero: the negation of 0 is 0 everywhere (MariaDB has no -0
        // where PostgreSQL and SQLite would answer one).
        return kind === "real" ? `(0 - ${operand})` : `(-${operand})`;
      }
      case "functionCall":
        return this.functionCall(node, ctx);
      case "case": {
        const kind = node.type.kind;
        let sql = "CASE";
        for (const branch of node.branches) {
          sql += ` WHEN ${this.condition(branch.when, ctx, true)} THEN ${this.operand(branch.value, kind, ctx)}`;
        }
        if (node.otherwise !== undefined) sql += ` ELSE ${this.operand(node.otherwise, kind, ctx)}`;
        return `${sql} END`;
      }
      case "cast":
        return this.castExpression(node, ctx);
      case "comparison":
        return `(${this.operand(node.left, node.operandKind, ctx)} ${node.op} ${this.operand(node.right, node.operandKind, ctx)})`;
      case "aggregateOf":
        return this.aggregateOf(node, ctx);
      case "datetimeTrunc":
      case "datetimeField":
      case "datetimeShift":
      case "datetimeDiff":
        return this.datetimeExpression(node, ctx);
      case "literal":
        // A negative constant in parentheses: `x - -1` must never read as `x --1`, a comment.
        return node.value < 0 ? `(${String(node.value)})` : String(node.value);
      default:
        return exhaustive(node);
    }
  }

  /**
   * The value of `SET column = value`. Integer arithmetic assigned to a 32-bit integer column is
   * written as the statement's own arithmetic, `"attempts" + 1`: the statement's columns unqualified
   * and not widened to 64 bits, no parentheses around the whole. What the widening guards against is
   * a 32-bit intermediate overflowing where the 64-bit result would fit; here the result itself is
   * stored in 32 bits, so a value past them fails (PostgreSQL, MySQL strict) or is kept as a 64-bit
   * integer (SQLite, whose integers are 64-bit anyway) with or without the cast. Nested expressions
   * and bound values keep their own rules.
   */
  protected assignedValue(node: ValueNode, column: ColumnMeta, ctx: CompileContext): string {
    if (
      node.kind !== "arithmetic" ||
      ctx.qualify ||
      column.kind !== "integer" ||
      node.type.kind !== "integer" ||
      (node.op !== "+" && node.op !== "-" && node.op !== "*")
    ) {
      return this.value(node, ctx);
    }
    const table = column.table;
    return `${this.assignedOperand(node.left, table, ctx)} ${node.op} ${this.assignedOperand(node.right, table, ctx)}`;
  }

  /** A column of the assigned table as the statement writes its own columns; anything else as an operand (nested arithmetic keeps its parentheses). */
  private assignedOperand(node: ValueNode, table: string, ctx: CompileContext): string {
    if (node.kind === "sourceColumn" && node.column.table === table) return this.quoteName(node.column.name);
    return this.operand(node, "integer", ctx);
  }

  // ---- hooks ------------------------------------------------------------------------------
  /** The type a CAST names for a kind. */
  protected expressionTypeSql(kind: ColumnKind): string {
    switch (kind) {
      case "integer":
      case "bigint":
        return "BIGINT";
      case "real":
        return "DOUBLE PRECISION";
      case "numeric":
        return "NUMERIC(65, 30)";
      case "boolean":
        return "BOOLEAN";
      case "datetime":
        return "TIMESTAMP WITH TIME ZONE";
      case "date":
        return "DATE";
      case "uuid":
        return "UUID";
      case "json":
      case "bytes":
      case "text":
      case "varchar":
      case "enum":
        return "TEXT";
      default:
        return exhaustive(kind);
    }
  }

  /**
   * A bound value inside an expression, typed as its kind: untyped parameters would otherwise be
   * typed by each server's own inference (an integer division of two parameters, a NULL's type).
   */
  protected typedParamSql(sql: string, kind: ColumnKind): string {
    return kind === "real" ? this.floatSql(sql) : `CAST(${sql} AS ${this.expressionTypeSql(kind)})`;
  }

  /** An integer operand as a 64-bit integer, so that no 32-bit column overflows halfway. */
  protected wideIntegerSql(sql: string): string {
    return `CAST(${sql} AS BIGINT)`;
  }

  /** The integer quotient, truncated toward zero (the divisor is already NULL for zero). */
  protected integerDivideSql(left: string, right: string): string {
    return `(${left} / ${right})`;
  }

  /** A real or numeric value truncated toward zero, as a 64-bit integer. */
  protected truncateToIntegerSql(sql: string): string {
    return `CAST(TRUNC(${sql}) AS BIGINT)`;
  }

  /**
   * An integer result of `+ - * /` or negation. PostgreSQL and MySQL raise an error past the 64-bit
   * range; a database that would go on with a float instead (SQLite) raises one here too.
   */
  protected checkedIntegerSql(sql: string): string {
    return sql;
  }

  /** Whether GREATEST / LEAST skip NULL arguments (PostgreSQL) instead of answering NULL. */
  protected extremeSkipsNulls(): boolean {
    return true;
  }

  protected extremeSql(fn: "greatest" | "least", args: readonly string[]): string {
    return `${fn === "greatest" ? "GREATEST" : "LEAST"}(${args.join(", ")})`;
  }

  // ---- operands ---------------------------------------------------------------------------
  /** An operand written as `kind`: a bound value cast to it, a number promoted to it. */
  protected operand(node: ValueNode, kind: ColumnKind, ctx: CompileContext): string {
    const sql = this.value(node, ctx);
    if (node.kind === "param") return this.typedParamSql(sql, kind);
    const from = typeOf(node)?.kind;
    if (from === undefined || from === kind) return sql;
    // A database without exact decimals keeps them in a form of its own (SQLite: ordered text), which
    // only meets other decimals: read as a number, or compared with one, it would mean something else.
    if (from === "numeric" || kind === "numeric") this.requireExactDecimals(`a ${from} value computed as ${kind}`);
    if (kind === "real" && (from === "integer" || from === "bigint" || from === "numeric")) return this.floatSql(sql);
    return sql;
  }

  /** An operand of arithmetic: as `operand`, and a column's 32-bit integer widened to 64 bits. */
  protected numberOperand(node: ValueNode, kind: ColumnKind, ctx: CompileContext): string {
    const sql = this.operand(node, kind, ctx);
    // A column, or a CASE / COALESCE / NULLIF / GREATEST / LEAST of 32-bit values (which is 32-bit on
    // PostgreSQL: -CASE ... END of the minimum overflowed there only); arithmetic results are 64-bit already.
    const passesThrough = !isTypedExpression(node) || node.kind === "case" || node.kind === "functionCall";
    if ((kind === "integer" || kind === "bigint") && node.kind !== "param" && passesThrough) {
      return typeOf(node)?.kind === "integer" ? this.wideIntegerSql(sql) : sql;
    }
    return sql;
  }

  protected arithmetic(node: ArithmeticNode, ctx: CompileContext): string {
    const kind = node.type.kind;
    if (kind === "numeric") this.requireExactDecimals(`${node.op} over numeric values`);
    const left = this.numberOperand(node.left, kind, ctx);
    const right = this.numberOperand(node.right, kind, ctx);
    const integer = kind === "integer" || kind === "bigint";
    switch (node.op) {
      case "+":
      case "-":
      case "*": {
        const sql = `(${left} ${node.op} ${right})`;
        return integer ? this.checkedIntegerSql(sql) : kind === "real" ? positiveZeroSql(sql) : sql;
      }
      case "/":
        // NULL for a zero divisor on every database (PostgreSQL would raise, the others answer NULL).
        // The one quotient past the range, the minimum by -1, is an error as a product would be.
        if (integer) return this.checkedIntegerSql(this.integerDivideSql(left, `NULLIF(${right}, 0)`));
        // Exact: rounded at 30 places on every database, as AVG of a numeric is (see compiler-base).
        if (kind === "numeric") return `ROUND(CAST(${left} AS ${this.expressionTypeSql("numeric")}) / NULLIF(${right}, 0), 30)`;
        return positiveZeroSql(`(${left} / NULLIF(${right}, 0))`);
      case "%":
        return `(${left} % NULLIF(${right}, 0))`;
      default:
        return exhaustive(node.op);
    }
  }

  protected requireExactDecimals(feature: string): void {
    if (!this.capabilities.exactDecimalAggregates) {
      this.unsupported(
        `${feature} (exact decimal arithmetic)`,
        "This database would compute it in floating point. Store the amounts as integer minor units (cents) and compute on those, or cast to real.",
      );
    }
  }

  protected functionCall(node: FunctionCallNode, ctx: CompileContext): string {
    const kind = node.type.kind;
    const args = (): string[] => node.args.map((arg) => this.operand(arg, kind, ctx));
    switch (node.fn) {
      case "coalesce":
        return `COALESCE(${args().join(", ")})`;
      case "nullif":
        return `NULLIF(${args().join(", ")})`;
      case "greatest":
      case "least": {
        // NULL when any argument is NULL, on every database.
        const nullable = node.args.some((arg) => typeOf(arg)?.nullable !== false);
        if (!nullable || !this.extremeSkipsNulls()) return this.extremeSql(node.fn, args());
        const tests = args()
          .map((arg) => `${arg} IS NULL`)
          .join(" OR ");
        return `CASE WHEN ${tests} THEN NULL ELSE ${this.extremeSql(node.fn, args())} END`;
      }
      case "lower":
      case "upper":
      case "trim":
      case "ltrim":
      case "rtrim":
      case "length":
      case "concat":
      case "substring":
        return this.stringFunction(node.fn, node, ctx);
      case "notify": {
        const [channel, payload] = node.args.map((arg) => this.operand(arg, "text", ctx)) as [string, string];
        const call = this.capabilities.listenNotify ? this.notifyCallSql(channel, payload) : undefined;
        if (call === undefined)
          this.unsupported("notifications (LISTEN/NOTIFY), fn.notify", "Poll instead; the queue recipes do so on this dialect.");
        // The function returns nothing (PostgreSQL: void): the value read is a boolean, true.
        return `(${call} IS NOT NULL)`;
      }
      default:
        return exhaustive(node.fn);
    }
  }

  /**
   * The string functions. Their text inputs pass through `textInputSql`, so a result computed from
   * bound values alone still compares and sorts by code point (the rule of docs/dialects.md), and
   * PostgreSQL's LOWER / UPPER fold A-Z only, as SQLite's built-in ones do.
   */
  protected stringFunction(fn: StringFunction, node: FunctionCallNode, ctx: CompileContext): string {
    const text = (i: number) => this.textInputSql(this.operand(node.args[i] as ValueNode, "text", ctx));
    switch (fn) {
      case "lower":
      case "upper":
        return this.caseFoldSql(fn, text(0));
      case "trim":
        return `TRIM(${text(0)})`;
      case "ltrim":
        return `LTRIM(${text(0)})`;
      case "rtrim":
        return `RTRIM(${text(0)})`;
      case "length":
        return this.charLengthSql(this.operand(node.args[0] as ValueNode, "text", ctx));
      case "concat":
        return this.concatSql(node.args.map((_, i) => text(i)));
      case "substring": {
        // Start and length are JavaScript integers (start >= 1, length >= 0), where SUBSTR means the same everywhere.
        // Written in order: positional placeholders bind in the order they are made.
        const args = [text(0), ...node.args.slice(1).map((arg) => this.value(arg, ctx))];
        return `SUBSTR(${args.join(", ")})`;
      }
      default:
        return exhaustive(fn);
    }
  }

  /** The call that queues a notification for commit (`listenNotify` dialects), or undefined: refused. */
  protected notifyCallSql(_channel: string, _payload: string): string | undefined {
    return undefined;
  }

  /** A text input of a string function, in the code point collation where the session's would differ. */
  protected textInputSql(sql: string): string {
    return sql;
  }

  /** A-Z to a-z (or back) and nothing else: SQLite's built-in LOWER / UPPER. */
  protected caseFoldSql(fn: "lower" | "upper", sql: string): string {
    return `${fn === "lower" ? "LOWER" : "UPPER"}(${sql})`;
  }

  /** The length of a text in code points. */
  protected charLengthSql(sql: string): string {
    return `LENGTH(${sql})`;
  }

  /** Texts joined, NULL when any is NULL. */
  protected concatSql(args: readonly string[]): string {
    return `(${args.join(" || ")})`;
  }

  protected castExpression(node: CastNode, ctx: CompileContext): string {
    const to = node.type.kind;
    const from = node.from;
    if (from === "numeric" && to !== "numeric") this.requireExactDecimals(`a cast from numeric to ${to}`);
    const write = () => {
      const sql = this.value(node.operand, ctx);
      return node.operand.kind === "param" ? this.typedParamSql(sql, from) : sql;
    };
    const operand = write();
    if (from === to) return operand;
    switch (to) {
      case "real":
        return this.floatSql(operand);
      case "integer":
      case "bigint":
        // The operand written twice, each with its own placeholders (a `?` binds once per occurrence).
        if (from === "boolean") return `(CASE WHEN ${operand} THEN 1 WHEN NOT ${write()} THEN 0 END)`;
        return from === "real" || from === "numeric" ? this.truncateToIntegerSql(operand) : this.wideIntegerSql(operand);
      case "numeric":
        this.requireExactDecimals("a cast to numeric");
        return `CAST(${operand} AS ${this.expressionTypeSql("numeric")})`;
      case "text":
        return from === "varchar" || from === "enum" ? operand : `CAST(${operand} AS ${this.expressionTypeSql("text")})`;
      default:
        return `CAST(${operand} AS ${this.expressionTypeSql(to)})`;
    }
  }

  /** `over` (` OVER (...)`, from the window layer) follows every aggregate call the value is made of. */
  protected aggregateOf(node: AggregateOfNode, ctx: CompileContext, over: Over = NO_OVER): string {
    const kind = node.operandKind;
    const filter = node.filter;
    if (node.operand === undefined || kind === undefined) {
      return filter === undefined ? `COUNT(*)${over()}` : `COUNT(CASE WHEN ${this.condition(filter, ctx, true)} THEN 1 END)${over()}`;
    }
    if (kind === "numeric" && (node.fn === "sum" || node.fn === "avg")) this.requireExactDecimals(`${node.fn}() of numeric values`);
    const operand = node.operand;
    // Written anew at each use: a text holding `?` placeholders binds its values once per occurrence.
    // The filter first: placeholders bind in the order they are written.
    const value = () => {
      if (filter === undefined) return this.operand(operand, kind, ctx);
      const when = this.condition(filter, ctx, true);
      return `CASE WHEN ${when} THEN ${this.operand(operand, kind, ctx)} END`;
    };
    const arg = (sql = value()) => (node.distinct ? `DISTINCT ${sql}` : sql);
    switch (node.fn) {
      case "count":
        return `COUNT(${arg()})${over()}`;
      case "sum":
        return `SUM(${arg()})${over()}`;
      case "avg":
        if (kind === "numeric") return `ROUND(CAST(SUM(${arg()})${over()} AS DECIMAL(65, 30)) / COUNT(${arg()})${over()}, 30)`;
        // Integers: the exact sum (and an exact DISTINCT), rounded to a double once. AVG over doubles
        // adds values past 2^53 each rounded, in an order each database picks, and answers differently
        // (SQLite's sum past 64 bits is an error, as its integer arithmetic is).
        if (kind === "integer" || kind === "bigint") {
          return `(${this.floatSql(`SUM(${arg()})${over()}`)} / NULLIF(COUNT(${arg()})${over()}, 0))`;
        }
        return `AVG(${arg(this.floatSql(value()))})${over()}`;
      case "min":
      case "max":
        return `${node.fn.toUpperCase()}(${arg()})${over()}`;
      default:
        return exhaustive(node.fn);
    }
  }
}

/**
 * A real result with -0 made 0 (-0 + 0 is 0 in IEEE arithmetic): MariaDB answers 0 where PostgreSQL
 * and SQLite answer -0 for 0 * -1.5 or 0 / -2, and a -0 would then print and sort apart.
 */
function positiveZeroSql(sql: string): string {
  return `(${sql} + 0)`;
}
