import type { ConditionNode } from "../ast/condition-node.js";
import type { QueryParts, SelectionNode } from "../ast/query-node.js";
import type { ExpressionNode, ValueNode } from "../ast/value-node.js";
import type { WindowNode } from "../ast/window-node.js";
import { ValidationError } from "../errors.js";
import { expressionNode } from "../expression/expression.js";
import type { ColumnMeta } from "../schema/column-meta.js";

/*
 * Where a window function may not stand, refused when the statement is built, on every dialect:
 * the databases compute windows after WHERE, GROUP BY and HAVING, over the rows those leave.
 */

function windowsOf(parts: QueryParts): WindowNode[] {
  const windows: WindowNode[] = [];
  for (const selection of parts.selections ?? []) if (selection.value.kind === "window") windows.push(selection.value);
  return windows;
}

/** PostgreSQL refuses FOR UPDATE / FOR SHARE with window functions; MySQL and SQLite would lock rows the answer hides. */
export function refuseWindowsWithLock(parts: QueryParts, what: string): void {
  if (windowsOf(parts).length > 0) {
    throw new ValidationError(
      `${what} cannot lock the rows behind a window function. Lock the rows in a select without window functions, then rank them.`,
    );
  }
}

/** HAVING on a projection key that is a window function: windows are computed after HAVING. */
export function refuseWindowsInHaving(having: ConditionNode, selections: readonly SelectionNode[]): void {
  const windowKeys = new Map<ColumnMeta, string>();
  for (const s of selections) if (s.value.kind === "window") windowKeys.set(s.result, s.key);
  if (windowKeys.size === 0) return;
  const named = columnIn(having, windowKeys);
  if (named !== undefined) {
    throw new ValidationError(
      `having cannot filter on "${named}", a window function: windows are computed after HAVING. Filter the rows in the application, or rank in a subquery.`,
    );
  }
}

function columnIn(node: ConditionNode, columns: ReadonlyMap<ColumnMeta, string>): string | undefined {
  switch (node.kind) {
    case "and":
    case "or":
      for (const item of node.items) {
        const found = columnIn(item, columns);
        if (found !== undefined) return found;
      }
      return undefined;
    case "not":
      return columnIn(node.item, columns);
    case "compare":
    case "inList":
    case "inSubquery":
    case "isNull":
    case "between":
      return columns.get(node.column);
    case "constant":
    case "expressionCondition":
      return undefined;
    default:
      return unknownCondition(node);
  }
}

function unknownCondition(node: never): never {
  throw new ValidationError(`Unknown condition ${JSON.stringify((node as { kind?: string })?.kind)}`);
}

/** A value (a where operand, a set value, a condition) that is or holds a window function. */
export function refuseWindowValue(node: ExpressionNode, where: string): void {
  if (holdsWindow(node)) {
    throw new ValidationError(
      `${where}: a window function (.over(...)) is allowed only in .columns(): the databases compute windows after WHERE and HAVING, and not in writes`,
    );
  }
}

function holdsWindow(node: ValueNode): boolean {
  if (node.kind === "window") return true;
  if (node.kind !== "template") return false;
  for (const value of node.values) {
    const nested = expressionNode(value);
    if (nested && holdsWindow(nested)) return true;
  }
  return false;
}

/**
 * In a grouped select windows run over the groups: every column they name must be a grouping
 * column, or PostgreSQL refuses the statement and the others pick a value from any row of the group.
 * Checked once groupBy names columns (whichever of columns() and groupBy() comes first).
 */
export function checkWindowGrouping(parts: QueryParts): void {
  if (parts.groupBy.length === 0) return;
  const windows = windowsOf(parts);
  if (windows.length === 0) return;
  const groupColumns = new Set<ColumnMeta>();
  for (const value of parts.groupBy) if (value.kind === "sourceColumn") groupColumns.add(value.column);
  for (const window of windows) {
    const fn = window.fn;
    const columns: (ColumnMeta | undefined)[] = [...window.spec.partitionBy, ...window.spec.orderBy].map((k) =>
      k.value.kind === "sourceColumn" ? k.value.column : undefined,
    );
    columns.push(fn.kind === "ranking" ? undefined : fn.column);
    const loose = columns.find((c) => c !== undefined && !groupColumns.has(c));
    if (loose !== undefined) {
      throw new ValidationError(
        `a window in a grouped select runs over the groups: ${loose.table}.${loose.field} is not in groupBy. Group by it, or order the window by an aggregate (q.sum(...)).`,
      );
    }
  }
}
