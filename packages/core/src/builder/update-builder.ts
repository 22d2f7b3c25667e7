import { andNodes } from "../ast/condition-node.js";
import type { StatementNode, UpdateNode } from "../ast/statement-node.js";
import { updateNode } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import type { Model, ModelClass } from "../schema/model.js";
import { storedTableMeta } from "../schema/table-meta.js";
import type { FieldOf, RowOf, SetOf, Simplify, WhereArg } from "../types/model-types.js";
import type { Executable } from "./executable.js";
import { markExecutable } from "./executable.js";
import { FRESH } from "./frozen-node.js";
import { resolveFields } from "./resolve-fields.js";
import { mergeAssignments, resolveSet } from "./resolve-set.js";
import { isTrivial, resolveWhere } from "./resolve-where.js";

export class UpdateBuilder<I extends Model, R> implements Executable<R> {
  declare readonly __row?: [R];
  readonly #node: UpdateNode;

  static {
    // On the prototype: one brand for every builder, instead of a property defined per instance.
    markExecutable(this.prototype);
  }

  /** False while #node is the fresh copy only this builder holds (see FRESH); frozen when handed out. */
  #frozen: boolean;

  /** Builders come from the statement functions; a node passed in from elsewhere is frozen here. */
  constructor(node: UpdateNode, fresh?: typeof FRESH) {
    this.#frozen = fresh !== FRESH;
    this.#node = this.#frozen ? Object.freeze(node) : node;
  }

  /** Values or expressions (`sql.raw`, `sql.expr`, `sql.now()`); any other object is a ValidationError. */
  set(values: SetOf<I>): UpdateBuilder<I, R> {
    const assignments = resolveSet(this.#node.table, values, () => `update(${this.#node.table.model.name}).set`);
    return new UpdateBuilder(withUpdate(this.#node, { set: mergeAssignments(this.#node.set, assignments) }), FRESH);
  }

  where(condition: WhereArg<I>): UpdateBuilder<I, R> {
    const resolved = resolveWhere(this.#node.table, condition, () => `update(${this.#node.table.model.name}).where`);
    return new UpdateBuilder(withUpdate(this.#node, { where: andNodes(this.#node.where, resolved) }), FRESH);
  }

  /** Opt in to updating every row of the table: without it an update with no where is refused. */
  allRows(): UpdateBuilder<I, R> {
    return new UpdateBuilder(withUpdate(this.#node, { allRows: true }), FRESH);
  }

  returning(): UpdateBuilder<I, RowOf<I>>;
  returning<const K extends readonly FieldOf<I>[]>(fields: K): UpdateBuilder<I, Simplify<Pick<RowOf<I>, K[number]>>>;
  returning(fields?: readonly string[]): UpdateBuilder<I, unknown> {
    return new UpdateBuilder(withUpdate(this.#node, { returning: resolveFields(this.#node.table, fields, "returning") }), FRESH);
  }

  toNode(): StatementNode {
    const name = this.#node.table.model.name;
    if (this.#node.set.length === 0) throw new ValidationError(`update(${name}): call .set() with at least one field`);
    if (!this.#node.allRows && isTrivial(this.#node.where)) {
      throw new ValidationError(
        `update(${name}) has ${this.#node.where === undefined ? "no where" : "a where that holds for every row"}: it would change every row. Add .where(...) or opt in with .allRows()`,
      );
    }
    if (!this.#frozen) {
      Object.freeze(this.#node);
      this.#frozen = true;
    }
    return this.#node;
  }
}

/** A changed copy, field by field and fresh (see withSelect); no field is ever reset to undefined. */
function withUpdate(node: UpdateNode, change: Partial<UpdateNode>): UpdateNode {
  return updateNode(
    node.table,
    change.set ?? node.set,
    change.where ?? node.where,
    change.allRows ?? node.allRows,
    change.returning ?? node.returning,
  );
}

const NO_ASSIGNMENTS: readonly never[] = Object.freeze([]);

export function update<M extends ModelClass>(model: M): UpdateBuilder<InstanceType<M>, never> {
  return new UpdateBuilder(updateNode(storedTableMeta(model, "update"), NO_ASSIGNMENTS, undefined, false, undefined), FRESH);
}
