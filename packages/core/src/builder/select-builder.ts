import { andNodes } from "../ast/condition-node.js";
import type { JoinKind } from "../ast/query-node.js";
import type { OrderByItem, SelectNode, StatementNode, SubqueryNode } from "../ast/statement-node.js";
import { orderByItem, selectNode, subqueryNode } from "../ast/statement-node.js";
import { outputColumnNode } from "../ast/value-node.js";
import { ValidationError } from "../errors.js";
import { describe } from "../expression/assert-bindable.js";
import type { Expression } from "../expression/expression.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { Model, ModelClass } from "../schema/model.js";
import { sourceMeta } from "../schema/source-meta.js";
import { columnOf, tableMeta } from "../schema/table-meta.js";
import type { FieldCondition, FieldOf, RowOf, Simplify, WhereArg } from "../types/model-types.js";
import type {
  AllNullable,
  JoinedRow,
  NoSources,
  QueryWhereArg,
  RefOf,
  SelectionRow,
  SelectionSpec,
  Sources,
  WithSource,
} from "../types/query-types.js";
import type { CompoundRow, MatchingColumns } from "../types/set-types.js";
import type { SetPart } from "./compound-builder.js";
import { CompoundBuilder, setOperation } from "./compound-builder.js";
import type { Condition } from "./condition.js";
import type { Executable } from "./executable.js";
import { markExecutable } from "./executable.js";
import { FRESH } from "./frozen-node.js";
import type { ForUpdateOptions } from "./lock-options.js";
import { resolveLock } from "./lock-options.js";
import type { QueryHelpers } from "./query-helpers.js";
import { queryHelpers } from "./query-helpers.js";
import { refColumn, scopeOf } from "./query-scope.js";
import { resolveFields } from "./resolve-fields.js";
import { resolveWhere } from "./resolve-where.js";
import { addJoin, allColumns, checkSelect, resolveGroupBy, resolveHaving, resolveSelections, withParts } from "./select-parts.js";
import type { Subquery } from "./subquery.js";
import { makeSubquery, markSubquery } from "./subquery.js";

export type { ForUpdateOptions, LockTarget } from "./lock-options.js";

export interface OrderByOptions {
  /** NULLS FIRST / NULLS LAST, the same on every database (emulated where the syntax is missing). */
  nulls?: "first" | "last";
}

/** What `.where()` takes: the model's where language, or with named sources `"alias.field"` keys too. */
export type SelectWhere<I, S extends Sources> = [keyof S] extends [never] ? WhereArg<I> : QueryWhereArg<I, S>;

/** A join's condition: two references compared for equality, or a condition over every source so far. */
type JoinOn<I, S extends Sources> = QueryWhereArg<I, S>;

/** Keys a select may be ordered by: references, and the projection's own keys. */
export type OrderKey<I, R, S extends Sources> = RefOf<I, S> | Exclude<keyof R & string, keyof S>;

/** The value type of a one-column select (what `in` / `notIn` and `scalar()` compare with). */
type SingleValue<R> = { [K in keyof R]: Exclude<R[K], null> }[keyof R];

/**
 * A SELECT. `I` is the root model, `R` the row type, `S` the named sources (by alias) once the root
 * has an alias or the query joins.
 */
export class SelectBuilder<I extends Model, R, S extends Sources = NoSources> implements Executable<R> {
  declare readonly __row?: [R];
  declare readonly __valueType?: SingleValue<R>;
  readonly #node: SelectNode;

  static {
    // On the prototype: one brand for every builder, instead of a property defined per instance.
    markExecutable(this.prototype);
    // A one-column select is an `in` / `notIn` operand as it is.
    markSubquery(this.prototype);
  }

  /** False while #node is the fresh copy only this builder holds (see FRESH); frozen when handed out. */
  #frozen: boolean;

  /** Builders come from the statement functions; a node passed in from elsewhere is frozen here. */
  constructor(node: SelectNode, fresh?: typeof FRESH) {
    this.#frozen = fresh !== FRESH;
    this.#node = this.#frozen ? Object.freeze(node) : node;
  }

  /** Adds conditions; several calls are ANDed. With named sources, keys may be `"alias.field"`. */
  where(condition: SelectWhere<I, S>): SelectBuilder<I, R, S> {
    const node = this.#node;
    const scope = node.parts === undefined ? node.table : scopeOf(node);
    const resolved = resolveWhere(scope, condition, () => `select(${node.table.model.name}).where`);
    return new SelectBuilder(withSelect(node, "where", andNodes(node.where, resolved)), FRESH);
  }

  /** Adds a sort key (a field, `"alias.field"`, or a key of `.columns()`); call again for further keys. */
  orderBy(key: OrderKey<I, R, S>, direction: "asc" | "desc" = "asc", options?: OrderByOptions): SelectBuilder<I, R, S> {
    if (direction !== "asc" && direction !== "desc") throw new ValidationError(`orderBy: direction must be "asc" or "desc"`);
    const node = this.#node;
    const previous = node.orderBy;
    if (node.parts === undefined && options === undefined) {
      const shared = orderItem(columnOf(node.table, key as string, "orderBy"), direction);
      return new SelectBuilder(
        withSelect(node, "orderBy", previous.length === 0 ? shared.alone : Object.freeze([...previous, shared.item])),
        FRESH,
      );
    }
    const nulls = options?.nulls;
    if (nulls !== undefined && nulls !== "first" && nulls !== "last") throw new ValidationError(`orderBy: nulls must be "first" or "last"`);
    const output = node.parts?.selections?.some((s) => s.key === key);
    const item = output
      ? orderByItem(undefined, outputColumnNode(key as string), direction, nulls)
      : orderByItem(refColumn(scopeOf(node), key, "orderBy"), undefined, direction, nulls);
    return new SelectBuilder(withSelect(node, "orderBy", Object.freeze([...previous, item])), FRESH);
  }

  limit(count: number): SelectBuilder<I, R, S> {
    return new SelectBuilder(withSelect(this.#node, "limit", nonNegativeInteger(count, "limit")), FRESH);
  }

  offset(count: number): SelectBuilder<I, R, S> {
    return new SelectBuilder(withSelect(this.#node, "offset", nonNegativeInteger(count, "offset")), FRESH);
  }

  /** Locks the selected rows until the transaction ends. Only meaningful inside `transaction()`. */
  forUpdate(options: ForUpdateOptions = {}): SelectBuilder<I, R, S> {
    return this.#locked(withSelect(this.#node, "lock", resolveLock(this.#node, "update", options)));
  }

  /** A shared lock: others may read and share-lock the rows, nobody may change them. */
  forShare(options: ForUpdateOptions = {}): SelectBuilder<I, R, S> {
    return this.#locked(withSelect(this.#node, "lock", resolveLock(this.#node, "share", options)));
  }

  /** INNER JOIN: rows of both sources that match `on` (two references compared, or a condition). */
  innerJoin<M extends ModelClass, A extends string>(
    model: M,
    alias: A,
    on: RefOf<I, WithSource<S, NoInfer<A>, InstanceType<NoInfer<M>>, false>>,
    equals: RefOf<I, WithSource<S, NoInfer<A>, InstanceType<NoInfer<M>>, false>>,
  ): SelectBuilder<I, JoinedRow<WithSource<S, A, InstanceType<M>, false>>, WithSource<S, A, InstanceType<M>, false>>;
  innerJoin<M extends ModelClass, A extends string>(
    model: M,
    alias: A,
    on: JoinOn<I, WithSource<S, NoInfer<A>, InstanceType<NoInfer<M>>, false>>,
  ): SelectBuilder<I, JoinedRow<WithSource<S, A, InstanceType<M>, false>>, WithSource<S, A, InstanceType<M>, false>>;
  innerJoin(model: ModelClass, alias: string, on: unknown, equals?: unknown): unknown {
    return this.#join("inner", model, alias, on, equals);
  }

  /** LEFT JOIN: every row so far, with the joined source `null` where no row matches. */
  leftJoin<M extends ModelClass, A extends string>(
    model: M,
    alias: A,
    on: RefOf<I, WithSource<S, NoInfer<A>, InstanceType<NoInfer<M>>, true>>,
    equals: RefOf<I, WithSource<S, NoInfer<A>, InstanceType<NoInfer<M>>, true>>,
  ): SelectBuilder<I, JoinedRow<WithSource<S, A, InstanceType<M>, true>>, WithSource<S, A, InstanceType<M>, true>>;
  leftJoin<M extends ModelClass, A extends string>(
    model: M,
    alias: A,
    on: JoinOn<I, WithSource<S, NoInfer<A>, InstanceType<NoInfer<M>>, true>>,
  ): SelectBuilder<I, JoinedRow<WithSource<S, A, InstanceType<M>, true>>, WithSource<S, A, InstanceType<M>, true>>;
  leftJoin(model: ModelClass, alias: string, on: unknown, equals?: unknown): unknown {
    return this.#join("left", model, alias, on, equals);
  }

  /** RIGHT JOIN: every row of the joined source; the sources before it `null` where none match. */
  rightJoin<M extends ModelClass, A extends string>(
    model: M,
    alias: A,
    on: RefOf<I, WithSource<AllNullable<S>, NoInfer<A>, InstanceType<NoInfer<M>>, false>>,
    equals: RefOf<I, WithSource<AllNullable<S>, NoInfer<A>, InstanceType<NoInfer<M>>, false>>,
  ): SelectBuilder<
    I,
    JoinedRow<WithSource<AllNullable<S>, A, InstanceType<M>, false>>,
    WithSource<AllNullable<S>, A, InstanceType<M>, false>
  >;
  rightJoin<M extends ModelClass, A extends string>(
    model: M,
    alias: A,
    on: JoinOn<I, WithSource<AllNullable<S>, NoInfer<A>, InstanceType<NoInfer<M>>, false>>,
  ): SelectBuilder<
    I,
    JoinedRow<WithSource<AllNullable<S>, A, InstanceType<M>, false>>,
    WithSource<AllNullable<S>, A, InstanceType<M>, false>
  >;
  rightJoin(model: ModelClass, alias: string, on: unknown, equals?: unknown): unknown {
    return this.#join("right", model, alias, on, equals);
  }

  /** FULL JOIN: every row of both sides, each `null` where the other has no match. */
  fullJoin<M extends ModelClass, A extends string>(
    model: M,
    alias: A,
    on: RefOf<I, WithSource<AllNullable<S>, NoInfer<A>, InstanceType<NoInfer<M>>, true>>,
    equals: RefOf<I, WithSource<AllNullable<S>, NoInfer<A>, InstanceType<NoInfer<M>>, true>>,
  ): SelectBuilder<
    I,
    JoinedRow<WithSource<AllNullable<S>, A, InstanceType<M>, true>>,
    WithSource<AllNullable<S>, A, InstanceType<M>, true>
  >;
  fullJoin<M extends ModelClass, A extends string>(
    model: M,
    alias: A,
    on: JoinOn<I, WithSource<AllNullable<S>, NoInfer<A>, InstanceType<NoInfer<M>>, true>>,
  ): SelectBuilder<
    I,
    JoinedRow<WithSource<AllNullable<S>, A, InstanceType<M>, true>>,
    WithSource<AllNullable<S>, A, InstanceType<M>, true>
  >;
  fullJoin(model: ModelClass, alias: string, on: unknown, equals?: unknown): unknown {
    return this.#join("full", model, alias, on, equals);
  }

  /**
   * A computed projection: `{ key: "field" | "alias.field" | expression }`, or a function of the
   * query's typed helpers (`q.count()`, `q.sum("o.total")`, ...). Rows are then flat objects with those keys.
   */
  columns<const P extends SelectionSpec<I, S>>(spec: P | ((q: QueryHelpers<I, S>) => P)): SelectBuilder<I, SelectionRow<I, S, P>, S> {
    const node = this.#node;
    const scope = scopeOf(node);
    const resolved = typeof spec === "function" ? spec(queryHelpers(scope) as QueryHelpers<I, S>) : spec;
    const selections = resolveSelections(scope, resolved, "columns");
    const parts = withParts(node.parts, { selections });
    return this.#withParts(parts);
  }

  /** SELECT DISTINCT. */
  distinct(): SelectBuilder<I, R, S> {
    return this.#withParts(withParts(this.#node.parts, { distinct: true }));
  }

  /** GROUP BY these references; combine with `.columns()` aggregates. */
  groupBy(...refs: RefOf<I, S>[]): SelectBuilder<I, R, S> {
    const node = this.#node;
    const groupBy = resolveGroupBy(scopeOf(node), refs);
    return this.#withParts(withParts(node.parts, { groupBy: [...(node.parts?.groupBy ?? []), ...groupBy] }));
  }

  /** HAVING, over the projection's keys: `{ orders: { gte: 5 } }`; several calls are ANDed. */
  having(condition: { [K in keyof R]?: FieldCondition<R[K]> } | Condition<any> | Expression<any>): SelectBuilder<I, R, S> {
    const node = this.#node;
    const resolved = resolveHaving(node, condition);
    return this.#withParts(withParts(node.parts, { having: andNodes(node.parts?.having, resolved) }));
  }

  /** UNION: the rows of both queries, duplicates removed. The parts' columns must match (keys, types). */
  union<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return new CompoundBuilder(setOperation(this.toNode() as SelectNode, "union", false, other));
  }

  /** UNION ALL: the rows of both queries, duplicates kept. */
  unionAll<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return new CompoundBuilder(setOperation(this.toNode() as SelectNode, "union", true, other));
  }

  /** INTERSECT: the distinct rows both queries return. */
  intersect<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return new CompoundBuilder(setOperation(this.toNode() as SelectNode, "intersect", false, other));
  }

  /** INTERSECT ALL: a row as often as it is in both (refused on SQLite). */
  intersectAll<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return new CompoundBuilder(setOperation(this.toNode() as SelectNode, "intersect", true, other));
  }

  /** EXCEPT: the distinct rows of this query the other does not return. */
  except<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return new CompoundBuilder(setOperation(this.toNode() as SelectNode, "except", false, other));
  }

  /** EXCEPT ALL: each row as often as it is here more than there (refused on SQLite). */
  exceptAll<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return new CompoundBuilder(setOperation(this.toNode() as SelectNode, "except", true, other));
  }

  /**
   * Projects one field and marks the SELECT as the operand of `in` / `notIn`. ORDER BY, LIMIT and the
   * lock travel with it into the outer statement. (A select with a one-key `.columns()` is such an operand as it is.)
   */
  asSubquery<K extends FieldOf<I>>(field: K): Subquery<Exclude<RowOf<I>[K], null>> {
    if (this.#node.parts !== undefined)
      throw new ValidationError("asSubquery: on a select with aliases or columns(), pass the select itself, projecting one key");
    // resolveFields returns one shared array per projection, so the compiled column list is reused.
    const columns = resolveFields(this.#node.table, [columnOf(this.#node.table, field, "asSubquery").field], "asSubquery");
    return makeSubquery(subqueryNode(withSelect(this.#node, "columns", columns)));
  }

  /** The select as an `in` / `notIn` operand (see markSubquery). */
  get node(): SubqueryNode {
    return subqueryNode(this.toNode() as SelectNode);
  }

  toNode(): StatementNode {
    if (!this.#frozen) {
      Object.freeze(this.#node);
      this.#frozen = true;
    }
    return this.#node;
  }

  #join(join: JoinKind, model: ModelClass, alias: string, on: unknown, equals: unknown): unknown {
    const parts = addJoin(this.#node, join, model, alias, on, equals);
    return this.#withParts(parts);
  }

  /** A copy with new parts, its projection following them; a lock is checked against them. */
  #withParts(parts: SelectNode["parts"] & object): SelectBuilder<any, any, any> {
    const node = this.#node;
    const next = selectNode(node.table, allColumns(node.table, parts), node.where, node.orderBy, node.limit, node.offset, node.lock, parts);
    return this.#locked(next);
  }

  #locked(node: SelectNode): SelectBuilder<any, any, any> {
    checkSelect(node);
    return new SelectBuilder(node, FRESH);
  }
}

/** The fields of a select node its builder methods change, one per call. */
type SelectChange = Exclude<keyof SelectNode, "kind" | "table" | "parts">;

/**
 * A copy of a select node with one field changed, written out field by field: V8 takes several times
 * longer to freeze a spread copy than a literal, and a key with its value (rather than an object of
 * changes, one shape per method) keeps every read here monomorphic. The copy is fresh (see FRESH): the
 * new builder freezes it when it hands it out.
 */
function withSelect<K extends SelectChange>(node: SelectNode, key: K, value: SelectNode[K]): SelectNode {
  return selectNode(
    node.table,
    key === "columns" ? (value as SelectNode["columns"]) : node.columns,
    key === "where" ? (value as SelectNode["where"]) : node.where,
    key === "orderBy" ? (value as SelectNode["orderBy"]) : node.orderBy,
    key === "limit" ? (value as SelectNode["limit"]) : node.limit,
    key === "offset" ? (value as SelectNode["offset"]) : node.offset,
    key === "lock" ? (value as SelectNode["lock"]) : node.lock,
    node.parts,
  );
}

interface SharedOrder {
  readonly item: OrderByItem;
  /** ORDER BY this key alone. */
  readonly alone: readonly OrderByItem[];
}
const orderItems = new WeakMap<ColumnMeta, { asc?: SharedOrder; desc?: SharedOrder }>();

/** The sort key for a column and direction, and the one-key ORDER BY made of it. */
function orderItem(column: ColumnMeta, direction: "asc" | "desc"): SharedOrder {
  let byDirection = orderItems.get(column);
  if (!byDirection) orderItems.set(column, (byDirection = {}));
  let shared = byDirection[direction];
  if (!shared) {
    const item = orderByItem(column, undefined, direction, undefined);
    shared = { item, alone: Object.freeze([item]) };
    byDirection[direction] = shared;
  }
  return shared;
}

function nonNegativeInteger(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new ValidationError(`${what} expects a non-negative integer, got ${describe(value)}`);
  return value;
}

/**
 * Selects every column of a model, or only the listed fields (rows then carry exactly those fields).
 * With an alias, `select(Order, "o")`, clauses may name `"o.field"` and the query may join.
 */
export function select<M extends ModelClass>(model: M): SelectBuilder<InstanceType<M>, RowOf<InstanceType<M>>>;
// The alias overload's A also admits a field list, so that `select<typeof M, readonly ["id"]>` (an
// instantiation expression, which takes every overload of its arity) still names the fields overload last.
export function select<M extends ModelClass, A extends string | readonly unknown[]>(
  model: M,
  alias: A & string,
): SelectBuilder<InstanceType<M>, RowOf<InstanceType<M>>, { [K in A & string]: { readonly i: InstanceType<M>; readonly n: false } }>;
export function select<M extends ModelClass, const K extends readonly FieldOf<InstanceType<M>>[]>(
  model: M,
  fields: K,
): SelectBuilder<InstanceType<M>, Simplify<Pick<RowOf<InstanceType<M>>, K[number]>>>;
export function select(model: ModelClass, fields?: readonly string[] | string): SelectBuilder<any, any, any> {
  const table = tableMeta(model);
  if (typeof fields === "string") {
    const root = sourceMeta(table, fields, `select(${model.name})`);
    const parts = withParts(undefined, { root });
    return new SelectBuilder(selectNode(table, root.columns, undefined, NO_ORDER, undefined, undefined, undefined, parts), FRESH);
  }
  const columns = fields === undefined ? table.columns : resolveFields(table, fields, `select(${model.name})`);
  return new SelectBuilder(selectNode(table, columns, undefined, NO_ORDER, undefined, undefined, undefined, undefined), FRESH);
}

const NO_ORDER: readonly OrderByItem[] = Object.freeze([]);
