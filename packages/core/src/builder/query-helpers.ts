import type { Expression } from "../ast/expression.js";
import { brandExpression, expressionNode } from "../ast/expression.js";
import type { AggregateOfNode } from "../ast/expression-node.js";
import type { SelectNode } from "../ast/statement-node.js";
import type { AggregateFunction } from "../ast/value-node.js";
import { aggregateNode, existsNode, scalarSubqueryNode, sourceColumnNode } from "../ast/value-node.js";
import { ValidationError } from "../errors.js";
import { expressionBuilders } from "../expression/expression-builders.js";
import type { SumOfKind } from "../expression/fn.js";
import type { ModelClass } from "../schema/model.js";
import type { TableMeta } from "../schema/table-meta.js";
import { columnOf, tableMeta } from "../schema/table-meta.js";
import type { KindOf, NumberOperand, RefExpression, RefKind, Resolved, ValueOf } from "../types/expression-types.js";
import type { ColumnValue, FieldOf } from "../types/model-types.js";
import type { QueryExpressionHelpers, QueryNumber, QueryOperand } from "../types/query-expression-types.js";
import type { NumberRef, QueryWhereArg, RefOf, RefValue, Sources, SumOf } from "../types/query-types.js";
import type {
  DistinctAggregateOptions,
  OffsetOptions,
  Windowable,
  WindowableAggregate,
  WindowableAggregateOptions,
  WindowFunction,
} from "../types/window-types.js";
import type { Executable } from "./executable.js";
import { isExecutable } from "./executable.js";
import type { QueryScope } from "./query-scope.js";
import { refColumn } from "./query-scope.js";
import { resolveWhere } from "./resolve-where.js";
import { sourceMeta } from "./source-meta.js";
import { windowableAggregate, windowHelpers } from "./window-helpers.js";

/**
 * Typed expressions over a query's sources, for `.columns((q) => ...)`, `.having()` and conditions:
 * the aggregates, `ref` (a column of any source as an operand), and the window functions.
 * An aggregate with `.over(window)` is computed per row over its window (docs/window-functions.md).
 */
export interface QueryHelpers<I, S extends Sources> extends QueryExpressionHelpers<I, S> {
  // Over an expression, or with a filter: windowable too, unless distinct (see QueryExpressionHelpers for the rest).
  count(value: Expression<any, any> | RefOf<I, S>, options: DistinctAggregateOptions<QueryWhereArg<I, S>>): Expression<number, "integer">;
  count(
    value: Expression<any, any>,
    options?: WindowableAggregateOptions<QueryWhereArg<I, S>>,
  ): Windowable<Expression<number, "integer">, I, S>;
  count(value: RefOf<I, S>, options: WindowableAggregateOptions<QueryWhereArg<I, S>>): Windowable<Expression<number, "integer">, I, S>;
  /** COUNT(*), or COUNT(field): rows where it is not NULL. Always a number. */
  count(ref?: RefOf<I, S>): WindowableAggregate<number, I, S>;
  sum<A extends QueryNumber<I, S>>(value: A, options: DistinctAggregateOptions<QueryWhereArg<I, S>>): SumOfKind<Resolved<I, S, A>>;
  sum<A extends QueryNumber<I, S>>(
    value: A,
    options: WindowableAggregateOptions<QueryWhereArg<I, S>>,
  ): Windowable<SumOfKind<Resolved<I, S, A>>, I, S>;
  sum<A extends NumberOperand & Expression<any, any>>(value: A): Windowable<SumOfKind<A>, I, S>;
  /** SUM: a number over integer and real columns (an error past 2^53), an exact decimal string over numeric; null over no rows. */
  sum<K extends NumberRef<I, S>>(ref: K): WindowableAggregate<SumOf<RefValue<I, S, K>>, I, S>;
  avg<A extends QueryNumber<I, S>>(value: A, options: DistinctAggregateOptions<QueryWhereArg<I, S>>): SumOfKind<Resolved<I, S, A>>;
  avg<A extends QueryNumber<I, S>>(
    value: A,
    options: WindowableAggregateOptions<QueryWhereArg<I, S>>,
  ): Windowable<SumOfKind<Resolved<I, S, A>>, I, S>;
  avg<A extends NumberOperand & Expression<any, any>>(value: A): Windowable<SumOfKind<A>, I, S>;
  /** AVG: a number over integer and real columns, an exact decimal string over numeric; null over no rows. */
  avg<K extends NumberRef<I, S>>(ref: K): WindowableAggregate<SumOf<RefValue<I, S, K>>, I, S>;
  min<A extends QueryOperand<I, S>>(
    value: A,
    options: DistinctAggregateOptions<QueryWhereArg<I, S>>,
  ): Expression<ValueOf<Resolved<I, S, A>> | null, KindOf<Resolved<I, S, A>>>;
  min<A extends QueryOperand<I, S>>(
    value: A,
    options: WindowableAggregateOptions<QueryWhereArg<I, S>>,
  ): Windowable<Expression<ValueOf<Resolved<I, S, A>> | null, KindOf<Resolved<I, S, A>>>, I, S>;
  min<A extends Expression<any, any>>(value: A): Windowable<Expression<ValueOf<A> | null, KindOf<A>>, I, S>;
  min<K extends RefOf<I, S>>(ref: K): WindowableAggregate<RefValue<I, S, K> | null, I, S>;
  max<A extends QueryOperand<I, S>>(
    value: A,
    options: DistinctAggregateOptions<QueryWhereArg<I, S>>,
  ): Expression<ValueOf<Resolved<I, S, A>> | null, KindOf<Resolved<I, S, A>>>;
  max<A extends QueryOperand<I, S>>(
    value: A,
    options: WindowableAggregateOptions<QueryWhereArg<I, S>>,
  ): Windowable<Expression<ValueOf<Resolved<I, S, A>> | null, KindOf<Resolved<I, S, A>>>, I, S>;
  max<A extends Expression<any, any>>(value: A): Windowable<Expression<ValueOf<A> | null, KindOf<A>>, I, S>;
  max<K extends RefOf<I, S>>(ref: K): WindowableAggregate<RefValue<I, S, K> | null, I, S>;
  /** COUNT(*) of the rows the condition keeps; with `.over(window)`, per row over its window. */
  countIf(condition: QueryWhereArg<I, S>): Windowable<Expression<number, "integer">, I, S>;
  /** COUNT(DISTINCT field); no database computes it over a window. */
  countDistinct(ref: RefOf<I, S>): Expression<number>;
  /** A source's column as a value: `"alias"."column"`. */
  ref<K extends RefOf<I, S>>(ref: K): RefExpression<I, S, K>;
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
  /** LAG of a typed expression over the row (`q.lower("name")`): typed as the expression, or null where there is no such row. */
  lag<A extends Expression<any, any>>(
    value: A,
    options: OffsetOptions<NonNullable<ValueOf<A>>> & { readonly default: unknown },
  ): WindowFunction<ValueOf<A>, I, S>;
  lag<A extends Expression<any, any>>(value: A, options?: { readonly offset?: number }): WindowFunction<ValueOf<A> | null, I, S>;
  /** LEAD: the field of the row `offset` (1) rows after; `default` (NULL) where there is none. */
  lead<K extends RefOf<I, S>>(
    ref: K,
    options: OffsetOptions<Exclude<RefValue<I, S, K>, null>> & { readonly default: unknown },
  ): WindowFunction<RefValue<I, S, K>, I, S>;
  lead<K extends RefOf<I, S>>(ref: K, options?: { readonly offset?: number }): WindowFunction<RefValue<I, S, K> | null, I, S>;
  /** LEAD of a typed expression over the row. */
  lead<A extends Expression<any, any>>(
    value: A,
    options: OffsetOptions<NonNullable<ValueOf<A>>> & { readonly default: unknown },
  ): WindowFunction<ValueOf<A>, I, S>;
  lead<A extends Expression<any, any>>(value: A, options?: { readonly offset?: number }): WindowFunction<ValueOf<A> | null, I, S>;
}

/** Helpers per scope: scopes are shared by every query over the same sources (see QueryScope), and so are these. */
const helpers = new WeakMap<QueryScope | TableMeta, QueryHelpers<any, any>>();

export function queryHelpers(scope: QueryScope | TableMeta): QueryHelpers<any, any> {
  let made = helpers.get(scope);
  if (!made) helpers.set(scope, (made = makeHelpers(scope)));
  return made;
}

function makeHelpers(scope: QueryScope | TableMeta): QueryHelpers<any, any> {
  const builders = expressionBuilders({
    ref: (name) => sourceColumnNode(refColumn(scope, name, "q.ref")),
    condition: (input, where) => resolveWhere(scope, input, where),
  });
  // A field alone: the windowable aggregate of the column; an expression, or a filter: the aggregate of builders.
  const aggregate = (fn: AggregateFunction, distinct: boolean, ref: unknown, options?: unknown): Expression<any> => {
    if (options !== undefined || (ref !== undefined && typeof ref !== "string")) {
      // The options as given (checked by the builder: an option is never silently dropped).
      const made = expressionNode(builders[fn](ref, distinct ? { distinct } : options)) as AggregateOfNode;
      return windowableAggregate(scope, made);
    }
    return windowableAggregate(scope, aggregateNode(fn, distinct, ref === undefined ? undefined : refColumn(scope, ref, fn)));
  };
  return Object.freeze({
    ...windowHelpers(scope),
    ...builders,
    countIf: (condition: unknown) =>
      windowableAggregate(scope, expressionNode(builders.count(undefined, { filter: condition })) as AggregateOfNode),
    count: (ref?: string, options?: unknown) => aggregate("count", false, ref, options),
    countDistinct: (ref: string) => {
      if (ref === undefined) throw new ValidationError("countDistinct needs a field");
      return aggregate("count", true, ref);
    },
    sum: (ref: string, options?: unknown) => aggregate("sum", false, ref, options),
    avg: (ref: string, options?: unknown) => aggregate("avg", false, ref, options),
    min: (ref: string, options?: unknown) => aggregate("min", false, ref, options),
    max: (ref: string, options?: unknown) => aggregate("max", false, ref, options),
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
): Expression<ColumnValue<InstanceType<M>[F]>, RefKind<InstanceType<M>, {}, F>> {
  const table = tableMeta(model);
  columnOf(table, field, `ref(${model.name}, "${String(alias)}")`);
  const column = sourceMeta(table, alias, "ref").byField.get(field);
  return brandExpression(sourceColumnNode(column as NonNullable<typeof column>)) as never;
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
