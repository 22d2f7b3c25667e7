import { partsOf } from "../ast/compound-node.js";
import type { ConditionNode } from "../ast/condition-node.js";
import { ctesOf } from "../ast/cte-node.js";
import type { SelectNode, StatementNode } from "../ast/statement-node.js";
import type { ValueNode } from "../ast/value-node.js";
import { ValidationError } from "../errors.js";

/** How an engine reads plain `{ op: ... }` objects in where: as operators (default), or not at all. */
export type OperatorsMode = "plain-objects" | "helpers-only";

/**
 * On an engine created with `operators: "helpers-only"`: throws a ValidationError naming the field
 * when any condition of the statement came from a plain operator object or a bare null where-value.
 * Builders resolve `where()` before an engine is known, so the condition nodes record where they came
 * from (ConditionNode `plain`) and the engine looks here, when it executes or compiles, before
 * anything is sent.
 */
export function refusePlainOperators(node: StatementNode): void {
  switch (node.kind) {
    case "select":
      selectNode(node);
      return;
    case "compound":
      for (const part of partsOf(node)) selectNode(part);
      return;
    case "update":
    case "delete":
      condition(node.table.model.name || node.table.name, node.where);
      return;
    case "insert": {
      const conflict = node.conflict;
      if (conflict?.kind === "onConflict") {
        const name = node.table.model.name || node.table.name;
        condition(name, conflict.targetWhere);
        condition(name, conflict.updateWhere);
      }
      return;
    }
    case "rawStatement":
    case "createTable":
    case "createIndex":
    case "dropTable":
    case "addColumn":
    case "describeTable":
      return;
    default:
      unreachable(node);
      return;
  }
}

function selectNode(node: SelectNode): void {
  // The CTEs it reads carry conditions of their own (each CTE's own reads come before it in the list).
  if (node.table.cte !== undefined || node.parts?.joins.some((j) => j.source.table.cte !== undefined))
    for (const cte of ctesOf(node)) refusePlainOperators(cte.body);
  const name = node.table.model.name || node.table.name;
  condition(name, node.where);
  const parts = node.parts;
  if (parts === undefined) return;
  for (const join of parts.joins) condition(name, join.on);
  condition(name, parts.having);
  for (const selection of parts.selections ?? []) value(selection.value);
}

/** Subqueries used as values (exists, scalar) carry conditions of their own. */
function value(node: ValueNode): void {
  if (node.kind === "exists" || node.kind === "scalarSubquery") selectNode(node.select);
}

function condition(model: string, node: ConditionNode | undefined): void {
  if (node === undefined) return;
  switch (node.kind) {
    case "and":
    case "or":
      for (const item of node.items) condition(model, item);
      return;
    case "not":
      condition(model, node.item);
      return;
    case "expressionCondition":
      value(node.expression);
      return;
    case "constant":
      if (node.plain !== undefined) refuse(model, node.field ?? "?", node.plain);
      return;
    case "inSubquery":
      if (node.plain !== undefined) refuse(model, node.column.field, node.plain);
      selectNode(node.subquery.select);
      return;
    case "compare":
      if (node.plain !== undefined) refuse(model, node.column.field, node.plain);
      value(node.value);
      return;
    case "inList":
    case "isNull":
    case "between":
      if (node.plain !== undefined) refuse(model, node.column.field, node.plain);
      return;
    default:
      unreachable(node);
      return;
  }
}

function refuse(model: string, field: string, plain: string): never {
  if (plain === "null") {
    throw new ValidationError(
      `where on ${model}.${field}: null is refused as a where value on this engine (operators: "helpers-only"): it would match every row where ${field} IS NULL. Write op.isNull() when that is meant.`,
    );
  }
  throw new ValidationError(
    `where on ${model}.${field}: the operator "${plain}" came from a plain object, which this engine refuses (operators: "helpers-only"): a request body can forge one. Write op.${plain}(...).`,
  );
}

function unreachable(node: never): never {
  throw new Error(`refusePlainOperators: unknown node ${(node as { kind: string }).kind}`);
}
