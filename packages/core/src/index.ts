export { Model } from "./schema/model.js";
export type { ModelClass } from "./schema/model.js";
export { column, Column } from "./schema/column.js";
export type { JsonValue } from "./schema/column.js";
export type { ColumnKind, ColumnMeta, ColumnSpec, ColumnDefault } from "./schema/column-meta.js";
export { index, uniqueIndex, Index } from "./schema/index.js";
export type { IndexMeta } from "./schema/index-meta.js";
export { tableMeta } from "./schema/table-meta.js";
export type { TableMeta } from "./schema/table-meta.js";
export { toSnakeCase } from "./schema/naming.js";

export { select, SelectBuilder } from "./builder/select-builder.js";
export type { ForUpdateOptions } from "./builder/select-builder.js";
export { insert, InsertBuilder } from "./builder/insert-builder.js";
export type { OnConflictDoNothingOptions, OnConflictDoUpdateOptions } from "./builder/insert-builder.js";
export { update, UpdateBuilder } from "./builder/update-builder.js";
export { deleteFrom, DeleteBuilder } from "./builder/delete-builder.js";
export { createTable, createIndexes, dropTable } from "./builder/ddl.js";
export { and, or, not } from "./builder/condition.js";
export type { Condition } from "./builder/condition.js";
export type { Subquery } from "./builder/subquery.js";
export type { Executable } from "./builder/executable.js";

export { sql } from "./expression/sql.js";
export { isExpression } from "./expression/expression.js";
export type { Expression } from "./expression/expression.js";

export { SqlCompiler } from "./compiler/sql-compiler.js";
export type { BeginOptions } from "./compiler/sql-compiler.js";
export type { CompiledQuery, CompileContext } from "./compiler/compiled-query.js";
export type { DdlHooks } from "./compiler/ddl.js";
export { formatLiteral } from "./compiler/format-literal.js";

export { defineCapabilities, safeCapabilities } from "./dialect/capabilities.js";
export type { DialectCapabilities } from "./dialect/capabilities.js";
export { DIALECT_CONTRACT_VERSION } from "./dialect/dialect.js";
export type { Dialect, ClassifiedError } from "./dialect/dialect.js";
export type { Driver, DriverConfig, DriverConnection, DriverQuery, DriverResult } from "./dialect/driver.js";
export { registerDialect, redactUrl } from "./dialect/registry.js";

export { createEngine, Engine } from "./engine/engine.js";
export type { EngineOptions } from "./engine/engine.js";
export { Session } from "./engine/session.js";
export { Transaction } from "./engine/transaction.js";
export type { Executor, TransactionHandle, TransactionOptions } from "./engine/executor.js";
export { QueryResult } from "./engine/query-result.js";
export type { QueryEvent } from "./engine/query-event.js";

export * from "./errors.js";
export type {
  ColumnValue,
  FieldCondition,
  FieldOf,
  InferInsert,
  InferModel,
  InsertOf,
  Operators,
  RowOf,
  SetOf,
  WhereArg,
  WhereInput,
} from "./types/model-types.js";

/** The AST, as types: what a dialect compiler's overridden hooks receive. */
export type { ConditionNode, CompareNode, InListNode, InSubqueryNode, IsNullNode, BetweenNode, CompareOperator } from "./ast/condition-node.js";
export type {
  Assignment,
  ConflictClause,
  CreateIndexNode,
  CreateTableNode,
  DeleteNode,
  DropTableNode,
  InsertNode,
  LockClause,
  OnConflictClause,
  OrderByItem,
  SelectNode,
  StatementNode,
  SubqueryNode,
  UpdateNode,
} from "./ast/statement-node.js";
export type { ExpressionNode, ParamNode, ValueNode } from "./ast/value-node.js";
