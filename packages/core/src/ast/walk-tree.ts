import { ValidationError } from "../errors.js";
import { expressionNode } from "../expression/expression.js";
import type { ConditionNode } from "./condition-node.js";
import type { CteNode } from "./cte-node.js";
import type { JoinNode, QueryParts, SelectionNode } from "./query-node.js";
import type { ConflictClause, LockClause, StatementNode, SubqueryNode } from "./statement-node.js";
import type { ValueNode } from "./value-node.js";
import type {
  FrameBoundNode,
  OffsetFunctionNode,
  RankingFunctionNode,
  WindowFrameNode,
  WindowKeyNode,
  WindowSpecNode,
} from "./window-node.js";

/** Every node kind a statement tree can hold: the one union each check walks. */
export type TreeNode =
  | StatementNode
  | SubqueryNode
  | ConditionNode
  | ValueNode
  | CteNode
  | QueryParts
  | JoinNode
  | SelectionNode
  | LockClause
  | ConflictClause
  | RankingFunctionNode
  | OffsetFunctionNode
  | WindowSpecNode
  | WindowKeyNode
  | WindowFrameNode
  | FrameBoundNode;

export type TreeNodeKind = TreeNode["kind"];

/**
 * The deepest a statement tree may nest (and/or/not, subqueries, expressions inside expressions).
 * Past it the JavaScript stack (and SQLite's expression depth of 1000) would give way with an
 * untyped RangeError or a server error; the builders and every walk refuse it with a ValidationError.
 */
export const MAX_NESTING = 500;

export function tooDeep(where: string): ValidationError {
  return new ValidationError(
    `${where}: the statement nests deeper than ${MAX_NESTING} levels (and/or/not, subqueries, expressions). Flatten it: and(...)/or(...) take any number of items, and op.in([...]) a list.`,
  );
}

/**
 * Calls `visit` on each direct child of `node`, in the order the statement is written. Exhaustive
 * over TreeNode: a new node kind does not compile until it says what it holds, so no check that
 * walks the tree (plain-operator refusal, window and lock rules, the shape cache's eligibility) can
 * miss a branch. A CTE is a child of the select or join that names it.
 */
export function forEachChild(node: TreeNode, visit: (child: TreeNode) => void): void {
  switch (node.kind) {
    case "select": {
      const cte = node.table.cte;
      if (cte !== undefined) visit(cte);
      if (node.parts !== undefined) visit(node.parts);
      if (node.where !== undefined) visit(node.where);
      for (const item of node.orderBy) if (item.value !== undefined) visit(item.value);
      if (node.lock !== undefined) visit(node.lock);
      return;
    }
    case "compound":
      visit(node.left);
      visit(node.right);
      for (const item of node.orderBy) if (item.value !== undefined) visit(item.value);
      return;
    case "insert": {
      const cte = node.table.cte;
      if (cte !== undefined) visit(cte);
      for (const at of node.expressions) {
        const cell = node.cells[at] as ValueNode | undefined;
        if (cell !== undefined) visit(cell);
      }
      if (node.conflict !== undefined) visit(node.conflict);
      return;
    }
    case "update":
      for (const assignment of node.set) visit(assignment.value);
      if (node.where !== undefined) visit(node.where);
      return;
    case "delete":
      if (node.where !== undefined) visit(node.where);
      return;
    case "rawStatement":
      visit(node.expression);
      return;
    case "createTable":
      for (const index of node.table.indexes) if (index.where !== undefined) visit(index.where);
      return;
    case "createIndex":
      if (node.index.where !== undefined) visit(node.index.where);
      return;
    case "dropTable":
    case "addColumn":
    case "describeTable":
      return;
    case "subquery":
      visit(node.select);
      return;
    case "cte":
      visit(node.body);
      return;
    case "queryParts": {
      const cte = node.root?.table.cte;
      if (cte !== undefined) visit(cte);
      for (const join of node.joins) visit(join);
      for (const selection of node.selections ?? []) visit(selection);
      for (const value of node.groupBy) visit(value);
      if (node.having !== undefined) visit(node.having);
      return;
    }
    case "join": {
      const cte = node.source.table.cte;
      if (cte !== undefined) visit(cte);
      visit(node.on);
      return;
    }
    case "selection":
      visit(node.value);
      return;
    case "lock":
      return;
    case "onConflict":
      if (node.targetWhere !== undefined) visit(node.targetWhere);
      for (const assignment of node.set) visit(assignment.value);
      if (node.updateWhere !== undefined) visit(node.updateWhere);
      return;
    case "onDuplicateKey":
      for (const assignment of node.set) visit(assignment.value);
      return;
    case "ignoreDuplicates":
      return;
    // conditions
    case "compare":
      visit(node.value);
      return;
    case "inList":
      for (const value of node.values) visit(value);
      return;
    case "inSubquery":
      visit(node.subquery);
      return;
    case "between":
      visit(node.low);
      visit(node.high);
      return;
    case "and":
    case "or":
      for (const item of node.items) visit(item);
      return;
    case "not":
      visit(node.item);
      return;
    case "expressionCondition":
      visit(node.expression);
      return;
    case "isNull":
    case "constant":
      return;
    // values
    case "template":
      // A value of a template is bound, or (a branded expression) SQL of its own: that is a child.
      for (const value of node.values) {
        const nested = expressionNode(value);
        if (nested !== undefined) visit(nested);
      }
      return;
    case "now":
      if (node.plusSeconds !== undefined) visit(node.plusSeconds);
      return;
    case "scalarSubquery":
    case "exists":
      visit(node.select);
      return;
    case "window":
      visit(node.fn);
      visit(node.spec);
      return;
    case "param":
    case "raw":
    case "excluded":
    case "columnRef":
    case "sourceColumn":
    case "aggregate":
    case "outputColumn":
    case "placeholder":
      return;
    // windows
    case "ranking":
      return;
    case "offsetFunction":
      if (node.fallback !== undefined) visit(node.fallback);
      return;
    case "windowSpec":
      for (const key of node.partitionBy) visit(key);
      for (const key of node.orderBy) visit(key);
      if (node.frame !== undefined) visit(node.frame);
      return;
    case "windowKey":
      visit(node.value);
      return;
    case "windowFrame":
      visit(node.start);
      visit(node.end);
      return;
    case "frameBound":
      return;
    default:
      unknownNode(node);
  }
}

/** What a walk's visitor answers for a node: descend into its children (default), or skip them. */
export type Descend = boolean | undefined;

/**
 * Depth first, each node before its children; `visit` returns false to skip a node's children (a
 * check that stops at a subquery's own select). A CTE read in several places is walked once.
 * `where` names the statement for the error past MAX_NESTING.
 */
export function walkTree(root: TreeNode, visit: (node: TreeNode, depth: number) => Descend, where = "statement"): void {
  let seen: Set<CteNode> | undefined;
  const walk = (node: TreeNode, depth: number): void => {
    if (depth > MAX_NESTING) throw tooDeep(where);
    if (node.kind === "cte") {
      seen ??= new Set();
      if (seen.has(node)) return;
      seen.add(node);
    }
    if (visit(node, depth) === false) return;
    forEachChild(node, (child) => walk(child, depth + 1));
  };
  walk(root, 0);
}

/** The first node (depth first) for which `test` answers something, or undefined. `enter` as walkTree's false. */
export function findInTree<T>(
  root: TreeNode,
  test: (node: TreeNode) => T | undefined,
  enter: (node: TreeNode) => boolean = () => true,
): T | undefined {
  let found: T | undefined;
  walkTree(root, (node) => {
    if (found !== undefined) return false;
    found = test(node);
    return found === undefined && (node === root || enter(node));
  });
  return found;
}

/** True for a node that starts a select of its own inside another statement: its rules are its own. */
export function isNestedQuery(node: TreeNode): boolean {
  return node.kind === "select" || node.kind === "compound" || node.kind === "cte" || node.kind === "subquery";
}

function unknownNode(node: never): never {
  throw new ValidationError(`Unknown node ${JSON.stringify((node as { kind?: string })?.kind)}`);
}
