import type { StatementNode } from "../ast/statement-node.js";
import { addColumnNode, createIndexNode, createTableNode, describeTableNode, dropTableNode } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import type { ModelClass } from "../schema/model.js";
import { storedTableMeta } from "../schema/table-meta.js";
import type { Executable } from "./executable.js";
import { markExecutable } from "./executable.js";
import { modelIndexes } from "./model-indexes.js";

function statement(node: StatementNode): Executable<never> {
  const executable = { toNode: () => node };
  markExecutable(executable);
  return executable;
}

/** CREATE TABLE for a model (its indexes are separate statements: see `createIndexes`). */
export function createTable(model: ModelClass, options: { ifNotExists?: boolean } = {}): Executable<never> {
  const table = storedTableMeta(model, "ddl");
  return statement(createTableNode(table, modelIndexes(table), options.ifNotExists ?? false));
}

/** CREATE INDEX for each index declared on the model. */
export function createIndexes(model: ModelClass, options: { ifNotExists?: boolean } = {}): Executable<never>[] {
  const table = storedTableMeta(model, "ddl");
  return modelIndexes(table).map((index) => statement(createIndexNode(table, index, options.ifNotExists ?? false)));
}

export function dropTable(model: ModelClass, options: { ifExists?: boolean } = {}): Executable<never> {
  return statement(dropTableNode(storedTableMeta(model, "ddl"), options.ifExists ?? false));
}

/** ALTER TABLE ... ADD COLUMN for the model's `field` (its type, NOT NULL, default and enum check as in CREATE TABLE). */
export function addColumn(model: ModelClass, field: string): Executable<never> {
  const table = storedTableMeta(model, "ddl");
  const column = table.byField.get(field);
  if (!column) throw new ValidationError(`addColumn: ${model.name || table.name} has no field "${field}"`);
  return statement(addColumnNode(table, column));
}

/** One row of `describeTable`: a column, or one column of an index (in index order). */
export interface TableDescriptionRow {
  readonly kind: "column" | "index";
  /** The column's name, or the index's. */
  readonly name: string;
  /** The column (for an index: the indexed column at `position`). */
  readonly column_name: string;
  /** 1 for a unique index (and a primary key), else 0. */
  readonly is_unique: number;
  readonly position: number;
}

/**
 * The model's table as the database has it: its columns and its indexes' columns, read from the
 * catalog. No rows when the table does not exist. Dialects without a catalog query throw
 * UnsupportedFeatureError.
 */
export function describeTable(model: ModelClass): Executable<TableDescriptionRow> {
  return statement(describeTableNode(storedTableMeta(model, "ddl"))) as unknown as Executable<TableDescriptionRow>;
}
