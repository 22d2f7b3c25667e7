import type { StatementNode } from "../ast/statement-node.js";
import type { TreeNode } from "../ast/walk-tree.js";
import { walkTree } from "../ast/walk-tree.js";
import { ValidationError } from "../errors.js";

/** How an engine reads plain `{ op: ... }` objects in where: as operators (default), or not at all. */
export type OperatorsMode = "plain-objects" | "helpers-only";

/**
 * On an engine created with `operators: "helpers-only"`: throws a ValidationError naming the field
 * when any condition of the statement came from a plain operator object or a bare null where-value.
 * Builders resolve `where()` before an engine is known, so the condition nodes record where they came
 * from (ConditionNode `plain`) and the engine looks here, when it executes or compiles, before
 * anything is sent. The whole tree is walked (walkTree): a where inside a subquery used as a value,
 * an IN list, BETWEEN bounds, a SET value, an `sql.expr` hole or a CTE is a where like any other.
 */
export function refusePlainOperators(node: StatementNode): void {
  // The model whose fields a condition names: the innermost statement holding it.
  const models: string[] = [];
  const depths: number[] = [];
  walkTree(node, (child, depth) => {
    while (depths.length > 0 && (depths[depths.length - 1] as number) >= depth) {
      depths.pop();
      models.pop();
    }
    const table = tableOf(child);
    if (table !== undefined) {
      models.push(table.model.name || table.name);
      depths.push(depth);
      return true;
    }
    const plain = plainOf(child);
    if (plain !== undefined) refuse(models[models.length - 1] ?? "?", plain.field, plain.origin);
    return true;
  });
}

function tableOf(node: TreeNode): { readonly model: { readonly name: string }; readonly name: string } | undefined {
  switch (node.kind) {
    case "select":
    case "insert":
    case "update":
    case "delete":
      return node.table;
    default:
      return undefined;
  }
}

function plainOf(node: TreeNode): { readonly field: string; readonly origin: string } | undefined {
  switch (node.kind) {
    case "compare":
    case "inList":
    case "inSubquery":
    case "isNull":
    case "between":
      return node.plain === undefined ? undefined : { field: node.column.field, origin: node.plain };
    case "constant":
      return node.plain === undefined ? undefined : { field: node.field ?? "?", origin: node.plain };
    default:
      return undefined;
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
