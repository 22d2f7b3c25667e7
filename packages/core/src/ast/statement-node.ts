import type { ColumnMeta } from "../schema/column-meta.js";
import type { IndexMeta } from "../schema/index-meta.js";
import type { TableMeta } from "../schema/table-meta.js";
import type { CompoundNode } from "./compound-node.js";
import type { ConditionNode } from "./condition-node.js";
import type { QueryParts } from "./query-node.js";
import type { RelationSelectNode } from "./relation-node.js";
import type { ExpressionNode, ValueNode } from "./value-node.js";

export interface OrderByItem {
  /** The sort key: a column of the statement's table, or (when undefined) `value`. */
  readonly column: ColumnMeta | undefined;
  /** A sort key that is not a plain column: a source's column, an aggregate, a projection key. */
  readonly value: ValueNode | undefined;
  readonly direction: "asc" | "desc";
  /** Explicit NULLS FIRST / LAST; undefined: NULL sorts as the largest value (docs/dialects.md). */
  readonly nulls: "first" | "last" | undefined;
}

export interface LockClause {
  readonly kind: "lock";
  readonly strength: "update" | "share";
  readonly wait: "wait" | "skipLocked" | "noWait";
  /** Table names the lock is restricted to (`FOR UPDATE OF`). Empty: every table. */
  readonly of: readonly string[];
}

export interface SelectNode {
  readonly kind: "select";
  readonly table: TableMeta;
  readonly columns: readonly ColumnMeta[];
  readonly where: ConditionNode | undefined;
  readonly orderBy: readonly OrderByItem[];
  readonly limit: number | undefined;
  readonly offset: number | undefined;
  readonly lock: LockClause | undefined;
  /** Aliases, joins, a computed projection, DISTINCT, GROUP BY, HAVING; undefined on a plain select. */
  readonly parts: QueryParts | undefined;
}

/** A SELECT of one column used as the operand of `in` / `notIn`. */
export interface SubqueryNode {
  readonly kind: "subquery";
  readonly select: SelectNode;
}

export interface Assignment {
  readonly column: ColumnMeta;
  readonly value: ValueNode;
}

export interface OnConflictClause {
  readonly kind: "onConflict";
  /** Empty: no conflict target (`ON CONFLICT DO NOTHING`). */
  readonly target: readonly ColumnMeta[];
  /** The partial unique index's predicate, repeated so the server can infer the index. */
  readonly targetWhere: ConditionNode | undefined;
  readonly action: "nothing" | "update";
  readonly set: readonly Assignment[];
  readonly updateWhere: ConditionNode | undefined;
}

/** MySQL's `ON DUPLICATE KEY UPDATE`: any unique key, no target. */
export interface OnDuplicateKeyClause {
  readonly kind: "onDuplicateKey";
  readonly set: readonly Assignment[];
}

/** MySQL's `INSERT IGNORE`. */
export interface IgnoreDuplicatesClause {
  readonly kind: "ignoreDuplicates";
}

export type ConflictClause = OnConflictClause | OnDuplicateKeyClause | IgnoreDuplicatesClause;

export interface InsertNode {
  readonly kind: "insert";
  readonly table: TableMeta;
  readonly columns: readonly ColumnMeta[];
  /** How many rows VALUES holds. */
  readonly rowCount: number;
  /**
   * The VALUES grid, row after row, one cell per column (cell `row * columns.length + column`):
   * the value to bind for that column, already checked against it; or, at the positions
   * `expressions` lists, an ExpressionNode. One frozen array for the whole grid.
   */
  readonly cells: readonly unknown[];
  /**
   * The positions, ascending, of the cells that hold SQL rather than a value (`sql.now()`, a column
   * default expression); a frozen array. Empty in the usual bulk insert, which then binds every cell.
   */
  readonly expressions: readonly number[];
  readonly conflict: ConflictClause | undefined;
  readonly returning: readonly ColumnMeta[] | undefined;
}

export interface UpdateNode {
  readonly kind: "update";
  readonly table: TableMeta;
  readonly set: readonly Assignment[];
  readonly where: ConditionNode | undefined;
  readonly allRows: boolean;
  readonly returning: readonly ColumnMeta[] | undefined;
}

export interface DeleteNode {
  readonly kind: "delete";
  readonly table: TableMeta;
  readonly where: ConditionNode | undefined;
  readonly allRows: boolean;
  readonly returning: readonly ColumnMeta[] | undefined;
}

/**
 * A whole statement written with `sql.raw` / `sql.expr`. With `columns` (a typed raw query) it is a
 * SELECT whose declared columns are read by name and decoded by their kinds, like a builder's.
 */
export interface RawStatementNode {
  readonly kind: "rawStatement";
  readonly expression: ExpressionNode;
  readonly columns: readonly ColumnMeta[] | undefined;
}

export interface CreateTableNode {
  readonly kind: "createTable";
  readonly table: TableMeta;
  /** The table's indexes, predicates resolved (CREATE TABLE checks that each can be created). */
  readonly indexes: readonly IndexMeta[];
  readonly ifNotExists: boolean;
}

export interface CreateIndexNode {
  readonly kind: "createIndex";
  readonly table: TableMeta;
  readonly index: IndexMeta;
  readonly ifNotExists: boolean;
}

export interface DropTableNode {
  readonly kind: "dropTable";
  readonly table: TableMeta;
  readonly ifExists: boolean;
}

/** ALTER TABLE ... ADD COLUMN for one of the model's columns. */
export interface AddColumnNode {
  readonly kind: "addColumn";
  readonly table: TableMeta;
  readonly column: ColumnMeta;
}

/**
 * A query for the table's columns and indexes as the database has them (see `describeTable`). Each
 * dialect writes it against its own catalog, returning the same row shape.
 */
export interface DescribeTableNode {
  readonly kind: "describeTable";
  readonly table: TableMeta;
}

export type StatementNode =
  | SelectNode
  | CompoundNode
  | InsertNode
  | UpdateNode
  | DeleteNode
  | RawStatementNode
  | CreateTableNode
  | CreateIndexNode
  | DropTableNode
  | AddColumnNode
  | DescribeTableNode
  | RelationSelectNode;

// ---- factories: the only places these nodes are made ------------------------------------------
// Clause nodes come frozen. Statement nodes (select, insert, update, delete) come fresh: the
// builder that makes one holds it alone and freezes it when it hands it out (see builder/frozen-node).

export function orderByItem(
  column: ColumnMeta | undefined,
  value: ValueNode | undefined,
  direction: OrderByItem["direction"],
  nulls: OrderByItem["nulls"],
): OrderByItem {
  return Object.freeze({ column, value, direction, nulls });
}

/** `of` is frozen here. */
export function lockClause(strength: LockClause["strength"], wait: LockClause["wait"], of: readonly string[]): LockClause {
  return Object.freeze({ kind: "lock", strength, wait, of: Object.freeze(of) });
}

/** `select` is frozen here. */
export function subqueryNode(select: SelectNode): SubqueryNode {
  return Object.freeze({ kind: "subquery", select: Object.freeze(select) });
}

export function onConflictClause(
  target: readonly ColumnMeta[],
  targetWhere: ConditionNode | undefined,
  action: OnConflictClause["action"],
  set: readonly Assignment[],
  updateWhere: ConditionNode | undefined,
): OnConflictClause {
  return Object.freeze({ kind: "onConflict", target, targetWhere, action, set: Object.freeze(set), updateWhere });
}

export function onDuplicateKeyClause(set: readonly Assignment[]): OnDuplicateKeyClause {
  return Object.freeze({ kind: "onDuplicateKey", set: Object.freeze(set) });
}

const IGNORE_DUPLICATES: IgnoreDuplicatesClause = Object.freeze({ kind: "ignoreDuplicates" });

export function ignoreDuplicatesClause(): IgnoreDuplicatesClause {
  return IGNORE_DUPLICATES;
}

/** A fresh select node (see above); every field given, so each node has the same shape. */
export function selectNode(
  table: TableMeta,
  columns: readonly ColumnMeta[],
  where: ConditionNode | undefined,
  orderBy: readonly OrderByItem[],
  limit: number | undefined,
  offset: number | undefined,
  lock: LockClause | undefined,
  parts: QueryParts | undefined,
): SelectNode {
  return { kind: "select", table, columns, where, orderBy, limit, offset, lock, parts };
}

/** A fresh insert node (see above). */
export function insertNode(
  table: TableMeta,
  columns: readonly ColumnMeta[],
  rowCount: number,
  cells: readonly unknown[],
  expressions: readonly number[],
  conflict: ConflictClause | undefined,
  returning: readonly ColumnMeta[] | undefined,
): InsertNode {
  return { kind: "insert", table, columns, rowCount, cells, expressions, conflict, returning };
}

/** A fresh update node (see above). */
export function updateNode(
  table: TableMeta,
  set: readonly Assignment[],
  where: ConditionNode | undefined,
  allRows: boolean,
  returning: readonly ColumnMeta[] | undefined,
): UpdateNode {
  return { kind: "update", table, set, where, allRows, returning };
}

/** A fresh delete node (see above). */
export function deleteNode(
  table: TableMeta,
  where: ConditionNode | undefined,
  allRows: boolean,
  returning: readonly ColumnMeta[] | undefined,
): DeleteNode {
  return { kind: "delete", table, where, allRows, returning };
}

export function rawStatementNode(expression: ExpressionNode, columns?: readonly ColumnMeta[]): RawStatementNode {
  return Object.freeze({ kind: "rawStatement", expression, columns });
}

export function createTableNode(table: TableMeta, indexes: readonly IndexMeta[], ifNotExists: boolean): CreateTableNode {
  return Object.freeze({ kind: "createTable", table, indexes, ifNotExists });
}

export function createIndexNode(table: TableMeta, index: IndexMeta, ifNotExists: boolean): CreateIndexNode {
  return Object.freeze({ kind: "createIndex", table, index, ifNotExists });
}

export function addColumnNode(table: TableMeta, column: ColumnMeta): AddColumnNode {
  return Object.freeze({ kind: "addColumn", table, column });
}

export function describeTableNode(table: TableMeta): DescribeTableNode {
  return Object.freeze({ kind: "describeTable", table });
}

export function dropTableNode(table: TableMeta, ifExists: boolean): DropTableNode {
  return Object.freeze({ kind: "dropTable", table, ifExists });
}
