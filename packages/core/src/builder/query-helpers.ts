import type { SelectNode } from "../ast/statement-node.js";
import type { AggregateFunction } from "../ast/value-node.js";
import { aggregateNode, existsNode, scalarSubqueryNode, sourceColumnNode } from "../ast/value-node.js";
import { ValidationError } from "../errors.js";
import type { Expression } from "../expression/expression.js";
import { brandExpression } from "../expression/expression.js";
import type { ModelClass } from "../schema/model.js";
import { sourceMeta } from "../schema/source-meta.js";
import type { TableMeta } from "../schema/table-meta.js";
import { columnOf, tableMeta } from "../schema/table-meta.js";
import type { ColumnValue, FieldOf } from "../types/model-types.js";
import type { NumberRef, RefOf, RefValue, Sources, SumOf } from "../types/query-types.js";
import type { OffsetOptions, WindowableAggregate, WindowFunction } from "../types/window-types.js";
import type { Executable } from "./executable.js";
import { isExecutable } from "./executable.js";
import type { QueryScope } from "./query-scope.js";
import { refColumn } from "./query-scope.js";
import { windowableAggregate, windowHelpers } from "./window-helpers.js";

/**
 * Typed expressions over a query's sources, for `.columns((q) => ...)`, `.having()` and conditions:
 * the aggregates, `ref` (a column of any source as an operand), and the window functions.
 * An aggregate with `.over(window)` is computed per row over its window (docs/window-functions.md).
 */
export interface QueryHelpers<I, S extends Sources> {
  /** COUNT(*), or COUNT(field): rows where it is not NULL. Always a number. */
  count(ref?: RefOf<I, S>): WindowableAggregate<number, I, S>;
  /** COUNT(DISTINCT field); no database computes it over a window. */
  countDistinct(ref: RefOf<I, S>): Expression<number>;
  /** SUM: a number over integer and real columns (an error past 2^53), an exact decimal string over numeric; null over no rows. */
  sum<K extends NumberRef<I, S>>(ref: K): WindowableAggregate<SumOf<RefValue<I, S, K>>, I, S>;
  /** AVG: a number over integer and real columns, an exact decimal string over numeric; null over no rows. */
  avg<K extends NumberRef<I, S>>(ref: K): WindowableAggregate<SumOf<RefValue<I, S, K>>, I, S>;
  min<K extends RefOf<I, S>>(ref: K): WindowableAggregate<RefValue<I, S, K> | null, I, S>;
  max<K extends RefOf<I, S>>(ref: K): WindowableAggregate<RefValue<I, S, K> | null, I, S>;
  /** A source's column as a value: `"alias"."column"`. */
  ref<K extends RefOf<I, S>>(ref: K): Expression<RefValue<I, S, K>>;
  /** ROW_NUMBER(): 1, 2, 3, ... in the window's order, per partition. */
  rowNumber(): WindowFunction<number, I, S>;
  /** RANK(): peers (equal order keys) share a rank, and the next rank skips: 1, 1, 3. */
  rank(): WindowFunction<number, I, S>;
  /** DENSE_RANK(): peers share a rank, without gaps: 1, 1, 2. */
  denseRank(): WindowFunction<number, I, S>;
  /** LAG: the field of the row `offset` (1) rows before in the window's order; `default` (NULL) where there is none. */
  lag<K extends RefOf<I, S>>(
    ref: K,
    options: OffsetOptions<Exclude<RefValue<I, S, K>, null>> & { readonly default: unknown },
  ): WindowFunction<RefValue<I, S, K>, I, S>;
  lag<K extends RefOf<I, S>>(ref: K, options?: { readonly offset?: number }): WindowFunction<RefValue<I, S, K> | null, I, S>;
  /** LEAD: the field of the row `offset` (1) rows after; `default` (NULL) where there is none. */
  lead<K extends RefOf<I, S>>(
    ref: K,
    options: OffsetOptions<Exclude<RefValue<I, S, K>, null>> & { readonly default: unknown },
  ): WindowFunction<RefValue<I, S, K>, I, S>;
  lead<K extends RefOf<I, S>>(ref: K, options?: { readonly offset?: number }): WindowFunction<RefValue<I, S, K> | null, I, S>;
}

/** Helpers per scope: scopes are shared by every query over the same sources (see QueryScope), and so are these. */
const helpers = new WeakMap<QueryScope | TableMeta, QueryHelpers<any, any>>();

export function queryHelpers(scope: QueryScope | TableMeta): QueryHelpers<any, any> {
  let made = helpers.get(scope);
  if (!made) helpers.set(scope, (made = makeHelpers(scope)));
  return made;
}

function makeHelpers(scope: QueryScope | TableMeta): QueryHelpers<any, any> {
  const aggregate = (fn: AggregateFunction, distinct: boolean, ref: unknown): Expression<any> =>
    windowableAggregate(scope, aggregateNode(fn, distinct, ref === undefined ? undefined : refColumn(scope, ref, fn)));
  return Object.freeze({
    ...windowHelpers(scope),
    count: (ref?: string) => aggregate("count", false, ref),
    countDistinct: (ref: string) => {
      if (ref === undefined) throw new ValidationError("countDistinct needs a field");
      return aggregate("count", true, ref);
    },
    sum: (ref: string) => aggregate("sum", false, ref),
    avg: (ref: string) => aggregate("avg", false, ref),
    min: (ref: string) => aggregate("min", false, ref),
    max: (ref: string) => aggregate("max", false, ref),
    ref: (ref: string) => brandExpression(sourceColumnNode(refColumn(scope, ref, "ref"))),
  }) as unknown as QueryHelpers<any, any>;
}

/** COUNT(*): the number of rows (of each group). */
export function count(): Expression<number> {
  return COUNT_ALL;
}
const COUNT_ALL: Expression<number> = brandExpression(aggregateNode("count", false, undefined));

/**
 * A typed reference to a column of a source named `alias` in this query or an enclosing one: the
 * operand of a join condition, a correlated subquery's link to its outer query, a having value.
 */
export function ref<M extends ModelClass, F extends FieldOf<InstanceType<M>>>(
  model: M,
  alias: string,
  field: F,
): Expression<ColumnValue<InstanceType<M>[F]>> {
  const table = tableMeta(model);
  columnOf(table, field, `ref(${model.name}, "${String(alias)}")`);
  const column = sourceMeta(table, alias, "ref").byField.get(field);
  return brandExpression(sourceColumnNode(column as NonNullable<typeof column>));
}

function selectOf(query: unknown, what: string): SelectNode {
  if (!isExecutable(query)) throw new ValidationError(`${what} takes a select(...) builder`);
  const node = query.toNode();
  if (node.kind !== "select") throw new ValidationError(`${what} takes a select(...) builder, not a ${node.kind}`);
  return node;
}

/** `EXISTS (subquery)`: a condition for `.where()`, `and()`, `or()`. */
export function exists(query: Executable<unknown>): Expression<boolean> {
  return brandExpression(existsNode(false, selectOf(query, "exists")));
}

/** `NOT EXISTS (subquery)`. */
export function notExists(query: Executable<unknown>): Expression<boolean> {
  return brandExpression(existsNode(true, selectOf(query, "notExists")));
}

/** A select of one column as a value: in a projection, or as an operand (`{ total: { gt: scalar(q) } }`). */
export function scalar<R>(query: Executable<R>): Expression<R[keyof R] | null> {
  const select = selectOf(query, "scalar");
  if (select.columns.length !== 1) throw new ValidationError("scalar: the subquery must select exactly one column");
  return brandExpression(scalarSubqueryNode(select));
}
