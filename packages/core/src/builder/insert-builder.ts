import type { ConflictClause, InsertNode, StatementNode } from "../ast/statement-node.js";
import { ignoreDuplicatesClause, insertNode, onConflictClause, onDuplicateKeyClause } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { Model, ModelClass } from "../schema/model.js";
import { storedTableMeta } from "../schema/table-meta.js";
import type { FieldOf, InsertOf, RowOf, SetOf, Simplify, WhereArg } from "../types/model-types.js";
import type { Executable } from "./executable.js";
import { markExecutable } from "./executable.js";
import { FRESH } from "./frozen-node.js";
import { resolveFields } from "./resolve-fields.js";
import { resolveRows } from "./resolve-rows.js";
import { resolveSet } from "./resolve-set.js";
import { resolveWhere } from "./resolve-where.js";

export interface OnConflictDoNothingOptions<I> {
  /** The partial unique index's predicate (alias: `indexWhere`). */
  where?: WhereArg<I>;
  indexWhere?: WhereArg<I>;
}

export interface OnConflictDoUpdateOptions<I> {
  /** The partial unique index's predicate, repeated so the server infers the index. */
  indexWhere?: WhereArg<I>;
  /** Only rows matching this are rewritten; the others are left as they are (and not returned). */
  updateWhere?: WhereArg<I>;
}

export class InsertBuilder<I extends Model, R> implements Executable<R> {
  declare readonly __row?: [R];
  readonly #node: InsertNode;

  static {
    // On the prototype: one brand for every builder, instead of a property defined per instance.
    markExecutable(this.prototype);
  }

  /** False while #node is the fresh copy only this builder holds (see FRESH); frozen when handed out. */
  #frozen: boolean;

  /** Builders come from the statement functions; a node passed in from elsewhere is frozen here. */
  constructor(node: InsertNode, fresh?: typeof FRESH) {
    this.#frozen = fresh !== FRESH;
    this.#node = this.#frozen ? Object.freeze(node) : node;
  }

  /** One row or several. Fields omitted everywhere get the database default. */
  values(rows: InsertOf<I> | readonly InsertOf<I>[]): InsertBuilder<I, R> {
    const resolved = resolveRows(this.#node.table, rows);
    return new InsertBuilder(
      withInsert(this.#node, {
        columns: resolved.columns,
        rowCount: resolved.rowCount,
        cells: resolved.cells,
        expressions: resolved.expressions,
      }),
      FRESH,
    );
  }

  returning(): InsertBuilder<I, RowOf<I>>;
  returning<const K extends readonly FieldOf<I>[]>(fields: K): InsertBuilder<I, Simplify<Pick<RowOf<I>, K[number]>>>;
  returning(fields?: readonly string[]): InsertBuilder<I, unknown> {
    return new InsertBuilder(withInsert(this.#node, { returning: resolveFields(this.#node.table, fields, "returning") }), FRESH);
  }

  /** Skip rows that collide on `target` (a unique index; repeat a partial index's predicate in `where`). */
  onConflictDoNothing(target?: readonly FieldOf<I>[], options: OnConflictDoNothingOptions<I> = {}): InsertBuilder<I, R> {
    if (options.where !== undefined && options.indexWhere !== undefined) {
      throw new ValidationError("onConflictDoNothing: give the index predicate as where or indexWhere, not both");
    }
    return this.#conflict(
      onConflictClause(
        this.#target(target ?? [], "onConflictDoNothing", false),
        this.#where(options.where ?? options.indexWhere, "onConflictDoNothing where"),
        "nothing",
        [],
        undefined,
      ),
    );
  }

  /** On a collision on `target`, update the existing row with `set` (where `updateWhere` holds). */
  onConflictDoUpdate(target: readonly FieldOf<I>[], set: SetOf<I>, options: OnConflictDoUpdateOptions<I> = {}): InsertBuilder<I, R> {
    const assignments = resolveSet(this.#node.table, set, "onConflictDoUpdate set");
    if (assignments.length === 0) throw new ValidationError("onConflictDoUpdate: set is empty; use onConflictDoNothing");
    return this.#conflict(
      onConflictClause(
        this.#target(target, "onConflictDoUpdate", true),
        this.#where(options.indexWhere, "onConflictDoUpdate indexWhere"),
        "update",
        assignments,
        this.#where(options.updateWhere, "onConflictDoUpdate updateWhere"),
      ),
    );
  }

  /** MySQL's upsert: on a collision with any unique key, update the existing row. */
  onDuplicateKeyUpdate(set: SetOf<I>): InsertBuilder<I, R> {
    const assignments = resolveSet(this.#node.table, set, "onDuplicateKeyUpdate");
    if (assignments.length === 0) throw new ValidationError("onDuplicateKeyUpdate: set is empty; use ignoreDuplicates()");
    return this.#conflict(onDuplicateKeyClause(assignments));
  }

  /** Skip rows that collide with any unique key (MySQL `INSERT IGNORE`, elsewhere `ON CONFLICT DO NOTHING`). */
  ignoreDuplicates(): InsertBuilder<I, R> {
    return this.#conflict(ignoreDuplicatesClause());
  }

  toNode(): StatementNode {
    if (this.#node.rowCount === 0)
      throw new ValidationError(`insert(${this.#node.table.model.name}): call .values() with at least one row`);
    if (!this.#frozen) {
      Object.freeze(this.#node);
      this.#frozen = true;
    }
    return this.#node;
  }

  #conflict(conflict: ConflictClause): InsertBuilder<I, R> {
    if (this.#node.conflict) throw new ValidationError("insert: only one conflict clause per statement");
    return new InsertBuilder(withInsert(this.#node, { conflict }), FRESH);
  }

  #target(fields: readonly string[], where: string, required: boolean): readonly ColumnMeta[] {
    if (!Array.isArray(fields)) throw new ValidationError(`${where}: the conflict target is an array of fields`);
    if (fields.length === 0) {
      if (required) throw new ValidationError(`${where}: needs a conflict target`);
      return Object.freeze([]);
    }
    return resolveFields(this.#node.table, fields, `${where} target`);
  }

  #where(input: unknown, where: string) {
    return input === undefined ? undefined : resolveWhere(this.#node.table, input, where);
  }
}

/** A changed copy, field by field and fresh (see withSelect); no field is ever reset to undefined. */
function withInsert(node: InsertNode, change: Partial<InsertNode>): InsertNode {
  return insertNode(
    node.table,
    change.columns ?? node.columns,
    change.rowCount ?? node.rowCount,
    change.cells ?? node.cells,
    change.expressions ?? node.expressions,
    change.conflict ?? node.conflict,
    change.returning ?? node.returning,
  );
}

const NONE: readonly never[] = Object.freeze([]);

export function insert<M extends ModelClass>(model: M): InsertBuilder<InstanceType<M>, never> {
  return new InsertBuilder(insertNode(storedTableMeta(model, "insert"), NONE, 0, NONE, NONE, undefined, undefined), FRESH);
}
