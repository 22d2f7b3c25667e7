import type { ConditionNode } from "../ast/condition-node.js";
import { andNodes, isNullNode, notNode } from "../ast/condition-node.js";
import type { OrderByItem, SelectNode } from "../ast/statement-node.js";
import { selectNode, subqueryNode } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { Model, ModelClass } from "../schema/model.js";
import type { RelationMeta } from "../schema/relation-meta.js";
import { relationOf } from "../schema/relation-meta.js";
import type { TableMeta } from "../schema/table-meta.js";
import { tableMeta } from "../schema/table-meta.js";
import type { NoSources } from "../types/query-types.js";
import type { RelatedOf, RelatedSelect, RelationFieldOf } from "../types/relation-types.js";
import type { Condition } from "./condition.js";
import { or } from "./condition.js";
import { op } from "./op.js";
import { resolveFields } from "./resolve-fields.js";
import { select } from "./select.js";
import { SelectBuilder } from "./select-builder.js";
import { makeSubquery } from "./subquery.js";

type Quantifier = "some" | "none" | "every";

/** Refines the related rows a filter looks at: a function of the related model's select that adds a where. */
export type RelatedFilter<T extends Model> = (related: RelatedSelect<T>) => SelectBuilder<T, any, NoSources>;

/**
 * Conditions along a declared relation, for `.where()`, `and()`, `or()` and `not()` of the owner
 * model's select: `related.some(Ticket, "comments", (c) => c.where({ likes: op.gte(5) }))`.
 * Compiled to `key IN (SELECT ...)` / `NOT IN`: no correlation, so they read the same whatever alias
 * the outer select gives the model, and a self-reference needs nothing special.
 */
export const related = {
  /** Rows with at least one related row (matching the filter's where, when given). */
  some<M extends ModelClass, K extends RelationFieldOf<InstanceType<M>>>(
    model: M,
    name: K,
    filter?: RelatedFilter<RelatedOf<InstanceType<M>[K]>>,
  ): Condition<InstanceType<M>> {
    return quantified("some", model, name, filter);
  },
  /** Rows with no related row (matching the filter's where, when given). A NULL key has none. */
  none<M extends ModelClass, K extends RelationFieldOf<InstanceType<M>>>(
    model: M,
    name: K,
    filter?: RelatedFilter<RelatedOf<InstanceType<M>[K]>>,
  ): Condition<InstanceType<M>> {
    return quantified("none", model, name, filter);
  },
  /**
   * Rows none of whose related rows fails the filter's where (true too when there are none). As in
   * SQL, a related row for which the where is unknown (NULL) does not fail it.
   */
  every<M extends ModelClass, K extends RelationFieldOf<InstanceType<M>>>(
    model: M,
    name: K,
    filter: RelatedFilter<RelatedOf<InstanceType<M>[K]>>,
  ): Condition<InstanceType<M>> {
    return quantified("every", model, name, filter);
  },
};

function quantified(quantifier: Quantifier, model: ModelClass, name: string, filter: unknown): Condition<any> {
  const where = `related.${quantifier}(${model.name}, "${name}")`;
  const relation = relationOf(tableMeta(model), name, where);
  const condition = filterWhere(relation, filter, where);
  const matching = quantifier === "every" ? condition && notNode(condition) : condition;
  if (quantifier === "every" && matching === undefined) throw new ValidationError(`${where}: needs a filter with a where`);
  const keys = makeSubquery(subqueryNode(keysOf(relation, matching, quantifier !== "some")));
  const key = relation.key.field;
  if (quantifier === "some") return or<any>({ [key]: op.in(keys as never) });
  const absent = { [key]: op.notIn(keys as never) };
  // NOT IN of a NULL key is unknown, but a NULL key has no related row: none and every hold.
  return relation.key.notNull || relation.key.primaryKey ? or<any>(absent) : or<any>({ [key]: op.isNull() }, absent);
}

/** The where of the filter's select (a where only: no order, limit, offset or loads). */
function filterWhere(relation: RelationMeta, filter: unknown, where: string): ConditionNode | undefined {
  if (filter === undefined) return undefined;
  if (typeof filter !== "function") throw new ValidationError(`${where}: the filter is a function of the related select`);
  const made: unknown = filter(select(relation.target.model));
  if (!(made instanceof SelectBuilder)) throw new ValidationError(`${where}: the filter must return the select it was given, refined`);
  const node = made.toNode() as SelectNode;
  if (node.table !== relation.target || node.parts !== undefined) {
    throw new ValidationError(`${where}: the filter must return a select of ${relation.target.model.name}`);
  }
  if (node.orderBy.length > 0 || node.limit !== undefined || node.offset !== undefined || node.lock !== undefined) {
    throw new ValidationError(`${where}: the filter takes a where only (no orderBy, limit, offset or lock)`);
  }
  if (SelectBuilder.planOf(made) !== undefined) throw new ValidationError(`${where}: the filter loads nothing (no with / withCount)`);
  return node.where;
}

/**
 * The owner keys that have a related row matching `condition`: the related rows' link column, or
 * through the join model. `notNull` keeps NULL out of the list, for NOT IN.
 */
function keysOf(relation: RelationMeta, condition: ConditionNode | undefined, notNull: boolean): SelectNode {
  const through = relation.through;
  if (through === undefined) return oneColumn(relation.target, relation.link, condition, notNull);
  const targets = makeSubquery(subqueryNode(oneColumn(relation.target, through.targetKey, condition, false)));
  const linked = select(through.table.model)
    .where({ [through.to.field]: op.in(targets as never) } as never)
    .toNode() as SelectNode;
  return oneColumn(through.table, through.from, linked.where, notNull);
}

function oneColumn(table: TableMeta, column: ColumnMeta, condition: ConditionNode | undefined, notNull: boolean): SelectNode {
  const where = notNull && !column.notNull && !column.primaryKey ? andNodes(condition, isNullNode(column, true)) : condition;
  return selectNode(table, resolveFields(table, [column.field], "related"), where, NO_ORDER, undefined, undefined, undefined, undefined);
}

const NO_ORDER: readonly OrderByItem[] = Object.freeze([]);
