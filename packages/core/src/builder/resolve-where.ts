import type { CompareOperator, ConditionNode, PlainOrigin } from "../ast/condition-node.js";
import {
  betweenNode,
  compareNode,
  constantNode,
  expressionConditionNode,
  inListNode,
  inSubqueryNode,
  isNullNode,
  junctionNode,
  notNode,
} from "../ast/condition-node.js";
import { expressionNode } from "../ast/expression.js";
import type { ValueNode } from "../ast/value-node.js";
import { paramNode } from "../ast/value-node.js";
import { MAX_NESTING, tooDeep } from "../ast/walk-tree.js";
import { ValidationError } from "../errors.js";
import { describe } from "../expression/assert-bindable.js";
import { placeListAt } from "../expression/placeholder.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { TableMeta } from "../schema/table-meta.js";
import { isCondition } from "./condition.js";
import { conditionTruth } from "./condition-truth.js";
import { isOperator } from "./op.js";
import { fieldNames } from "./resolve-set.js";
import { resolveValue } from "./resolve-value.js";
import { isSubquery } from "./subquery.js";
import { acceptKind, fits, valueAccepter } from "./value-accepter.js";
import { refuseWindowValue } from "./window-rules.js";

/** What the where language names fields in: a table, a query's scope, or a projection's keys (HAVING). */
interface Table extends Pick<TableMeta, "model" | "name"> {
  readonly byField: { get(field: string): ColumnMeta | undefined };
}

const COMPARE: Record<string, CompareOperator> = {
  eq: "=",
  ne: "<>",
  lt: "<",
  lte: "<=",
  gt: ">",
  gte: ">=",
  like: "like",
  ilike: "ilike",
};

const TRUE = constantNode(true);
const FALSE = constantNode(false);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Turns the where language into a condition node, validating every field, operator and value.
 * `where` describes the call for error messages; a function is asked only when there is an error.
 */
export function resolveWhere(table: Table, input: unknown, where: string | (() => string)): ConditionNode {
  try {
    // The first pass writes no descriptions (no string is built per field and operator); only when
    // it fails does the same input go through again with them, to throw the worded error.
    return resolveCondition(table, input, "");
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    return resolveCondition(table, input, typeof where === "string" ? where : where());
  }
}

/**
 * `where` + `separator` + `part` + `after`, or nothing on the quiet pass. The pieces are joined here, so the
 * quiet pass builds no string at all.
 */
function label(where: string, separator: string, part: string | number, after = ""): string {
  return where === "" ? "" : `${where}${separator}${part}${after}`;
}

function resolveCondition(table: Table, input: unknown, where: string, depth = 0): ConditionNode {
  if (depth > MAX_NESTING) throw tooDeep(where || "where", MAX_NESTING, "levels of and/or/not");
  const expression = expressionNode(input);
  if (expression) {
    refuseWindowValue(expression, where || "where");
    return expressionConditionNode(expression);
  }
  if (isCondition(input)) {
    const items = input.items.map((item) => resolveCondition(table, item, where, depth + 1));
    if (input.op === "not") return notNode(items[0] as ConditionNode);
    if (items.length === 0) return input.op === "and" ? TRUE : FALSE;
    return items.length === 1 ? (items[0] as ConditionNode) : junctionNode(input.op, items);
  }
  if (!isPlainObject(input)) {
    throw new ValidationError(`${where}: expected an object of field conditions, got ${describe(input)}`);
  }
  const items: ConditionNode[] = [];
  for (const field of fieldNames(input, where)) {
    const column = table.byField.get(field);
    if (!column) throw new ValidationError(`${where}: ${table.model.name || table.name} has no field "${field}"`);
    items.push(resolveField(column, input[field], label(where, " on ", field)));
  }
  if (items.length === 0) return TRUE;
  return items.length === 1 ? (items[0] as ConditionNode) : junctionNode("and", items);
}

function resolveField(column: ColumnMeta, value: unknown, where: string): ConditionNode {
  // A bare null widens the query to IS NULL: marked, so a helpers-only engine can refuse it.
  if (value === null) return isNullNode(column, false, "null");
  if (typeof value === "object") {
    if (isOperator(value)) return resolveOperator(column, value.op, value.operand, where, undefined);
    if (isPlainObject(value) && expressionNode(value) === undefined) {
      const keys = fieldNames(value, where);
      if (keys.length === 0) throw new ValidationError(`${where}: an empty operator object`);
      const parts = keys.map((op) => resolveOperator(column, op, value[op], where, op));
      return parts.length === 1 ? (parts[0] as ConditionNode) : junctionNode("and", parts);
    }
    if (Array.isArray(value)) throw new ValidationError(`${where}: an array is not a value; write op.in([...])`);
  }
  return compareNode(column, "=", resolveValue(column, value, where, false));
}

/**
 * One operator on a column. `plain` is the operator's name when a plain object gave it (the node
 * records it, see PlainOrigin) and undefined when an `op` helper did.
 */
function resolveOperator(column: ColumnMeta, op: string, operand: unknown, where: string, plain: PlainOrigin): ConditionNode {
  const at = label(where, ".", op);
  switch (op) {
    case "eq":
    case "ne":
      if (operand === null) {
        // A helper never turns a value into IS NULL: a null from a request body would widen the query.
        if (plain === undefined) {
          throw new ValidationError(`${at}: op.${op}(null) compares with nothing; write op.isNull(${op === "ne" ? "false" : ""})`);
        }
        return isNullNode(column, op === "ne", plain);
      }
      return compareNode(column, COMPARE[op] as CompareOperator, resolveValue(column, operand, at, false), plain);
    case "lt":
    case "lte":
    case "gt":
    case "gte":
      refuseEnumOrder(column, at);
      return compareNode(column, COMPARE[op] as CompareOperator, resolveValue(column, operand, at, false), plain);
    case "like":
    case "ilike": {
      if (column.kind !== "text" && column.kind !== "varchar" && column.kind !== "enum") {
        throw new ValidationError(
          `${at}: ${op} matches text only (text, varchar and enum columns), and ${column.field} is a ${column.kind} column; compare it with eq, in or a range instead`,
        );
      }
      if (typeof operand !== "string" && expressionNode(operand) === undefined) {
        throw new ValidationError(`${at}: expects a string pattern, got ${describe(operand)}`);
      }
      if (typeof operand === "string" && endsInEscape(operand)) {
        throw new ValidationError(
          `${at}: the pattern ends in the escape character \\, which escapes nothing; write \\\\ for a literal backslash`,
        );
      }
      const pattern = expressionNode(operand);
      if (pattern) refuseWindowValue(pattern, at || "where");
      const value = pattern ?? paramNode(operand);
      return compareNode(column, COMPARE[op] as CompareOperator, value, plain);
    }
    case "isNull":
      if (typeof operand !== "boolean") throw new ValidationError(`${at}: expects true or false, got ${describe(operand)}`);
      return isNullNode(column, !operand, plain);
    case "in":
    case "notIn": {
      const negated = op === "notIn";
      if (isSubquery(operand)) {
        const select = operand.node.select;
        const inner = select.columns[0];
        if (select.columns.length !== 1 || !inner) throw new ValidationError(`${at}: a subquery must select exactly one column`);
        return inSubqueryNode(column, negated, operand.node, plain);
      }
      if (!Array.isArray(operand)) {
        const node = expressionNode(operand);
        // A prepared statement's list placeholder: the whole list, bound at execute().
        if (node?.kind === "placeholder" && node.list)
          return inListNode(column, negated, Object.freeze([placeListAt(node, column, at)]), plain);
        throw new ValidationError(
          `${at}: expects an array or select(...).asSubquery(field) (prepared: a list placeholder, "kind[]"), got ${describe(operand)}`,
        );
      }
      if (operand.length === 0)
        return plain === undefined ? constantNode(negated) : constantNode(negated, { origin: plain, field: column.field });
      // An index loop, not map: a hole in a sparse array is undefined, and refused, instead of skipped.
      // The usual item (a string or number the column takes: `fits`, exactly as strict as checkValue)
      // is bound as it is; anything else takes resolveValue, which also words the error.
      const values: ValueNode[] = new Array(operand.length);
      const kind = acceptKind(column);
      const accept = valueAccepter(column);
      for (let i = 0; i < operand.length; i++) {
        const item: unknown = operand[i];
        values[i] = fits(kind, accept, item) ? paramNode(item, column) : resolveValue(column, item, label(at, "[", i, "]"), false);
      }
      Object.freeze(values);
      return inListNode(column, negated, values, plain);
    }
    case "between": {
      refuseEnumOrder(column, at);
      if (!Array.isArray(operand) || operand.length !== 2) {
        throw new ValidationError(`${at}: expects a [low, high] pair, got ${describe(operand)}`);
      }
      return betweenNode(
        column,
        resolveValue(column, operand[0], label(at, "[", 0, "]"), false),
        resolveValue(column, operand[1], label(at, "[", 1, "]"), false),
        plain,
      );
    }
    default:
      throw new ValidationError(
        `${where}: unknown operator "${op}" (operators: eq, ne, lt, lte, gt, gte, in, notIn, isNull, between, like, ilike; a plain object is never a value)`,
      );
  }
}

/**
 * An enum compares only for equality: its order is its declaration order, which only MySQL's ENUM
 * type compares by, so a range over it would answer differently per database.
 */
function refuseEnumOrder(column: ColumnMeta, at: string): void {
  if (column.kind === "enum") {
    throw new ValidationError(
      `${at}: ${column.field} is an enum column, which compares only with eq, ne, in, notIn and isNull (orderBy sorts it by declaration order)`,
    );
  }
}

/** An odd number of trailing backslashes: the last one escapes nothing (an error on PostgreSQL, a literal on MySQL, no match on SQLite). */
function endsInEscape(pattern: string): boolean {
  let backslashes = 0;
  for (let i = pattern.length - 1; i >= 0 && pattern.charCodeAt(i) === 92; i--) backslashes++;
  return backslashes % 2 === 1;
}

export function isTrivial(condition: ConditionNode | undefined): boolean {
  return condition === undefined || conditionTruth(condition) === true;
}
