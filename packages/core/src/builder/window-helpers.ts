import type { Expression } from "../ast/expression.js";
import { brandExpression, brandExpressionWith, expressionNode } from "../ast/expression.js";
import type { AggregateOfNode } from "../ast/expression-node.js";
import { valueType } from "../ast/expression-node.js";
import { isTypedExpression } from "../ast/is-typed-expression.js";
import type { AggregateNode, ValueNode } from "../ast/value-node.js";
import { paramNode, sourceColumnNode } from "../ast/value-node.js";
import type {
  FrameBoundKind,
  FrameBoundNode,
  FrameUnit,
  WindowFunctionNode,
  WindowKeyNode,
  WindowNode,
  WindowSpecNode,
} from "../ast/window-node.js";
import {
  frameBoundNode,
  offsetFunctionNode,
  rankingFunctionNode,
  windowFrameNode,
  windowKeyNode,
  windowNode,
  windowSpecNode,
} from "../ast/window-node.js";
import { ValidationError } from "../errors.js";
import { describe } from "../expression/assert-bindable.js";
import { kindColumn } from "../expression/value-type.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { TableMeta } from "../schema/table-meta.js";
import { checkValue } from "./check-value.js";
import type { QueryScope } from "./query-scope.js";
import { refColumn } from "./query-scope.js";
import { isPlainRecord } from "./resolve-set.js";
import { aggregateResult, resultColumn } from "./result-columns.js";
import { typedResult } from "./typed-result.js";
import { refuseWindowValue } from "./window-rules.js";

type Scope = QueryScope | TableMeta;

const NUMBER_KINDS = new Set(["integer", "real"]);

/** The window functions of `q`: each needs `.over(window)`. */
export function windowHelpers(scope: Scope) {
  const ranking = (fn: "rowNumber" | "rank" | "denseRank") => () =>
    Object.freeze({ over: (window: unknown) => windowExpression(scope, rankingFunctionNode(fn), window, `${fn}().over`) });
  const offset = (fn: "lag" | "lead") => (ref: unknown, options?: unknown) => {
    const where = `${fn}(${typeof ref === "string" ? ref : "?"})`;
    const { value, column, check } = offsetValue(scope, ref, where);
    const { offset, fallback } = offsetOptions(check, options, where);
    const node = offsetFunctionNode(fn, value, column, offset, fallback === undefined ? undefined : paramNode(fallback, check));
    return Object.freeze({ over: (window: unknown) => windowExpression(scope, node, window, `${where}.over`) });
  };
  return {
    rowNumber: ranking("rowNumber"),
    rank: ranking("rank"),
    denseRank: ranking("denseRank"),
    lag: offset("lag"),
    lead: offset("lead"),
  };
}

/**
 * What lag / lead read: a field (read as its column), or a typed expression over the row (read by
 * its kind). `check` is the column a default is checked and bound as.
 */
function offsetValue(scope: Scope, ref: unknown, where: string): { value: ValueNode; column: ColumnMeta; check: ColumnMeta } {
  if (typeof ref === "string") {
    const column = refColumn(scope, ref, where);
    return { value: sourceColumnNode(column), column, check: column };
  }
  const node = expressionNode(ref);
  if (node === undefined || !isTypedExpression(node)) {
    throw new ValidationError(`${where}: reads "field", "alias.field" or a typed expression (fn.*, q.*), got ${describe(ref)}`);
  }
  refuseWindowValue(node, where);
  if (node.kind === "aggregateOf") {
    throw new ValidationError(`${where}: an aggregate is not a row's value; in a grouped select read a grouping key, or rank the groups`);
  }
  return { value: node, column: typedResult(node.type, ""), check: kindColumn(node.type.kind) };
}

/** An aggregate of `q`, with `.over(window)`. COUNT(DISTINCT ...) over a window exists on no database we serve. */
export function windowableAggregate(scope: Scope, node: AggregateNode | AggregateOfNode): Expression<unknown> {
  if (node.distinct) return brandExpression(node);
  const name = node.kind === "aggregate" ? (node.column?.field ?? "*") : node.operand === undefined ? "*" : "expression";
  return brandExpressionWith(node, {
    over: (window: unknown) => windowExpression(scope, node, window, `${node.fn}(${name}).over`),
  });
}

/** How a window function's values read, under `key`. */
export function windowResult(node: WindowNode, key: string, where: string): ColumnMeta {
  const fn = node.fn;
  switch (fn.kind) {
    case "ranking":
      return resultColumn(undefined, key, "bigint", true, "safeNumber");
    case "offsetFunction":
      // An expression reads by its kind (nullable: no row that far away is NULL, unless a default).
      if (isTypedExpression(fn.value)) {
        return typedResult(valueType(fn.value.type.kind, fn.fallback === undefined || fn.value.type.nullable), key);
      }
      // A default makes MariaDB's emulating CASE (see WindowCompiler) answer numbers as text.
      return resultColumn(
        fn.column,
        key,
        fn.column.kind,
        false,
        fn.fallback !== undefined && NUMBER_KINDS.has(fn.column.kind) ? "number" : undefined,
      );
    case "aggregate":
      return aggregateResult(fn.fn, fn.column, key, where);
    case "aggregateOf":
      return typedResult(fn.type, key);
    default:
      return unknownFunction(fn);
  }
}

function unknownFunction(node: never): never {
  throw new ValidationError(`Unknown window function ${JSON.stringify((node as { kind?: string })?.kind)}`);
}

function windowExpression(scope: Scope, fn: WindowFunctionNode, window: unknown, where: string): Expression<unknown> {
  return brandExpression(windowNode(fn, resolveWindow(scope, fn, window, where)));
}

const WINDOW_KEYS = new Set(["partitionBy", "orderBy", "frame"]);

function resolveWindow(scope: Scope, fn: WindowFunctionNode, window: unknown, where: string): WindowSpecNode {
  if (!isPlainRecord(window))
    throw new ValidationError(`${where}: expects a window { partitionBy?, orderBy?, frame? }, got ${describe(window)}`);
  for (const key of Object.keys(window)) {
    if (!WINDOW_KEYS.has(key)) throw new ValidationError(`${where}: unknown window option "${key}" (partitionBy, orderBy, frame)`);
  }
  const partitionBy = keyList(window.partitionBy, `${where} partitionBy`).map((entry) =>
    windowKey(scope, entry, "asc", undefined, `${where} partitionBy`),
  );
  const orderBy = keyList(window.orderBy, `${where} orderBy`).map((entry) => orderItem(scope, entry, `${where} orderBy`));
  const aggregate = fn.kind === "aggregate" || fn.kind === "aggregateOf";
  if (!aggregate && orderBy.length === 0) {
    throw new ValidationError(
      `${where}: ${fn.fn}() needs orderBy in its window: without one its answer depends on the order each database happens to read the rows in`,
    );
  }
  if (window.frame === undefined) return windowSpecNode(partitionBy, orderBy, undefined);
  if (!aggregate) {
    throw new ValidationError(`${where}: ${fn.fn}() takes no frame (a frame chooses the rows an aggregate sees); drop frame`);
  }
  if (orderBy.length === 0) throw new ValidationError(`${where}: a frame counts in the window's order; give orderBy too`);
  const [unit, start, end] = frameOf(window.frame, where);
  if (unit === "range" && (start.offset !== undefined || end.offset !== undefined)) rangeOffsetKey(orderBy, where);
  return windowSpecNode(partitionBy, orderBy, windowFrameNode(unit, start, end));
}

function keyList(value: unknown, where: string): readonly unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ValidationError(`${where}: expects an array, got ${describe(value)}`);
  return value;
}

function orderItem(scope: Scope, entry: unknown, where: string): WindowKeyNode {
  if (!Array.isArray(entry)) return windowKey(scope, entry, "asc", undefined, where);
  const [key, direction = "asc", options] = entry as [unknown, unknown, unknown];
  if (entry.length > 3 || (direction !== "asc" && direction !== "desc")) {
    throw new ValidationError(`${where}: an entry is a key, [key, "asc" | "desc"] or [key, direction, { nulls }], got ${describe(entry)}`);
  }
  let nulls: "first" | "last" | undefined;
  if (options !== undefined) {
    const given = isPlainRecord(options) ? options.nulls : options;
    if (
      !isPlainRecord(options) ||
      Object.keys(options).some((k) => k !== "nulls") ||
      (given !== "first" && given !== "last" && given !== undefined)
    ) {
      throw new ValidationError(`${where}: the options of an entry are { nulls: "first" | "last" }, got ${describe(options)}`);
    }
    nulls = given;
  }
  return windowKey(scope, key, direction, nulls, where);
}

/**
 * A reference, a typed expression over the row (fn.*, q.*), or an aggregate of a grouped select
 * (of a column or of an expression); json and bytes do not compare alike anywhere.
 */
function windowKey(
  scope: Scope,
  entry: unknown,
  direction: "asc" | "desc",
  nulls: "first" | "last" | undefined,
  where: string,
): WindowKeyNode {
  if (typeof entry === "string") {
    const column = refColumn(scope, entry, where);
    if (column.kind === "json") throw new ValidationError(`${where}: ${entry} is a json column, which the databases do not compare alike`);
    return windowKeyNode(sourceColumnNode(column), column, direction, nulls);
  }
  const node = expressionNode(entry);
  if (node?.kind === "aggregate") {
    const sort = aggregateResult(node.fn, node.column, "", where);
    if (sort.kind === "json" || sort.kind === "enum") {
      throw new ValidationError(`${where}: ${node.fn}() of a ${sort.kind} column does not sort alike on every database`);
    }
    return windowKeyNode(node, sort, direction, nulls);
  }
  if (node !== undefined && isTypedExpression(node)) {
    refuseWindowValue(node, where);
    const kind = node.type.kind;
    if (kind === "json" || kind === "bytes")
      throw new ValidationError(`${where}: a ${kind} value does not compare alike on every database`);
    // Sorted by its result column, as the select's orderBy sorts an expression: NULL as the largest value.
    return windowKeyNode(node, typedResult(node.type, ""), direction, nulls);
  }
  throw new ValidationError(
    `${where}: expects "field", "alias.field", a typed expression (fn.*, q.*) or an aggregate (q.sum(...)), got ${describe(entry)}`,
  );
}

const BOUND_ORDER: Readonly<Record<FrameBoundKind, number>> = {
  unboundedPreceding: 0,
  preceding: 1,
  currentRow: 2,
  following: 3,
  unboundedFollowing: 4,
};

function frameOf(frame: unknown, where: string): [FrameUnit, FrameBoundNode, FrameBoundNode] {
  const at = `${where} frame`;
  const units = isPlainRecord(frame) ? Object.keys(frame) : [];
  const unit = units[0];
  if (units.length !== 1 || (unit !== "rows" && unit !== "range" && unit !== "groups")) {
    throw new ValidationError(`${at}: expects { rows | range | groups: [start, end] }, got ${describe(frame)}`);
  }
  const bounds = (frame as Record<string, unknown>)[unit];
  if (!Array.isArray(bounds) || bounds.length !== 2)
    throw new ValidationError(`${at}: ${unit} takes [start, end], got ${describe(bounds)}`);
  const start = frameBound(bounds[0], `${at} start`);
  const end = frameBound(bounds[1], `${at} end`);
  const empty =
    BOUND_ORDER[start.bound] > BOUND_ORDER[end.bound] ||
    start.bound === "unboundedFollowing" ||
    end.bound === "unboundedPreceding" ||
    (start.bound === "preceding" && end.bound === "preceding" && (start.offset as number) < (end.offset as number)) ||
    (start.bound === "following" && end.bound === "following" && (start.offset as number) > (end.offset as number));
  if (empty) throw new ValidationError(`${at}: the frame ends before it starts (${describe(bounds)})`);
  return [unit, start, end];
}

function frameBound(bound: unknown, where: string): FrameBoundNode {
  if (bound === "unboundedPreceding" || bound === "currentRow" || bound === "unboundedFollowing") return frameBoundNode(bound, undefined);
  if (isPlainRecord(bound)) {
    const keys = Object.keys(bound);
    const side = keys[0];
    if (keys.length === 1 && (side === "preceding" || side === "following")) {
      return frameBoundNode(side, count(bound[side], `${where} ${side}`));
    }
  }
  throw new ValidationError(
    `${where}: expects "unboundedPreceding", "currentRow", "unboundedFollowing", { preceding: n } or { following: n }, got ${describe(bound)}`,
  );
}

/** Offsets are written into the statement's text, as LIMIT is: only non-negative safe integers. */
function count(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new ValidationError(`${where}: expects a non-negative integer, got ${describe(value)}`);
  }
  return value;
}

const RANGE_KINDS = new Set(["integer", "bigint", "real"]);

/**
 * RANGE with an offset compares the order key's values: every database wants exactly one key, and
 * only plain numbers compare alike (SQLite keeps numeric, datetime and date columns as text). NULL
 * would need a second sort key where the database has no NULLS LAST.
 */
function rangeOffsetKey(orderBy: readonly WindowKeyNode[], where: string): void {
  const key = orderBy[0] as WindowKeyNode;
  const column = key.value.kind === "sourceColumn" ? key.value.column : undefined;
  if (
    orderBy.length !== 1 ||
    !column ||
    !RANGE_KINDS.has(column.kind) ||
    !(column.notNull || column.primaryKey) ||
    key.nulls !== undefined
  ) {
    throw new ValidationError(
      `${where}: a range frame with an offset needs exactly one orderBy key, a NOT NULL integer, bigint or real column (without nulls); use a rows frame otherwise`,
    );
  }
}

function offsetOptions(column: ColumnMeta, options: unknown, where: string): { offset: number; fallback: unknown } {
  if (options === undefined) return { offset: 1, fallback: undefined };
  if (!isPlainRecord(options) || Object.keys(options).some((k) => k !== "offset" && k !== "default")) {
    throw new ValidationError(`${where}: the options are { offset?, default? }, got ${describe(options)}`);
  }
  const offset = options.offset === undefined ? 1 : count(options.offset, `${where} offset`);
  const fallback = options.default;
  if (fallback !== undefined) {
    if (fallback === null) throw new ValidationError(`${where}: default: null is the default already; omit it`);
    if (expressionNode(fallback)) throw new ValidationError(`${where}: default takes a value of the column's type, not an expression`);
    checkValue(column, fallback, `${where} default`, false);
    if (column.kind === "numeric") return { offset, fallback: atScale(column, fallback, where) };
  }
  return { offset, fallback };
}

/** A numeric default at the column's scale, as the column's own values read ("1.5" is "1.50" in numeric(12, 2)). */
function atScale(column: ColumnMeta, value: unknown, where: string): string {
  if (column.scale === undefined || column.precision === undefined) {
    throw new ValidationError(
      `${where}: default on an unconstrained numeric column reads differently per database; give the column a scale`,
    );
  }
  const text = String(value);
  const point = text.indexOf(".");
  const fraction = point < 0 ? "" : text.slice(point + 1);
  const whole = point < 0 ? text : text.slice(0, point);
  return column.scale === 0 ? whole : `${whole}.${fraction.padEnd(column.scale, "0")}`;
}
