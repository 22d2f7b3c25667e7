import type { Column } from "./column.js";

const RELATION = Symbol.for("tempest-db-js.relation");

export type RelationKind = "belongsTo" | "hasOne" | "hasMany" | "manyToMany";

/**
 * What a declaration says, before the models it names are read. Models are thunks (`() => Comment`)
 * so that a relation may name a class declared further down the file, or the class itself.
 */
export interface RelationSpec {
  readonly kind: RelationKind;
  readonly target: () => unknown;
  /** belongsTo: the declaring model's own column (the foreign key), compared by identity when the model is read. */
  readonly column: Column<unknown, boolean, boolean> | undefined;
  /** hasOne / hasMany: the target's foreign-key field; undefined: the one column of the target that references this model. */
  readonly foreignKey: string | undefined;
  /** manyToMany: the join model, and its fields that reference this model (`from`) and the target (`to`). */
  readonly through: (() => unknown) | undefined;
  readonly from: string | undefined;
  readonly to: string | undefined;
}

/**
 * A relation declared as a model field, next to the columns it uses. Type parameters: the related
 * model's instance type `T`, whether the relation holds many rows (`Many`) and, for one row, whether
 * it may be missing (`Null`). Relation fields are not columns: rows, inserts and updates never carry
 * them, and a select loads one only when `.with()` names it.
 */
export class Relation<T = unknown, Many extends boolean = boolean, Null extends boolean = boolean> {
  declare readonly __target: T;
  declare readonly __many: Many;
  declare readonly __null: Null;
  readonly spec: RelationSpec;

  constructor(spec: RelationSpec) {
    this.spec = Object.freeze(spec);
    Object.defineProperty(this, RELATION, { value: true });
  }

  static isRelation(value: unknown): value is Relation {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[RELATION] === true;
  }
}

/** A model class, as far as a relation needs to know it (no constraint: see `relation`). */
type AnyClass = abstract new () => unknown;

/** The fields of a model instance, by name only: asking for names, not their types, keeps cycles legal. */
type FieldName<M extends AnyClass> = keyof InstanceType<M> & string;

function make<T, Many extends boolean, Null extends boolean>(spec: Partial<RelationSpec> & Pick<RelationSpec, "kind" | "target">) {
  return new Relation<T, Many, Null>({
    kind: spec.kind,
    target: spec.target,
    column: spec.column,
    foreignKey: spec.foreignKey,
    through: spec.through,
    from: spec.from,
    to: spec.to,
  });
}

/**
 * Relation declarations, written as fields after the columns they use:
 *
 * ```ts
 * class Comment extends Model {
 *   static tablename = "comments";
 *   id = column.integer().primaryKey();
 *   ticketId = column.integer().notNull().references(() => Ticket);
 *   ticket = relation.belongsTo(() => Ticket, this.ticketId);
 * }
 * ```
 *
 * The related model is a thunk, so classes may refer to each other (and to themselves) in any order.
 * Keys are checked when the model is first read, with a ValidationError naming the relation. The
 * declarations ask TypeScript only for the related class and field names, never for the related
 * model's field types, so cycles (Customer ↔ Order, Category.parent / children) need no annotation.
 */
export const relation = {
  /**
   * This model holds the foreign key (`this.authorId`, a column declared above): one related row,
   * `null` when the key is NULL or names no row. A NOT NULL key makes the row non-null in the types.
   */
  belongsTo<M extends AnyClass, N extends boolean>(
    target: () => M,
    column: Column<any, N, any>,
  ): Relation<InstanceType<M>, false, N extends true ? false : true> {
    return make({ kind: "belongsTo", target, column: column as Column<unknown, boolean, boolean> });
  },

  /** The related model holds the foreign key to this one (`foreignKey`, or the one column that references this model): its rows. */
  hasMany<M extends AnyClass>(target: () => M, foreignKey?: FieldName<M>): Relation<InstanceType<M>, true, false> {
    return make({ kind: "hasMany", target, foreignKey });
  },

  /** As hasMany, for at most one related row: `null` when there is none. */
  hasOne<M extends AnyClass>(target: () => M, foreignKey?: FieldName<M>): Relation<InstanceType<M>, false, true> {
    return make({ kind: "hasOne", target, foreignKey });
  },

  /**
   * Rows of `target` linked through a join model whose `from` field references this model and whose
   * `to` field references the target (each found by its `references()` when there is only one).
   */
  manyToMany<M extends AnyClass, J extends AnyClass>(
    target: () => M,
    options: { readonly through: () => J; readonly from?: FieldName<NoInfer<J>>; readonly to?: FieldName<NoInfer<J>> },
  ): Relation<InstanceType<M>, true, false> {
    return make({ kind: "manyToMany", target, through: options.through, from: options.from, to: options.to });
  },
};
