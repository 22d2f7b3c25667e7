import { andNodes } from "../ast/condition-node.js";
import type { Expression } from "../ast/expression.js";
import type { JoinKind } from "../ast/query-node.js";
import type { RelationPlan } from "../ast/relation-node.js";
import type { SelectNode, StatementNode, SubqueryNode } from "../ast/statement-node.js";
import { selectNode, subqueryNode } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { Model, ModelClass } from "../schema/model.js";
import type { TableMeta } from "../schema/table-meta.js";
import { columnOf } from "../schema/table-meta.js";
import type { FieldCondition, FieldOf, RowOf } from "../types/model-types.js";
import type { AllNullable, JoinedRow, NoSources, RefOf, SelectionRow, SelectionSpec, Sources, WithSource } from "../types/query-types.js";
import type {
  CountResult,
  CountSpec,
  ManyRelationFieldOf,
  OnlyKeys,
  PathTarget,
  RelationFieldOf,
  RelationPath,
  WithResult,
  WithSpec,
} from "../types/relation-types.js";
import type { CompoundRow, MatchingColumns } from "../types/set-types.js";
import { addOrderBy } from "./add-order-by.js";
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
import type { QueryScope } from "./query-scope.js";
import { scopeOf } from "./query-scope.js";
import { withCounts, withLoads } from "./relation-plan.js";
import { resolveFields } from "./resolve-fields.js";
import { resolveWhere } from "./resolve-where.js";
import { freezeSelect, nonNegativeInteger, withSelect } from "./select-clauses.js";
import { addJoin, checkSelect, resolveGroupBy, resolveHaving, resolveSelections, selectionColumns, withParts } from "./select-parts.js";
import { relatedJoin, relatedSelect } from "./select-relations.js";
import type { JoinOn, OrderByOptions, OrderKey, SelectWhere, SingleValue } from "./select-types.js";
import type { Subquery } from "./subquery.js";
import { makeSubquery, markSubquery } from "./subquery.js";

export type { ForUpdateOptions, LockTarget } from "./lock-options.js";

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

  /**
   * The names the clauses may use (see QueryScope), once asked for: derived from the node's sources
   * alone, so a builder hands it to the next one while they stay the same.
   */
  #scope: QueryScope | TableMeta | undefined;

  /** The relations `.with()` / `.withCount()` load beside the rows; undefined: none. */
  readonly #plan: RelationPlan | undefined;

  /** Builders come from the statement functions; a node passed in from elsewhere is frozen here. */
  constructor(node: SelectNode, fresh?: typeof FRESH, scope?: QueryScope | TableMeta, plan?: RelationPlan) {
    this.#frozen = fresh !== FRESH;
    this.#node = this.#frozen ? freezeSelect(node) : node;
    // Only a builder method hands a scope over, with the node it made (a caller's would not be trusted).
    this.#scope = this.#frozen ? undefined : scope;
    this.#plan = this.#frozen ? undefined : plan;
  }

  /** @internal The relations a select loads beside its rows (see engine/relation-loader); undefined for anything else. */
  static planOf(query: unknown): RelationPlan | undefined {
    return query instanceof SelectBuilder ? query.#plan : undefined;
  }

  /**
   * Loads relations beside the rows: `{ relation: true }`, or a function refining the related rows'
   * select (`where`, `orderBy`, `limit` / `offset` per owner row, and `with` for the next level).
   * Each level is one statement, whatever the number of rows: their keys travel as one parameter.
   */
  with<const W extends WithSpec<I>>(spec: W & OnlyKeys<W, RelationFieldOf<I>>): SelectBuilder<I, R & WithResult<I, W>, S> {
    const plan = withLoads(this.#node, this.#plan, spec, relatedSelect);
    return new SelectBuilder(this.#node, FRESH, this.#scope, plan) as SelectBuilder<any, any, any>;
  }

  /** Counts the rows of to-many relations per row (`{ relation: true }`, or a function adding a where): `row._count.relation`. */
  withCount<const C extends CountSpec<I>>(spec: C & OnlyKeys<C, ManyRelationFieldOf<I>>): SelectBuilder<I, R & CountResult<C>, S> {
    const plan = withCounts(this.#node, this.#plan, spec, relatedSelect);
    return new SelectBuilder(this.#node, FRESH, this.#scope, plan) as SelectBuilder<any, any, any>;
  }

  /** Refuses to use a select that loads relations where only its SQL would travel (a subquery, a set operation). */
  #single(where: string): void {
    if (this.#plan !== undefined)
      throw new ValidationError(`${where}: a select that loads relations (with / withCount) runs only on its own`);
  }

  /** This select's scope (its table while it names no source). */
  #scopeNow(): QueryScope | TableMeta {
    let scope = this.#scope;
    if (scope === undefined) this.#scope = scope = scopeOf(this.#node);
    return scope;
  }

  /** A builder over `node`, a fresh copy of this one's with the same sources. */
  #next(node: SelectNode): SelectBuilder<any, any, any> {
    return new SelectBuilder(node, FRESH, this.#scope, this.#plan);
  }

  /** Adds conditions; several calls are ANDed. With named sources, keys may be `"alias.field"`. */
  where(condition: SelectWhere<I, S>): SelectBuilder<I, R, S> {
    const node = this.#node;
    const scope = node.parts === undefined ? node.table : this.#scopeNow();
    const resolved = resolveWhere(scope, condition, () => `select(${node.table.model.name}).where`);
    return this.#next(withSelect(node, "where", andNodes(node.where, resolved)));
  }

  /** Adds a sort key (a field, `"alias.field"`, or a key of `.columns()`); call again for further keys. */
  orderBy(
    key: OrderKey<I, R, S> | Expression<any, any>,
    direction: "asc" | "desc" = "asc",
    options?: OrderByOptions,
  ): SelectBuilder<I, R, S> {
    const node = this.#node;
    const orderBy = addOrderBy(node, key, direction, options, () => this.#scopeNow());
    return this.#next(withSelect(node, "orderBy", orderBy));
  }

  limit(count: number): SelectBuilder<I, R, S> {
    return this.#next(withSelect(this.#node, "limit", nonNegativeInteger(count, "limit")));
  }

  offset(count: number): SelectBuilder<I, R, S> {
    return this.#next(withSelect(this.#node, "offset", nonNegativeInteger(count, "offset")));
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

  /**
   * INNER JOIN along a declared relation of a named source, its keys taken from the declaration:
   * `select(Ticket, "t").innerJoinRelated("t.comments", "c")`. (A many-to-many relation joins its join
   * model explicitly: join it with innerJoin, then the related model.)
   */
  innerJoinRelated<const P extends RelationPath<S>, A extends string>(
    path: P,
    alias: A,
  ): SelectBuilder<I, JoinedRow<WithSource<S, A, PathTarget<S, P>, false>>, WithSource<S, A, PathTarget<S, P>, false>> {
    return this.#joinRelated("inner", path, alias) as SelectBuilder<any, any, any>;
  }

  /** LEFT JOIN along a declared relation of a named source: the related source `null` where no row matches. */
  leftJoinRelated<const P extends RelationPath<S>, A extends string>(
    path: P,
    alias: A,
  ): SelectBuilder<I, JoinedRow<WithSource<S, A, PathTarget<S, P>, true>>, WithSource<S, A, PathTarget<S, P>, true>> {
    return this.#joinRelated("left", path, alias) as SelectBuilder<any, any, any>;
  }

  #joinRelated(join: JoinKind, path: unknown, alias: string): unknown {
    const { model, on, equals } = relatedJoin(this.#node, join, path, alias);
    return this.#join(join, model, alias, on, equals);
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
    const scope = this.#scopeNow();
    const resolved = typeof spec === "function" ? spec(queryHelpers(scope) as QueryHelpers<I, S>) : spec;
    const selections = resolveSelections(scope, resolved, "columns");
    return this.#withParts(withParts(node.parts, "selections", selections), selectionColumns(selections), scope);
  }

  /** SELECT DISTINCT. */
  distinct(): SelectBuilder<I, R, S> {
    const node = this.#node;
    return this.#withParts(withParts(node.parts, "distinct", true), node.columns, this.#scope);
  }

  /** GROUP BY these references; combine with `.columns()` aggregates. */
  groupBy(...refs: (RefOf<I, S> | Exclude<keyof R & string, RefOf<I, S>> | Expression<any, any>)[]): SelectBuilder<I, R, S> {
    const node = this.#node;
    const groupBy = resolveGroupBy(this.#scopeNow(), refs, node.parts?.selections);
    const previous = node.parts?.groupBy;
    const parts = withParts(node.parts, "groupBy", previous === undefined || previous.length === 0 ? groupBy : [...previous, ...groupBy]);
    return this.#withParts(parts, node.columns, this.#scope);
  }

  /** HAVING, over the projection's keys: `{ orders: { gte: 5 } }`; several calls are ANDed. */
  having(condition: { [K in keyof R]?: FieldCondition<R[K]> } | Condition<any> | Expression<any>): SelectBuilder<I, R, S> {
    const node = this.#node;
    const resolved = resolveHaving(node, condition);
    return this.#withParts(withParts(node.parts, "having", andNodes(node.parts?.having, resolved)), node.columns, this.#scope);
  }

  /** UNION: the rows of both queries, duplicates removed. The parts' columns must match (keys, types). */
  union<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return new CompoundBuilder(setOperation(this.#setPart(), "union", false, other));
  }

  /** UNION ALL: the rows of both queries, duplicates kept. */
  unionAll<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return new CompoundBuilder(setOperation(this.#setPart(), "union", true, other));
  }

  /** INTERSECT: the distinct rows both queries return. */
  intersect<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return new CompoundBuilder(setOperation(this.#setPart(), "intersect", false, other));
  }

  /** INTERSECT ALL: a row as often as it is in both (refused on SQLite). */
  intersectAll<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return new CompoundBuilder(setOperation(this.#setPart(), "intersect", true, other));
  }

  /** EXCEPT: the distinct rows of this query the other does not return. */
  except<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return new CompoundBuilder(setOperation(this.#setPart(), "except", false, other));
  }

  /** EXCEPT ALL: each row as often as it is here more than there (refused on SQLite). */
  exceptAll<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return new CompoundBuilder(setOperation(this.#setPart(), "except", true, other));
  }

  /**
   * Projects one field and marks the SELECT as the operand of `in` / `notIn`. ORDER BY, LIMIT and the
   * lock travel with it into the outer statement. (A select with a one-key `.columns()` is such an operand as it is.)
   */
  asSubquery<K extends FieldOf<I>>(field: K): Subquery<Exclude<RowOf<I>[K], null>> {
    this.#single("asSubquery");
    if (this.#node.parts !== undefined)
      throw new ValidationError("asSubquery: on a select with aliases or columns(), pass the select itself, projecting one key");
    // resolveFields returns one shared array per projection, so the compiled column list is reused.
    const columns = resolveFields(this.#node.table, [columnOf(this.#node.table, field, "asSubquery").field], "asSubquery");
    return makeSubquery(subqueryNode(withSelect(this.#node, "columns", columns)));
  }

  #setPart(): SelectNode {
    this.#single("a set operation");
    return this.toNode() as SelectNode;
  }

  /** The select as an `in` / `notIn` operand (see markSubquery). */
  get node(): SubqueryNode {
    this.#single("a subquery");
    return subqueryNode(this.toNode() as SelectNode);
  }

  toNode(): StatementNode {
    if (!this.#frozen) {
      freezeSelect(this.#node);
      this.#frozen = true;
    }
    return this.#node;
  }

  #join(join: JoinKind, model: ModelClass, alias: string, on: unknown, equals: unknown): unknown {
    const node = this.#node;
    const { parts, scope } = addJoin(node, this.#scopeNow(), join, model, alias, on, equals);
    // A computed projection stays what it was; without one, every column of every source.
    return this.#withParts(parts, parts.selections ? node.columns : scope.columns, scope);
  }

  /** A copy with new parts and the projection they have (and their scope, when known); a lock is checked against them. */
  #withParts(
    parts: SelectNode["parts"] & object,
    columns: readonly ColumnMeta[],
    scope: QueryScope | TableMeta | undefined,
  ): SelectBuilder<any, any, any> {
    this.#single("joins, columns(), distinct(), groupBy() and having()");
    const node = this.#node;
    const next = selectNode(node.table, columns, node.where, node.orderBy, node.limit, node.offset, node.lock, parts);
    checkSelect(next);
    return new SelectBuilder(next, FRESH, scope);
  }

  #locked(node: SelectNode): SelectBuilder<any, any, any> {
    this.#single("forUpdate / forShare");
    checkSelect(node);
    return this.#next(node);
  }
}
