import { ValidationError } from "../errors.js";
import type { ConditionNode } from "./condition-node.js";
import type { CteNode } from "./cte-node.js";
import { expressionNode } from "./expression.js";
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
 * The deepest and/or/not may nest in one where (or having, or join condition): refused by the
 * builder with a ValidationError. Past it (2,000 levels) the JavaScript stack gave way with an untyped
 * RangeError; SQLite refuses expressions deeper than 1,000.
 */
export const MAX_NESTING = 500;

/** The deepest a whole statement tree may be, counting every node (subqueries, expressions in expressions). */
export const MAX_TREE_DEPTH = 2 * MAX_NESTING;

export function tooDeep(
  where: string,
  limit = MAX_TREE_DEPTH,
  what = "levels of nodes (subqueries, expressions, conditions)",
): ValidationError {
  return new ValidationError(
    `${where}: nests deeper than ${limit} ${what}. Flatten it: and(...) / or(...) take any number of items, op.in([...]) a list.`,
  );
}

/**
 * Calls `visit` on each direct child of `node`, in the order the statement is written. Exhaustive
 * over TreeNode: a new node kind does not compile until it says what it holds, so no check that
 * walks the tree (plain-operator refusal, window and lock rules, the shape cache's eligibility) can
 * miss a branch. A CTE is a child of the select or join that names it.
 */
export function forEachChild<S>(node: TreeNode, visit: (child: TreeNode, state: S) => void, state: S): void {
  switch (node.kind) {
    case "select": {
      const cte = node.table.cte;
      if (cte !== undefined) visit(cte, state);
      if (node.parts !== undefined) visit(node.parts, state);
      if (node.where !== undefined) visit(node.where, state);
      for (const item of node.orderBy) if (item.value !== undefined) visit(item.value, state);
      if (node.lock !== undefined) visit(node.lock, state);
      return;
    }
    case "compound":
      visit(node.left, state);
      visit(node.right, state);
      for (const item of node.orderBy) if (item.value !== undefined) visit(item.value, state);
      return;
    case "insert": {
      const cte = node.table.cte;
      if (cte !== undefined) visit(cte, state);
      for (const at of node.expressions) {
        const cell = node.cells[at] as ValueNode | undefined;
        if (cell !== undefined) visit(cell, state);
      }
      if (node.conflict !== undefined) visit(node.conflict, state);
      return;
    }
    case "update":
      for (const assignment of node.set) visit(assignment.value, state);
      if (node.where !== undefined) visit(node.where, state);
      return;
    case "delete":
      if (node.where !== undefined) visit(node.where, state);
      return;
    case "rawStatement":
      visit(node.expression, state);
      return;
    case "createTable":
      for (const index of node.indexes) if (index.where !== undefined) visit(index.where, state);
      return;
    case "createIndex":
      if (node.index.where !== undefined) visit(node.index.where, state);
      return;
    case "dropTable":
    case "addColumn":
    case "describeTable":
      return;
    case "subquery":
    case "relationSelect":
      visit(node.select, state);
      return;
    case "cte":
      visit(node.body, state);
      return;
    case "queryParts": {
      const cte = node.root?.table.cte;
      if (cte !== undefined) visit(cte, state);
      for (const join of node.joins) visit(join, state);
      for (const selection of node.selections ?? []) visit(selection, state);
      for (const value of node.groupBy) visit(value, state);
      if (node.having !== undefined) visit(node.having, state);
      return;
    }
    case "join": {
      const cte = node.source.table.cte;
      if (cte !== undefined) visit(cte, state);
      visit(node.on, state);
      return;
    }
    case "selection":
      visit(node.value, state);
      return;
    case "lock":
      return;
    case "onConflict":
      if (node.targetWhere !== undefined) visit(node.targetWhere, state);
      for (const assignment of node.set) visit(assignment.value, state);
      if (node.updateWhere !== undefined) visit(node.updateWhere, state);
      return;
    case "onDuplicateKey":
      for (const assignment of node.set) visit(assignment.value, state);
      return;
    case "ignoreDuplicates":
      return;
    // conditions
    case "compare":
      visit(node.value, state);
      return;
    case "inList":
      for (const value of node.values) visit(value, state);
      return;
    case "inSubquery":
      visit(node.subquery, state);
      return;
    case "between":
      visit(node.low, state);
      visit(node.high, state);
      return;
    case "and":
    case "or":
      for (const item of node.items) visit(item, state);
      return;
    case "not":
      visit(node.item, state);
      return;
    case "expressionCondition":
      visit(node.expression, state);
      return;
    case "isNull":
    case "constant":
      return;
    // values
    case "template":
      // A value of a template is bound, or (a branded expression) SQL of its own: that is a child.
      for (const value of node.values) {
        const nested = expressionNode(value);
        if (nested !== undefined) visit(nested, state);
      }
      return;
    case "now":
      if (node.plusSeconds !== undefined) visit(node.plusSeconds, state);
      return;
    case "scalarSubquery":
    case "exists":
      visit(node.select, state);
      return;
    case "window":
      visit(node.fn, state);
      visit(node.spec, state);
      return;
    // typed expressions: their operands and conditions, in the order the compiler writes them
    case "arithmetic":
    case "comparison":
      visit(node.left, state);
      visit(node.right, state);
      return;
    case "negate":
    case "cast":
      visit(node.operand, state);
      return;
    case "functionCall":
      for (const arg of node.args) visit(arg, state);
      return;
    case "case":
      for (const branch of node.branches) {
        visit(branch.when, state);
        visit(branch.value, state);
      }
      if (node.otherwise !== undefined) visit(node.otherwise, state);
      return;
    case "aggregateOf":
      if (node.filter !== undefined) visit(node.filter, state);
      if (node.operand !== undefined) visit(node.operand, state);
      return;
    case "datetimeTrunc":
    case "datetimeField":
      visit(node.operand, state);
      return;
    case "datetimeShift":
      visit(node.operand, state);
      visit(node.amount, state);
      return;
    case "datetimeDiff":
      visit(node.left, state);
      visit(node.right, state);
      return;
    case "literal":
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
      visit(node.value, state);
      if (node.fallback !== undefined) visit(node.fallback, state);
      return;
    case "windowSpec":
      for (const key of node.partitionBy) visit(key, state);
      for (const key of node.orderBy) visit(key, state);
      if (node.frame !== undefined) visit(node.frame, state);
      return;
    case "windowKey":
      visit(node.value, state);
      return;
    case "windowFrame":
      visit(node.start, state);
      visit(node.end, state);
      return;
    case "frameBound":
      return;
    default:
      unknownNode(node);
  }
}

/** What a walk's visitor answers for a node: descend into its children (default), or skip them. */
export type Descend = boolean | undefined;

interface Walk {
  readonly visit: (node: TreeNode, depth: number) => Descend;
  readonly where: string;
  depth: number;
  seen: Set<CteNode> | undefined;
  stopped: boolean;
}

/*
 * One function and one state object per walk, no closure per node: the shape cache walks every
 * statement it compiles.
 */
function step(node: TreeNode, walk: Walk): void {
  if (walk.stopped) return;
  if (walk.depth > MAX_TREE_DEPTH) throw tooDeep(walk.where);
  if (node.kind === "cte") {
    walk.seen ??= new Set();
    if (walk.seen.has(node)) return;
    walk.seen.add(node);
  }
  if (walk.visit(node, walk.depth) === false) return;
  walk.depth++;
  forEachChild(node, step, walk);
  walk.depth--;
}

/**
 * Depth first, each node before its children; `visit` returns false to skip a node's children (a
 * check that stops at a subquery's own select). A CTE read in several places is walked once.
 * `where` names the statement for the error past MAX_NESTING.
 */
export function walkTree(root: TreeNode, visit: (node: TreeNode, depth: number) => Descend, where = "statement"): void {
  step(root, { visit, where, depth: 0, seen: undefined, stopped: false });
}

/** The first node (depth first) for which `test` answers something, or undefined. `enter` as walkTree's false. */
export function findInTree<T>(root: TreeNode, test: (node: TreeNode) => T | undefined, enter?: (node: TreeNode) => boolean): T | undefined {
  let found: T | undefined;
  const walk: Walk = {
    visit: (node) => {
      found = test(node);
      if (found !== undefined) {
        walk.stopped = true;
        return false;
      }
      return enter === undefined || node === root || enter(node);
    },
    where: "statement",
    depth: 0,
    seen: undefined,
    stopped: false,
  };
  step(root, walk);
  return found;
}

/** True for a node that starts a select of its own inside another statement: its rules are its own. */
export function isNestedQuery(node: TreeNode): boolean {
  return node.kind === "select" || node.kind === "compound" || node.kind === "cte" || node.kind === "subquery";
}

function unknownNode(node: never): never {
  throw new ValidationError(`Unknown node ${JSON.stringify((node as { kind?: string })?.kind)}`);
}
