import type { StatementNode } from "../ast/statement-node.js";
import { createIndexNode, createTableNode, dropTableNode } from "../ast/statement-node.js";
import type { ModelClass } from "../schema/model.js";
import { tableMeta } from "../schema/table-meta.js";
import type { Executable } from "./executable.js";
import { markExecutable } from "./executable.js";

function statement(node: StatementNode): Executable<never> {
  const executable = { toNode: () => node };
  markExecutable(executable);
  return executable;
}

/** CREATE TABLE for a model (its indexes are separate statements: see `createIndexes`). */
export function createTable(model: ModelClass, options: { ifNotExists?: boolean } = {}): Executable<never> {
  return statement(createTableNode(tableMeta(model), options.ifNotExists ?? false));
}

/** CREATE INDEX for each index declared on the model. */
export function createIndexes(model: ModelClass, options: { ifNotExists?: boolean } = {}): Executable<never>[] {
  const table = tableMeta(model);
  return table.indexes.map((index) => statement(createIndexNode(table, index, options.ifNotExists ?? false)));
}

export function dropTable(model: ModelClass, options: { ifExists?: boolean } = {}): Executable<never> {
  return statement(dropTableNode(tableMeta(model), options.ifExists ?? false));
}
