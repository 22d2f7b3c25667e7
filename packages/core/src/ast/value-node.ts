import type { ColumnKind, ColumnMeta } from "../schema/column-meta.js";
import type { TypedExpressionNode } from "./expression-node.js";
import type { SelectNode } from "./statement-node.js";
import type { WindowNode } from "./window-node.js";

/** A JavaScript value bound as a parameter. `column` tells the dialect how to encode it. */
export interface ParamNode {
  readonly kind: "param";
  readonly value: unknown;
  readonly column: ColumnMeta | undefined;
}

/** Verbatim SQL text from `sql.raw()`. The only door for text into a statement. */
export interface RawNode {
  readonly kind: "raw";
  readonly text: string;
}

/** `` sql.expr`...` ``: fixed text between bound values (each value a parameter or a nested expression). */
export interface TemplateNode {
  readonly kind: "template";
  readonly strings: readonly string[];
  readonly values: readonly unknown[];
}

/** The database's current time, optionally shifted by a number of seconds (a value node). */
export interface NowNode {
  readonly kind: "now";
  readonly plusSeconds: ValueNode | undefined;
}

/** The row proposed for insertion, inside an upsert's update (`excluded.x` / `VALUES(x)`). */
export interface ExcludedNode {
  readonly kind: "excluded";
  readonly field: string;
}

/** A column of the statement's table, by field name (resolved by the compiler). */
export interface ColumnRefNode {
  readonly kind: "columnRef";
  readonly field: string;
}

/**
 * A named value given later, when a prepared statement runs (`engine.prepare`). `column` is the column
 * it stands for, set by the builder where the placeholder lands; the value given then is checked
 * against it exactly as a literal value there would be (null only where `allowNull`).
 */
export interface PlaceholderNode {
  readonly kind: "placeholder";
  readonly name: string;
  /** The kind the placeholder was declared with. */
  readonly declared: ColumnKind;
  /** Declared `"kind | null"`. */
  readonly nullable: boolean;
  readonly column: ColumnMeta | undefined;
  readonly allowNull: boolean;
  /** Describes where the placeholder stands, for the errors of a value given for it. */
  readonly where: string;
  /** Declared `"kind[]"`: a list of values, bound as one array parameter (`op.in(p.ids)`). */
  readonly list: boolean;
}

/** A column of a named source (`"alias"."column"`): `column.table` is the alias. Always qualified. */
export interface SourceColumnNode {
  readonly kind: "sourceColumn";
  readonly column: ColumnMeta;
}

export type AggregateFunction = "count" | "sum" | "avg" | "min" | "max";

/** `COUNT(*)` (no column), `COUNT(col)`, `COUNT(DISTINCT col)`, `SUM(col)`, ... */
export interface AggregateNode {
  readonly kind: "aggregate";
  readonly fn: AggregateFunction;
  readonly distinct: boolean;
  readonly column: ColumnMeta | undefined;
}

/** A one-column SELECT used as a value: `(SELECT ...)`. */
export interface ScalarSubqueryNode {
  readonly kind: "scalarSubquery";
  readonly select: SelectNode;
}

/** `EXISTS (SELECT ...)` / `NOT EXISTS (...)`: a predicate, used as a condition. */
export interface ExistsNode {
  readonly kind: "exists";
  readonly negated: boolean;
  readonly select: SelectNode;
}

/** A key of the statement's own projection (`ORDER BY "total"`). */
export interface OutputColumnNode {
  readonly kind: "outputColumn";
  readonly key: string;
}

export type ExpressionNode =
  | RawNode
  | TemplateNode
  | NowNode
  | ExcludedNode
  | ColumnRefNode
  | SourceColumnNode
  | AggregateNode
  | ScalarSubqueryNode
  | ExistsNode
  | OutputColumnNode
  | PlaceholderNode
  | WindowNode
  | TypedExpressionNode;
export type ValueNode = ParamNode | ExpressionNode;

// ---- factories: the only places a value node is made; each returns a frozen node ---------------

export function paramNode(value: unknown, column?: ColumnMeta): ParamNode {
  return Object.freeze({ kind: "param", value, column });
}

/** The text is checked where it enters (sql.raw). */
export function rawNode(text: string): RawNode {
  return Object.freeze({ kind: "raw", text });
}

/** `strings` and `values` are frozen here. */
export function templateNode(strings: readonly string[], values: readonly unknown[]): TemplateNode {
  return Object.freeze({ kind: "template", strings: Object.freeze([...strings]), values: Object.freeze(values) });
}

export function nowNode(plusSeconds: ValueNode | undefined): NowNode {
  return Object.freeze({ kind: "now", plusSeconds });
}

export function excludedNode(field: string): ExcludedNode {
  return Object.freeze({ kind: "excluded", field });
}

export function columnRefNode(field: string): ColumnRefNode {
  return Object.freeze({ kind: "columnRef", field });
}

/** A placeholder not yet placed (`column` undefined), or placed at a column by a builder. */
export function placeholderNode(
  name: string,
  declared: ColumnKind,
  nullable: boolean,
  column?: ColumnMeta,
  allowNull = false,
  where = "",
  list = false,
): PlaceholderNode {
  return Object.freeze({ kind: "placeholder", name, declared, nullable, column, allowNull, where, list });
}

/** One frozen reference node per column, shared by every query naming it (columns are model metadata). */
const sourceColumnNodes = new WeakMap<ColumnMeta, SourceColumnNode>();

export function sourceColumnNode(column: ColumnMeta): SourceColumnNode {
  let node = sourceColumnNodes.get(column);
  if (node === undefined) {
    node = Object.freeze({ kind: "sourceColumn", column });
    sourceColumnNodes.set(column, node);
  }
  return node;
}

export function aggregateNode(fn: AggregateFunction, distinct: boolean, column: ColumnMeta | undefined): AggregateNode {
  return Object.freeze({ kind: "aggregate", fn, distinct, column });
}

/** `select` is frozen here. */
export function scalarSubqueryNode(select: SelectNode): ScalarSubqueryNode {
  return Object.freeze({ kind: "scalarSubquery", select: Object.freeze(select) });
}

/** `select` is frozen here. */
export function existsNode(negated: boolean, select: SelectNode): ExistsNode {
  return Object.freeze({ kind: "exists", negated, select: Object.freeze(select) });
}

export function outputColumnNode(key: string): OutputColumnNode {
  return Object.freeze({ kind: "outputColumn", key });
}
