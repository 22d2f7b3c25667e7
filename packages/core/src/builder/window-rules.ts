import type { ConditionNode } from "../ast/condition-node.js";
import type { QueryParts, SelectionNode } from "../ast/query-node.js";
import type { ExpressionNode, ValueNode } from "../ast/value-node.js";
import type { TreeNode } from "../ast/walk-tree.js";
import { findInTree, isNestedQuery, walkTree } from "../ast/walk-tree.js";
import type { WindowNode } from "../ast/window-node.js";
import { ValidationError } from "../errors.js";
import type { ColumnMeta } from "../schema/column-meta.js";

/*
 * Where a window function may not stand, refused when the statement is built, on every dialect:
 * the databases compute windows after WHERE, GROUP BY and HAVING, over the rows those leave.
 */

/** The windows of a projection, wherever they stand in its expressions (not in its subqueries, which are selects of their own). */
function windowsOf(parts: QueryParts): WindowNode[] {
  const windows: WindowNode[] = [];
  for (const selection of parts.selections ?? []) windows.push(...windowsIn(selection.value));
  return windows;
}

function windowsIn(root: TreeNode): WindowNode[] {
  const windows: WindowNode[] = [];
  walkTree(root, (node) => {
    if (node.kind === "window") windows.push(node);
    return node === root || !isNestedQuery(node);
  });
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
  for (const s of selections) if (windowsIn(s.value).length > 0) windowKeys.set(s.result, s.key);
  if (windowKeys.size === 0) return;
  const named = columnIn(having, windowKeys);
  if (named !== undefined) {
    throw new ValidationError(
      `having cannot filter on "${named}", a window function: windows are computed after HAVING. Filter the rows in the application, or rank in a subquery.`,
    );
  }
}

/** The first window key the condition names, outside its own subqueries. */
function columnIn(root: ConditionNode, columns: ReadonlyMap<ColumnMeta, string>): string | undefined {
  return findInTree(
    root,
    (node) => {
      switch (node.kind) {
        case "compare":
        case "inList":
        case "inSubquery":
        case "isNull":
        case "between":
        case "sourceColumn":
          return columns.get(node.column);
        default:
          return undefined;
      }
    },
    (node) => !isNestedQuery(node),
  );
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
  return windowsIn(node).length > 0;
}

/**
 * A value that is or holds an aggregate (a sum inside arithmetic counts: the select then groups),
 * not in its subqueries, which aggregate their own rows, nor as a window's function, which keeps them.
 */
export function holdsAggregate(node: ValueNode): boolean {
  return (
    findInTree(
      node,
      (n) => (n.kind === "aggregate" || n.kind === "aggregateOf" ? true : undefined),
      (n) => n.kind !== "window" && !isNestedQuery(n),
    ) === true
  );
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
  // Grouping expressions (fn.dateTrunc(...), a projection key that is one): the same expression in a window is a grouping key too.
  const groupExpressions: ValueNode[] = [];
  for (const value of parts.groupBy) {
    if (value.kind === "sourceColumn") groupColumns.add(value.column);
    else if (value.kind === "outputColumn") {
      const selected = parts.selections?.find((s) => s.key === value.key);
      if (selected !== undefined) groupExpressions.push(selected.value);
    } else groupExpressions.push(value);
  }
  for (const window of windows) {
    const fn = window.fn;
    // Every column the window names outside aggregates (which read the group's rows): in its keys'
    // expressions, and in its function's argument.
    const columns: (ColumnMeta | undefined)[] = [];
    const collect = (root: TreeNode) =>
      walkTree(root, (node) => {
        if (node !== root && (node.kind === "aggregate" || node.kind === "aggregateOf")) return false;
        if (groupExpressions.some((g) => sameNode(g, node))) return false;
        if (node.kind === "sourceColumn") columns.push(node.column);
        return !isNestedQuery(node);
      });
    collect(window.spec);
    if (fn.kind === "aggregate") columns.push(fn.column);
    else if (fn.kind === "aggregateOf") {
      if (fn.operand !== undefined) collect(fn.operand);
      if (fn.filter !== undefined) collect(fn.filter);
    } else if (fn.kind === "offsetFunction") collect(fn.value);
    const loose = columns.find((c) => c !== undefined && !groupColumns.has(c));
    if (loose !== undefined) {
      throw new ValidationError(
        `a window in a grouped select runs over the groups: ${loose.table}.${loose.field} is not in groupBy. Group by it, or order the window by an aggregate (q.sum(...)).`,
      );
    }
  }
}

/** Structural equality of two frozen nodes (the same expression built twice). */
function sameNode(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!sameNode((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}
