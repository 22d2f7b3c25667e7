import { andNodes } from "../ast/condition-node.js";
import type { DeleteNode, StatementNode } from "../ast/statement-node.js";
import { deleteNode } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import type { Model, ModelClass } from "../schema/model.js";
import { storedTableMeta } from "../schema/table-meta.js";
import type { FieldOf, RowOf, Simplify, WhereArg } from "../types/model-types.js";
import type { Executable } from "./executable.js";
import { markExecutable } from "./executable.js";
import { FRESH } from "./frozen-node.js";
import { resolveFields } from "./resolve-fields.js";
import { isTrivial, resolveWhere } from "./resolve-where.js";

export class DeleteBuilder<I extends Model, R> implements Executable<R> {
  declare readonly __row?: [R];
  readonly #node: DeleteNode;

  static {
    // On the prototype: one brand for every builder, instead of a property defined per instance.
    markExecutable(this.prototype);
  }

  /** False while #node is the fresh copy only this builder holds (see FRESH); frozen when handed out. */
  #frozen: boolean;

  /** Builders come from the statement functions; a node passed in from elsewhere is frozen here. */
  constructor(node: DeleteNode, fresh?: typeof FRESH) {
    this.#frozen = fresh !== FRESH;
    this.#node = this.#frozen ? Object.freeze(node) : node;
  }

  where(condition: WhereArg<I>): DeleteBuilder<I, R> {
    const resolved = resolveWhere(this.#node.table, condition, () => `deleteFrom(${this.#node.table.model.name}).where`);
    return new DeleteBuilder(withDelete(this.#node, { where: andNodes(this.#node.where, resolved) }), FRESH);
  }

  /** Opt in to deleting every row: without it a delete with no where is refused. */
  allRows(): DeleteBuilder<I, R> {
    return new DeleteBuilder(withDelete(this.#node, { allRows: true }), FRESH);
  }

  returning(): DeleteBuilder<I, RowOf<I>>;
  returning<const K extends readonly FieldOf<I>[]>(fields: K): DeleteBuilder<I, Simplify<Pick<RowOf<I>, K[number]>>>;
  returning(fields?: readonly string[]): DeleteBuilder<I, unknown> {
    return new DeleteBuilder(withDelete(this.#node, { returning: resolveFields(this.#node.table, fields, "returning") }), FRESH);
  }

  toNode(): StatementNode {
    if (!this.#node.allRows && isTrivial(this.#node.where)) {
      throw new ValidationError(
        `deleteFrom(${this.#node.table.model.name}) has ${this.#node.where === undefined ? "no where" : "a where that holds for every row"}: it would delete every row. Add .where(...) or opt in with .allRows()`,
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
function withDelete(node: DeleteNode, change: Partial<DeleteNode>): DeleteNode {
  return deleteNode(node.table, change.where ?? node.where, change.allRows ?? node.allRows, change.returning ?? node.returning);
}

/** `delete` is a reserved word, hence `deleteFrom`. */
export function deleteFrom<M extends ModelClass>(model: M): DeleteBuilder<InstanceType<M>, never> {
  return new DeleteBuilder(deleteNode(storedTableMeta(model, "deleteFrom"), undefined, false, undefined), FRESH);
}
