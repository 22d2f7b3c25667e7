import type { ConditionNode } from "../ast/condition-node.js";
import type { DeleteNode, InsertNode, SelectNode, StatementNode, UpdateNode } from "../ast/statement-node.js";
import type { TreeNode, TreeNodeKind } from "../ast/walk-tree.js";
import { findInTree } from "../ast/walk-tree.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { CompileContext } from "./compiled-query.js";

/** Statement texts kept per compiler; past it, the cache starts over. */
export const MAX_SHAPE_TEXTS = 256;
/** Levels of the shape tree kept per compiler (texts of abandoned walks hold none); past it, the cache starts over. */
export const MAX_SHAPE_LEVELS = 4096;

/** One step of the walk: the tokens seen so far lead here; `TEXT` holds the statement's text once known. */
type Level = Map<unknown, unknown>;

/**
 * Which node kinds a cached shape may hold: those whose text a shape's tokens fully determine. The
 * rest make the statement compile in full: IN lists (text chosen by length on some dialects), SQL
 * expressions, subqueries, joins, CTEs, upserts, windows. A Record over every kind, so a new kind
 * does not compile until it is placed on one side.
 */
const SHAPED: Readonly<Record<TreeNodeKind, boolean>> = {
  // Typed expressions bind values whose casts and text depend on their kinds: compiled in full.
  arithmetic: false,
  negate: false,
  functionCall: false,
  case: false,
  cast: false,
  comparison: false,
  aggregateOf: false,
  datetimeTrunc: false,
  datetimeField: false,
  datetimeShift: false,
  datetimeDiff: false,
  literal: false,
  select: true,
  insert: true,
  update: true,
  delete: true,
  compare: true,
  isNull: true,
  between: true,
  and: true,
  or: true,
  not: true,
  constant: true,
  param: true,
  lock: true,
  compound: false,
  rawStatement: false,
  createTable: false,
  createIndex: false,
  dropTable: false,
  addColumn: false,
  describeTable: false,
  relationSelect: false,
  subquery: false,
  cte: false,
  queryParts: false,
  join: false,
  selection: false,
  onConflict: false,
  onDuplicateKey: false,
  ignoreDuplicates: false,
  inList: false,
  inSubquery: false,
  expressionCondition: false,
  raw: false,
  template: false,
  now: false,
  excluded: false,
  columnRef: false,
  sourceColumn: false,
  aggregate: false,
  scalarSubquery: false,
  exists: false,
  outputColumn: false,
  placeholder: false,
  window: false,
  ranking: false,
  offsetFunction: false,
  windowSpec: false,
  windowKey: false,
  windowFrame: false,
  frameBound: false,
};

const unshaped = (node: TreeNode): true | undefined => (SHAPED[node.kind] ? undefined : true);

const TEXT = Symbol("text");
const NONE = Symbol("none");

/** How the compiler binds a value (`bind`) and an insert's VALUES cells, into ctx.params, with all their checks. */
export interface ShapeBinders {
  readonly value: (value: unknown, column: ColumnMeta | undefined, ctx: CompileContext) => void;
  readonly cells: (node: InsertNode, ctx: CompileContext) => void;
}

/**
 * The SQL texts of statements by shape, for the builders a program runs again and again with other
 * values (`insert(M).values(row)`, `select(M).where({ id })`, `update(M).set({ n }).where({ id })`). A
 * shape is everything the text is made of: the statement kind, its table and columns, the row count,
 * the columns SET assigns, each condition's kind, column and operator, ORDER BY, LIMIT / OFFSET, the
 * lock and RETURNING. Values are never part of it: walking a statement binds them through the
 * compiler's own `bind` (the same text checks and encoding as a full compile), and a shape's text is
 * the one a full compile of its first statement wrote, so no value can change the text. Only shapes
 * whose text cannot depend on a value are walked: plain selects, inserts, updates and deletes of bound
 * values, with conditions of bound values (no IN lists, whose text some dialects choose by length, no
 * expressions, no subqueries, no joins, no CTEs, no upserts); anything else is compiled in full.
 *
 * The shapes form a tree keyed by identity (tables, columns) and by small values (operators,
 * counts), so finding one builds no string. Bounded: MAX_SHAPE_TEXTS texts and MAX_SHAPE_LEVELS
 * levels per compiler, then it starts over. A compiler is made per set of capabilities, so a change
 * of capabilities (the engine's compiler replaced once the server is inspected) starts a new cache.
 */
export class StatementShapes {
  readonly #binders: ShapeBinders;
  #root: Level = new Map();
  #texts = 0;
  #levels = 0;
  /** The walk's position. */
  #at: Level = this.#root;

  constructor(binders: ShapeBinders) {
    this.#binders = binders;
  }

  /**
   * Walks `node`'s shape, binding its values into `ctx.params` in the order a full compile binds
   * them: the level of its shape (its text, when known, through `text`), or undefined for a statement
   * outside the shapes kept (`ctx.params` then holds a partial list, to be dropped).
   */
  find(node: StatementNode, ctx: CompileContext): Level | undefined {
    // Eligibility over the whole tree (walkTree), so no child this walk does not look at can hide in a shape.
    if (findInTree(node, unshaped) !== undefined) return undefined;
    this.#at = this.#root;
    switch (node.kind) {
      case "select":
        return this.#select(node, ctx) ? this.#at : undefined;
      case "insert":
        return this.#insert(node, ctx) ? this.#at : undefined;
      case "update":
        return this.#update(node, ctx) ? this.#at : undefined;
      case "delete":
        return this.#delete(node, ctx) ? this.#at : undefined;
      default:
        return undefined;
    }
  }

  /** Statement texts kept. */
  get size(): number {
    return this.#texts;
  }

  text(level: Level): string | undefined {
    return level.get(TEXT) as string | undefined;
  }

  /** Keeps `sql` as the text of the shape `level` was found for. */
  remember(level: Level, sql: string): void {
    if (level.has(TEXT)) return;
    if (++this.#texts > MAX_SHAPE_TEXTS || this.#levels > MAX_SHAPE_LEVELS) {
      // Starting over drops this walk's levels too; the next statement of the shape walks a fresh tree.
      this.#root = new Map();
      this.#texts = 0;
      this.#levels = 0;
      return;
    }
    level.set(TEXT, sql);
  }

  #go(token: unknown): void {
    let next = this.#at.get(token) as Level | undefined;
    if (next === undefined) {
      next = new Map();
      this.#at.set(token, next);
      this.#levels++;
    }
    this.#at = next;
  }

  #columns(columns: readonly ColumnMeta[] | undefined): void {
    if (columns === undefined) {
      this.#go(NONE);
      return;
    }
    this.#go(columns.length);
    for (let i = 0; i < columns.length; i++) this.#go(columns[i]);
  }

  #select(node: SelectNode, ctx: CompileContext): boolean {
    if (node.parts !== undefined || node.table.cte !== undefined) return false;
    this.#go("select");
    this.#go(node.table);
    this.#columns(node.columns);
    if (!this.#condition(node.where, ctx)) return false;
    const orderBy = node.orderBy;
    this.#go(orderBy.length);
    for (let i = 0; i < orderBy.length; i++) {
      const item = orderBy[i] as SelectNode["orderBy"][number];
      if (item.column === undefined) return false;
      this.#go(item.column);
      this.#go(item.direction);
      this.#go(item.nulls);
    }
    this.#go(node.limit);
    this.#go(node.offset);
    const lock = node.lock;
    if (lock === undefined) {
      this.#go(NONE);
      return true;
    }
    this.#go(lock.strength);
    this.#go(lock.wait);
    this.#go(lock.of.length);
    for (let i = 0; i < lock.of.length; i++) this.#go(lock.of[i]);
    return true;
  }

  #insert(node: InsertNode, ctx: CompileContext): boolean {
    if (node.expressions.length > 0 || node.conflict !== undefined || node.columns.length === 0 || node.table.cte !== undefined)
      return false;
    this.#go("insert");
    this.#go(node.table);
    this.#columns(node.columns);
    this.#go(node.rowCount);
    this.#columns(node.returning);
    this.#binders.cells(node, ctx);
    return true;
  }

  /** SET's values first, then WHERE's: the order the statement is written in. */
  #update(node: UpdateNode, ctx: CompileContext): boolean {
    if (node.table.cte !== undefined) return false;
    this.#go("update");
    this.#go(node.table);
    this.#go(node.set.length);
    for (let i = 0; i < node.set.length; i++) {
      const assignment = node.set[i] as UpdateNode["set"][number];
      if (assignment.value.kind !== "param") return false;
      this.#go(assignment.column);
      this.#binders.value(assignment.value.value, assignment.value.column, ctx);
    }
    if (!this.#condition(node.where, ctx)) return false;
    this.#columns(node.returning);
    return true;
  }

  #delete(node: DeleteNode, ctx: CompileContext): boolean {
    if (node.table.cte !== undefined) return false;
    this.#go("delete");
    this.#go(node.table);
    if (!this.#condition(node.where, ctx)) return false;
    this.#columns(node.returning);
    return true;
  }

  /** A condition's shape, its values bound left to right as the condition compiler writes them. */
  #condition(node: ConditionNode | undefined, ctx: CompileContext): boolean {
    if (node === undefined) {
      this.#go(NONE);
      return true;
    }
    const bind = this.#binders.value;
    switch (node.kind) {
      case "compare":
        if (node.value.kind !== "param") return false;
        this.#go("compare");
        this.#go(node.column);
        this.#go(node.op);
        bind(node.value.value, node.value.column, ctx);
        return true;
      case "isNull":
        this.#go("isNull");
        this.#go(node.column);
        this.#go(node.negated);
        return true;
      case "between":
        if (node.low.kind !== "param" || node.high.kind !== "param") return false;
        this.#go("between");
        this.#go(node.column);
        bind(node.low.value, node.low.column, ctx);
        bind(node.high.value, node.high.column, ctx);
        return true;
      case "and":
      case "or":
        this.#go(node.kind);
        this.#go(node.items.length);
        for (let i = 0; i < node.items.length; i++) if (!this.#condition(node.items[i], ctx)) return false;
        return true;
      case "not":
        this.#go("not");
        return this.#condition(node.item, ctx);
      case "constant":
        this.#go("constant");
        this.#go(node.value);
        return true;
      default:
        // IN lists (text chosen by length on some dialects), subqueries, SQL expressions.
        return false;
    }
  }
}
