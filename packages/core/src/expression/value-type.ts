import { expressionNode } from "../ast/expression.js";
import type { ValueType } from "../ast/expression-node.js";
import { valueType } from "../ast/expression-node.js";
import { isTypedExpression } from "../ast/is-typed-expression.js";
import type { ValueNode } from "../ast/value-node.js";
import { paramNode } from "../ast/value-node.js";
import { ValidationError } from "../errors.js";
import type { ColumnKind, ColumnMeta } from "../schema/column-meta.js";
import { plainColumnSpec } from "../schema/plain-column-spec.js";
import { describe, isDateValue } from "./assert-bindable.js";

/** Kinds that compare, sort and compute together (numbers promote among themselves, see numberKind). */
export type KindFamily = "number" | "text" | "uuid" | "datetime" | "date" | "boolean" | "json" | "bytes";

export function familyOf(kind: ColumnKind): KindFamily {
  switch (kind) {
    case "integer":
    case "bigint":
    case "real":
    case "numeric":
      return "number";
    case "text":
    case "varchar":
    case "enum":
      return "text";
    default:
      return kind;
  }
}

/** One frozen column per kind: what a literal of an expression is encoded and checked as. */
const kindColumns = new Map<ColumnKind, ColumnMeta>();

export function kindColumn(kind: ColumnKind): ColumnMeta {
  let column = kindColumns.get(kind);
  if (column === undefined) {
    column = Object.freeze({
      ...plainColumnSpec(kind),
      field: "value",
      name: "value",
      table: "expression",
      required: false,
    });
    kindColumns.set(kind, column);
  }
  return column;
}

/** The kind of an aggregate of a plain column (what builder/result-columns reads it as). */
function aggregateType(node: Extract<ValueNode, { kind: "aggregate" }>): ValueType {
  const column = node.column;
  if (node.fn === "count" || column === undefined) return valueType("integer", false);
  if (node.fn === "min" || node.fn === "max") return valueType(column.kind, true);
  if (column.kind === "numeric") return valueType("numeric", true);
  if (node.fn === "avg" || column.kind === "real") return valueType("real", true);
  return valueType("integer", true);
}

/**
 * What a value node produces, where that is known without the statement: the typed expression
 * nodes, columns, aggregates of columns, scalar subqueries, bound values, placeholders, now().
 * Undefined for SQL text and references resolved by name at compile time (sql.raw, sql.expr, sql.ref).
 */
export function typeOf(node: ValueNode): ValueType | undefined {
  switch (node.kind) {
    case "param":
      return node.column ? valueType(node.column.kind, node.value === null) : literalType(node.value);
    case "sourceColumn":
      return valueType(node.column.kind, !node.column.notNull);
    case "aggregate":
      return aggregateType(node);
    case "scalarSubquery": {
      const inner = node.select.columns[0];
      return inner ? valueType(inner.kind, true) : undefined;
    }
    case "placeholder":
      return valueType(node.declared, node.nullable);
    case "now":
      return valueType("datetime", false);
    case "exists":
      return valueType("boolean", false);
    default:
      return isTypedExpression(node) ? node.type : undefined;
  }
}

/** The kind a JavaScript value has as a literal; undefined for null (it takes its neighbours' kind). */
function literalType(value: unknown): ValueType | undefined {
  switch (typeof value) {
    case "number":
      return valueType(Number.isSafeInteger(value) ? "integer" : "real", false);
    case "bigint":
      return valueType("bigint", false);
    case "boolean":
      return valueType("boolean", false);
    case "string":
      return valueType("text", false);
    default:
      return value instanceof Date ? valueType("datetime", false) : undefined;
  }
}

/**
 * One argument of an expression builder, before its kind is settled: a node with a type, or a
 * JavaScript literal that takes the kind its neighbours need (a number next to a numeric is a decimal).
 */
export interface Operand {
  readonly node: ValueNode | undefined;
  readonly literal: unknown;
  /** Undefined only for a null literal. */
  readonly type: ValueType | undefined;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * An argument into an operand. A string is never a value here: `ref` resolves it as a field
 * reference (the query helpers), or it is refused (write `fn.val("text")` for a text value), so no
 * string from a request body is ever bound where a column was meant, or the other way round.
 */
export function operandOf(input: unknown, ref: ((name: string) => ValueNode) | undefined, where: string): Operand {
  const node = expressionNode(input);
  if (node !== undefined) {
    const type = typeOf(node);
    if (type === undefined) {
      throw new ValidationError(
        `${where}: a ${node.kind} expression has no declared kind; use col(Model, field), q.ref(...), fn.val(value, kind) or a typed expression`,
      );
    }
    return { node, literal: undefined, type };
  }
  if (typeof input === "string") {
    if (ref) {
      const resolved = ref(input);
      return { node: resolved, literal: undefined, type: typeOf(resolved) };
    }
    throw new ValidationError(
      `${where}: a bare string is never a value in an expression; write fn.val(${JSON.stringify(input.slice(0, 20))}) for a text, or col(Model, field) for a column`,
    );
  }
  if (input === null) return { node: undefined, literal: null, type: undefined };
  if (typeof input === "number" && !Number.isFinite(input)) throw new ValidationError(`${where}: ${input} is not a finite number`);
  if (typeof input === "bigint" && (input < INT64_MIN || input > INT64_MAX)) {
    throw new ValidationError(`${where}: ${input} is outside the 64-bit range`);
  }
  if (input instanceof Date && !isDateValue(input)) throw new ValidationError(`${where}: an invalid Date`);
  const type = typeof input === "string" ? undefined : literalType(input);
  if (type === undefined) throw new ValidationError(`${where}: ${describe(input)} is not a value an expression takes`);
  return { node: undefined, literal: input, type };
}

/** The node of an operand, a literal bound as `kind` (converted where the kind asks: 2 as a decimal is "2"). */
export function nodeAs(operand: Operand, kind: ColumnKind, where: string): ValueNode {
  if (operand.node !== undefined) return operand.node;
  let value = operand.literal;
  if (value !== null) {
    if (kind === "numeric") value = decimalText(value, where);
    else if (kind === "bigint" && typeof value === "number") value = BigInt(value);
    else if ((kind === "integer" || kind === "bigint") && typeof value === "number" && !Number.isSafeInteger(value)) {
      throw new ValidationError(`${where}: ${value} is not an integer, and the other operands are integers; cast them to real`);
    }
  }
  return paramNode(value, kindColumn(kind));
}

function decimalText(value: unknown, where: string): string {
  const text = typeof value === "string" ? value : String(value);
  if (!/^-?\d+(\.\d+)?$/.test(text)) {
    throw new ValidationError(`${where}: ${describe(value)} cannot be an exact decimal; pass it as fn.val("...", "numeric")`);
  }
  return text;
}

/**
 * The kind numbers compute in together. A real and a numeric never mix (the exact value would be
 * rounded where the other database keeps it); a literal adapts to the expressions beside it.
 */
export function numberKind(operands: readonly Operand[], where: string): ColumnKind {
  let strictReal = false;
  let strictNumeric = false;
  let anyReal = false;
  let anyBigint = false;
  let strictBigint = false;
  let typed = 0;
  for (const operand of operands) {
    const type = operand.type;
    if (type === undefined) continue;
    typed++;
    if (familyOf(type.kind) !== "number") {
      throw new ValidationError(`${where}: takes numbers, and one operand is a ${type.kind}`);
    }
    const strict = operand.node !== undefined;
    if (type.kind === "real") {
      anyReal = true;
      if (strict) strictReal = true;
    } else if (type.kind === "numeric") {
      if (strict) strictNumeric = true;
    } else if (type.kind === "bigint") {
      anyBigint = true;
      if (strict) strictBigint = true;
    }
  }
  if (typed === 0) throw new ValidationError(`${where}: every operand is null, so the expression has no kind; write fn.val(null, kind)`);
  if (strictReal && strictNumeric) {
    throw new ValidationError(
      `${where}: mixes a real (floating point) with a numeric (exact decimal); cast one of them first (fn.cast(x, "real") or "numeric")`,
    );
  }
  if (strictNumeric) return "numeric";
  if (anyReal) {
    if (strictBigint) throw new ValidationError(`${where}: a fraction next to a bigint; cast the bigint to real first`);
    return "real";
  }
  return anyBigint ? "bigint" : "integer";
}

/**
 * The common kind of values that stand in one place (COALESCE's arguments, CASE's branches, the two
 * sides of a comparison): one family, numbers promoted, texts as text.
 */
export function commonKind(operands: readonly Operand[], where: string): ColumnKind {
  let family: KindFamily | undefined;
  let kind: ColumnKind | undefined;
  for (const operand of operands) {
    const type = operand.type;
    if (type === undefined) continue;
    const f = familyOf(type.kind);
    if (f === "json" || f === "bytes")
      throw new ValidationError(`${where}: a ${f} value is not compared or combined alike on every database`);
    if (family !== undefined && f !== family) {
      throw new ValidationError(`${where}: mixes a ${kind} with a ${type.kind}; cast one of them first`);
    }
    family = f;
    kind = kind === undefined || kind === type.kind ? type.kind : f === "text" ? "text" : kind;
  }
  if (family === undefined)
    throw new ValidationError(`${where}: every value is null, so the expression has no kind; write fn.val(null, kind)`);
  return family === "number" ? numberKind(operands, where) : (kind as ColumnKind);
}

/** True when any operand may be NULL (a null literal always is). */
export function anyNullable(operands: readonly Operand[]): boolean {
  for (const operand of operands) if (operand.type === undefined || operand.type.nullable) return true;
  return false;
}
