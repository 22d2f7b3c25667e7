import type { ConditionNode } from "../ast/condition-node.js";
import type { Expression } from "../ast/expression.js";
import { brandExpression, brandExpressionWith } from "../ast/expression.js";
import type { ArithmeticOperator, CaseBranch, ComparisonOperator, ScalarFunction } from "../ast/expression-node.js";
import {
  aggregateOfNode,
  arithmeticNode,
  caseNode,
  castNode,
  comparisonNode,
  functionCallNode,
  literalNode,
  negateNode,
  valueType,
} from "../ast/expression-node.js";
import type { AggregateFunction, ValueNode } from "../ast/value-node.js";
import { paramNode } from "../ast/value-node.js";
import { checkValue } from "../builder/check-value.js";
import { ValidationError } from "../errors.js";
import type { ColumnKind } from "../schema/column-meta.js";
import { describe } from "./assert-bindable.js";
import { assertConstantInRange } from "./constant-integer.js";
import { datetimeBuilders } from "./datetime-builders.js";
import { stringBuilders } from "./string-builders.js";
import type { Operand } from "./value-type.js";
import { anyNullable, commonKind, familyOf, kindColumn, nodeAs, numberKind, operandOf } from "./value-type.js";

/** How the builders read their arguments: field names (the query helpers' scope) and conditions. */
export interface BuilderScope {
  /** Resolves a bare string as a field reference; undefined: a bare string is refused. */
  readonly ref: ((name: string) => ValueNode) | undefined;
  /** A condition of the where language (or an expression) as a node. */
  readonly condition: (input: unknown, where: string) => ConditionNode;
}

const COLUMN_KINDS: ReadonlySet<string> = new Set([
  "uuid",
  "text",
  "varchar",
  "integer",
  "bigint",
  "real",
  "numeric",
  "boolean",
  "datetime",
  "date",
  "json",
  "enum",
  "bytes",
]);
/** Kinds a value may be cast to, per kind it comes from (fn.cast): the conversions every database makes alike. */
const CASTS: Partial<Record<ColumnKind, ReadonlySet<ColumnKind>>> = {
  integer: new Set(["integer", "bigint", "real", "numeric", "text"]),
  bigint: new Set(["integer", "bigint", "real", "numeric", "text"]),
  real: new Set(["integer", "bigint", "real"]),
  numeric: new Set(["integer", "bigint", "real", "numeric"]),
  boolean: new Set(["boolean", "integer"]),
  text: new Set(["text"]),
  varchar: new Set(["text"]),
  enum: new Set(["text"]),
  uuid: new Set(["text"]),
  date: new Set(["text", "date"]),
  datetime: new Set(["datetime"]),
};
/** Kinds whose values are ordered alike on every database (MIN/MAX, GREATEST/LEAST). */
const ORDERED: ReadonlySet<string> = new Set(["number", "datetime", "date"]);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const ARITHMETIC: Record<string, ArithmeticOperator> = { add: "+", sub: "-", mul: "*", div: "/", mod: "%" };
const COMPARISON: Record<string, ComparisonOperator> = { eq: "=", ne: "<>", lt: "<", lte: "<=", gt: ">", gte: ">=" };

export interface AggregateOptions {
  /** Only the rows this condition keeps are aggregated. */
  readonly filter?: unknown;
  readonly distinct?: boolean;
}

/** The expression builders over a scope: `fn` (no scope) and the query helpers' `q` share them. */
export function expressionBuilders(scope: BuilderScope) {
  const operand = (input: unknown, where: string): Operand => operandOf(input, scope.ref, where);
  const typed = <T>(node: ValueNode): Expression<T> => brandExpression<T>(node as never);

  const arithmetic = (name: string) => (a: unknown, b: unknown) => {
    const where = `fn.${name}`;
    const op = ARITHMETIC[name] as ArithmeticOperator;
    const left = operand(a, `${where} (left)`);
    const right = operand(b, `${where} (right)`);
    const kind = numberKind([left, right], where);
    if (op === "%" && kind !== "integer" && kind !== "bigint") {
      throw new ValidationError(`${where}: the remainder is computed over integers only, and this one is over ${kind} values`);
    }
    // A quotient or remainder by zero is NULL on every database.
    const nullable = anyNullable([left, right]) || op === "/" || op === "%";
    const node = arithmeticNode(op, nodeAs(left, kind, where), nodeAs(right, kind, where), valueType(kind, nullable));
    assertConstantInRange(node, where);
    return typed(node);
  };

  const call = (fn: ScalarFunction, args: readonly Operand[], kind: ColumnKind, nullable: boolean, where: string) =>
    typed(
      functionCallNode(
        fn,
        args.map((arg) => nodeAs(arg, kind, where)),
        valueType(kind, nullable),
      ),
    );

  const extreme =
    (fn: "greatest" | "least") =>
    (...inputs: unknown[]) => {
      const where = `fn.${fn}`;
      if (inputs.length < 2) throw new ValidationError(`${where}: takes two values or more`);
      const args = inputs.map((input, i) => operand(input, `${where} #${i + 1}`));
      const kind = commonKind(args, where);
      if (!ORDERED.has(familyOf(kind))) {
        throw new ValidationError(`${where}: compares numbers, datetimes and dates, not ${kind} values (text order differs by collation)`);
      }
      return call(fn, args, kind, anyNullable(args), where);
    };

  const compare = (name: string) => (a: unknown, b: unknown) => {
    const where = `fn.${name}`;
    const left = operand(a, `${where} (left)`);
    const right = operand(b, `${where} (right)`);
    if (left.type === undefined || right.type === undefined) {
      throw new ValidationError(`${where}: compares with null, which is never true; use op.isNull() or fn.isNull()`);
    }
    const kind = commonKind([left, right], where);
    const op = COMPARISON[name] as ComparisonOperator;
    if (familyOf(kind) === "boolean" && op !== "=" && op !== "<>")
      throw new ValidationError(`${where}: booleans compare for equality only`);
    return typed<boolean>(
      comparisonNode(op, nodeAs(left, kind, where), nodeAs(right, kind, where), kind, valueType("boolean", anyNullable([left, right]))),
    );
  };

  const makeCase = (branches: readonly { when: ConditionNode; then: unknown }[], otherwise: unknown, hasElse: boolean) => {
    const where = "fn.case";
    const thens = branches.map((b, i) => operand(b.then, `${where} then #${i + 1}`));
    const rest = hasElse ? operand(otherwise, `${where} else`) : undefined;
    const all = rest === undefined ? thens : [...thens, rest];
    const kind = commonKind(all, where);
    const nodes: CaseBranch[] = branches.map((b, i) => ({ when: b.when, value: nodeAs(thens[i] as Operand, kind, where) }));
    const type = valueType(kind, rest === undefined || anyNullable(all));
    return caseNode(nodes, rest === undefined ? undefined : nodeAs(rest, kind, where), type);
  };

  const caseExpression = (branches: readonly { when: ConditionNode; then: unknown }[]): Expression<unknown> =>
    brandExpressionWith(makeCase(branches, undefined, false), {
      when: (condition: unknown, then: unknown) =>
        caseExpression([...branches, { when: scope.condition(condition, "fn.case when"), then }]),
      else: (otherwise: unknown) => typed(makeCase(branches, otherwise, true)),
    });

  const aggregate = (fn: AggregateFunction) => (input?: unknown, given?: unknown) => {
    const where = `${fn}()`;
    const options = aggregateOptions(given, where);
    const filter = options.filter === undefined ? undefined : scope.condition(options.filter, `${where} filter`);
    const distinct = options.distinct === true;
    if (input === undefined) {
      if (fn !== "count" || distinct) throw new ValidationError(`${where}: needs a value to aggregate`);
      return typed<number>(aggregateOfNode("count", false, undefined, undefined, filter, valueType("integer", false)));
    }
    const value = operand(input, where);
    const kind = value.type?.kind;
    if (value.node === undefined || kind === undefined)
      throw new ValidationError(`${where}: aggregates a column or an expression, not a literal`);
    const family = familyOf(kind);
    if (fn === "count") return typed<number>(aggregateOfNode(fn, distinct, value.node, kind, filter, valueType("integer", false)));
    if (fn === "sum" || fn === "avg") {
      if (family !== "number") throw new ValidationError(`${where}: needs numbers, not ${kind} values`);
      const result = kind === "numeric" ? "numeric" : fn === "avg" || kind === "real" ? "real" : "integer";
      return typed(aggregateOfNode(fn, distinct, value.node, kind, filter, valueType(result, true)));
    }
    if (!ORDERED.has(family)) {
      throw new ValidationError(
        `${where}: ${fn} of ${kind} values is not computed alike on every database (use q.${fn}(field) for an enum)`,
      );
    }
    return typed(aggregateOfNode(fn, distinct, value.node, kind, filter, valueType(kind, true)));
  };

  return {
    /** A bound value of a stated kind (a string is a value only this way). */
    val: (value: unknown, kind?: ColumnKind) => {
      if (kind === undefined) {
        if (typeof value === "string") return typed<string>(paramNode(value, kindColumn("text")));
        const literal = operand(value, "fn.val");
        if (literal.type === undefined) throw new ValidationError("fn.val(null) needs a kind: fn.val(null, kind)");
        return typed(nodeAs(literal, literal.type.kind, "fn.val"));
      }
      if (typeof kind !== "string" || !COLUMN_KINDS.has(kind)) throw new ValidationError(`fn.val: unknown kind ${String(kind)}`);
      if (value !== null && (kind === "integer" || kind === "bigint")) {
        const literal = operand(value, "fn.val");
        return typed(nodeAs(literal, kind, "fn.val"));
      }
      checkValue(kindColumn(kind), value, "fn.val");
      return typed(paramNode(value, kindColumn(kind)));
    },
    /**
     * An integer constant of the program, written into the SQL text (`attempts + 1`) instead of bound:
     * only a safe integer or a 64-bit bigint, so the text is digits. One text per value, so for
     * constants only; a value that changes from call to call is `fn.val` (one statement for all).
     */
    lit: (value: unknown) => {
      const small = typeof value === "number" && Number.isSafeInteger(value);
      if (!small && !(typeof value === "bigint" && value >= INT64_MIN && value <= INT64_MAX)) {
        throw new ValidationError(`fn.lit takes a safe integer or a 64-bit bigint, got ${describe(value)}; bind other values with fn.val`);
      }
      return typed(literalNode(value as number | bigint, valueType(small ? "integer" : "bigint", false)));
    },
    add: arithmetic("add"),
    sub: arithmetic("sub"),
    mul: arithmetic("mul"),
    div: arithmetic("div"),
    mod: arithmetic("mod"),
    neg: (a: unknown) => {
      const value = operand(a, "fn.neg");
      const kind = numberKind([value], "fn.neg");
      const node = negateNode(nodeAs(value, kind, "fn.neg"), valueType(kind, anyNullable([value])));
      assertConstantInRange(node, "fn.neg");
      return typed(node);
    },
    coalesce: (...inputs: unknown[]) => {
      if (inputs.length < 2) throw new ValidationError("fn.coalesce: takes two values or more");
      const args = inputs.map((input, i) => operand(input, `fn.coalesce #${i + 1}`));
      const kind = commonKind(args, "fn.coalesce");
      return call(
        "coalesce",
        args,
        kind,
        args.every((a) => a.type === undefined || a.type.nullable),
        "fn.coalesce",
      );
    },
    nullif: (a: unknown, b: unknown) => {
      const args = [operand(a, "fn.nullif (value)"), operand(b, "fn.nullif (compared with)")];
      return call("nullif", args, commonKind(args, "fn.nullif"), true, "fn.nullif");
    },
    greatest: extreme("greatest"),
    least: extreme("least"),
    case: (condition: unknown, then: unknown) => caseExpression([{ when: scope.condition(condition, "fn.case when"), then }]),
    cast: (a: unknown, kind: ColumnKind) => {
      const value = operand(a, "fn.cast");
      if (typeof kind !== "string" || !COLUMN_KINDS.has(kind)) throw new ValidationError(`fn.cast: unknown kind ${String(kind)}`);
      const from = value.type?.kind ?? kind;
      if (!CASTS[from]?.has(kind)) {
        throw new ValidationError(`fn.cast: a ${from} does not convert to ${kind} alike on every database`);
      }
      return typed(castNode(nodeAs(value, from, "fn.cast"), from, valueType(kind, anyNullable([value]))));
    },
    eq: compare("eq"),
    ne: compare("ne"),
    lt: compare("lt"),
    lte: compare("lte"),
    gt: compare("gt"),
    gte: compare("gte"),
    count: aggregate("count"),
    sum: aggregate("sum"),
    avg: aggregate("avg"),
    min: aggregate("min"),
    max: aggregate("max"),
    ...stringBuilders(operand),
    ...datetimeBuilders(operand),
  };
}

export type ExpressionBuilders = ReturnType<typeof expressionBuilders>;

/** An aggregate's options: { filter?, distinct? } and nothing else (an option is never silently dropped). */
function aggregateOptions(given: unknown, where: string): AggregateOptions {
  if (given === undefined) return {};
  const plain = typeof given === "object" && given !== null && !Array.isArray(given) && Object.getPrototypeOf(given) === Object.prototype;
  if (!plain || Object.keys(given).some((key) => key !== "filter" && key !== "distinct")) {
    throw new ValidationError(`${where}: the options are { filter?, distinct? }, got ${describe(given)}`);
  }
  const { distinct } = given as AggregateOptions;
  if (distinct !== undefined && typeof distinct !== "boolean") {
    throw new ValidationError(`${where}: distinct is true or false, got ${describe(distinct)}`);
  }
  return given as AggregateOptions;
}
