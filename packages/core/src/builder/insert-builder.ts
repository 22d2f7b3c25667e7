import { randomUUID } from "node:crypto";
import type { ConflictClause, InsertNode, StatementNode } from "../ast/statement-node.js";
import type { ValueNode } from "../ast/value-node.js";
import { paramNode } from "../ast/value-node.js";
import { ValidationError } from "../errors.js";
import { describe } from "../expression/assert-bindable.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { Model, ModelClass } from "../schema/model.js";
import type { TableMeta } from "../schema/table-meta.js";
import { tableMeta } from "../schema/table-meta.js";
import type { FieldOf, InsertOf, RowOf, SetOf, Simplify, WhereArg } from "../types/model-types.js";
import type { Executable } from "./executable.js";
import { markExecutable } from "./executable.js";
import { FROZEN } from "./frozen-node.js";
import { resolveFields } from "./resolve-fields.js";
import { fieldNames, isPlainRecord, resolveSet } from "./resolve-set.js";
import { resolveValue } from "./resolve-value.js";
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

  /** Builders come from the statement functions; a node passed in from elsewhere is frozen here. */
  constructor(node: InsertNode, trusted?: typeof FROZEN) {
    this.#node = trusted === FROZEN ? node : Object.freeze(node);
  }

  /** One row or several. Fields omitted everywhere get the database default. */
  values(rows: InsertOf<I> | readonly InsertOf<I>[]): InsertBuilder<I, R> {
    const { columns, values } = resolveRows(this.#node.table, rows);
    return new InsertBuilder(withInsert(this.#node, { columns, rows: values }), FROZEN);
  }

  returning(): InsertBuilder<I, RowOf<I>>;
  returning<const K extends readonly FieldOf<I>[]>(fields: K): InsertBuilder<I, Simplify<Pick<RowOf<I>, K[number]>>>;
  returning(fields?: readonly string[]): InsertBuilder<I, unknown> {
    return new InsertBuilder(withInsert(this.#node, { returning: resolveFields(this.#node.table, fields, "returning") }), FROZEN);
  }

  /** Skip rows that collide on `target` (a unique index; repeat a partial index's predicate in `where`). */
  onConflictDoNothing(target?: readonly FieldOf<I>[], options: OnConflictDoNothingOptions<I> = {}): InsertBuilder<I, R> {
    if (options.where !== undefined && options.indexWhere !== undefined) {
      throw new ValidationError("onConflictDoNothing: give the index predicate as where or indexWhere, not both");
    }
    return this.#conflict({
      kind: "onConflict",
      target: this.#target(target ?? [], "onConflictDoNothing", false),
      targetWhere: this.#where(options.where ?? options.indexWhere, "onConflictDoNothing where"),
      action: "nothing",
      set: Object.freeze([]),
      updateWhere: undefined,
    });
  }

  /** On a collision on `target`, update the existing row with `set` (where `updateWhere` holds). */
  onConflictDoUpdate(target: readonly FieldOf<I>[], set: SetOf<I>, options: OnConflictDoUpdateOptions<I> = {}): InsertBuilder<I, R> {
    const assignments = resolveSet(this.#node.table, set, "onConflictDoUpdate set");
    if (assignments.length === 0) throw new ValidationError("onConflictDoUpdate: set is empty; use onConflictDoNothing");
    return this.#conflict({
      kind: "onConflict",
      target: this.#target(target, "onConflictDoUpdate", true),
      targetWhere: this.#where(options.indexWhere, "onConflictDoUpdate indexWhere"),
      action: "update",
      set: Object.freeze(assignments),
      updateWhere: this.#where(options.updateWhere, "onConflictDoUpdate updateWhere"),
    });
  }

  /** MySQL's upsert: on a collision with any unique key, update the existing row. */
  onDuplicateKeyUpdate(set: SetOf<I>): InsertBuilder<I, R> {
    const assignments = resolveSet(this.#node.table, set, "onDuplicateKeyUpdate");
    if (assignments.length === 0) throw new ValidationError("onDuplicateKeyUpdate: set is empty; use ignoreDuplicates()");
    return this.#conflict({ kind: "onDuplicateKey", set: Object.freeze(assignments) });
  }

  /** Skip rows that collide with any unique key (MySQL `INSERT IGNORE`, elsewhere `ON CONFLICT DO NOTHING`). */
  ignoreDuplicates(): InsertBuilder<I, R> {
    return this.#conflict({ kind: "ignoreDuplicates" });
  }

  toNode(): StatementNode {
    if (this.#node.rows.length === 0)
      throw new ValidationError(`insert(${this.#node.table.model.name}): call .values() with at least one row`);
    return this.#node;
  }

  #conflict(conflict: ConflictClause): InsertBuilder<I, R> {
    if (this.#node.conflict) throw new ValidationError("insert: only one conflict clause per statement");
    return new InsertBuilder(withInsert(this.#node, { conflict: Object.freeze(conflict) }), FROZEN);
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

function resolveRows(table: TableMeta, input: unknown): { columns: readonly ColumnMeta[]; values: readonly (readonly ValueNode[])[] } {
  const rows = Array.isArray(input) ? input : [input];
  if (rows.length === 0) throw new ValidationError(`insert(${table.model.name}).values: no rows`);
  const present = new Set<string>();
  // Index loops, not forEach/map: a hole in a sparse array is a row that is not an object, refused.
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (!isPlainRecord(row)) throw new ValidationError(`insert(${table.model.name}).values: row ${i} is ${describe(row)}, not an object`);
    for (const field of rowFieldNames(row, table, i)) {
      if (!table.byField.has(field)) throw new ValidationError(`insert(${table.model.name}).values: row ${i}: no field "${field}"`);
      if (row[field] === undefined) {
        throw new ValidationError(`insert(${table.model.name}).values: row ${i}: ${field} is undefined; omit the field or pass null`);
      }
      present.add(field);
    }
  }
  const columns = table.columns.filter((c) => present.has(c.field) || c.default?.kind === "random");
  const values = rows.map((row: Record<string, unknown>, i) =>
    Object.freeze(columns.map((column) => cellFor(column, row[column.field], table, i))),
  );
  for (const column of table.columns) {
    if (column.required && !present.has(column.field)) {
      throw new ValidationError(`insert(${table.model.name}).values: ${column.field} is required`);
    }
  }
  return { columns: Object.freeze(columns), values: Object.freeze(values) };
}

/*
 * A bulk insert checks every row and cell; the descriptions its errors start with are written only
 * when a check fails (the check runs again with the description, and throws the same error with it).
 */
function rowFieldNames(row: object, table: TableMeta, i: number): string[] {
  try {
    return fieldNames(row, "");
  } catch {
    return fieldNames(row, `insert(${table.model.name}).values: row ${i}`);
  }
}

function cellFor(column: ColumnMeta, value: unknown, table: TableMeta, i: number): ValueNode {
  try {
    return valueFor(column, value, "");
  } catch {
    return valueFor(column, value, `insert(${table.model.name}).values row ${i}`);
  }
}

/** A missing value in a multi-row insert takes the column default here, so that no dialect needs DEFAULT in VALUES. */
function valueFor(column: ColumnMeta, value: unknown, where: string): ValueNode {
  if (value !== undefined) return resolveValue(column, value, where);
  const fallback = column.default;
  if (fallback?.kind === "random") return paramNode(randomUUID(), column);
  if (fallback?.kind === "value") return paramNode(fallback.value, column);
  if (fallback?.kind === "expression") return fallback.node;
  if (column.notNull) throw new ValidationError(`${where}: ${column.field} is required`);
  return paramNode(null, column);
}

/** A changed copy, field by field (see withSelect); no field is ever reset to undefined. */
function withInsert(node: InsertNode, change: Partial<InsertNode>): InsertNode {
  return Object.freeze({
    kind: "insert",
    table: node.table,
    columns: change.columns ?? node.columns,
    rows: change.rows ?? node.rows,
    conflict: change.conflict ?? node.conflict,
    returning: change.returning ?? node.returning,
  });
}

const NONE: readonly never[] = Object.freeze([]);

export function insert<M extends ModelClass>(model: M): InsertBuilder<InstanceType<M>, never> {
  return new InsertBuilder(
    Object.freeze({ kind: "insert", table: tableMeta(model), columns: NONE, rows: NONE, conflict: undefined, returning: undefined }),
    FROZEN,
  );
}
