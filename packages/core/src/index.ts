/** The AST, as types: what a dialect compiler's overridden hooks receive. */

export type { CompoundNode, SetOperand, SetOperator } from "./ast/compound-node.js";
export type {
  BetweenNode,
  CompareNode,
  CompareOperator,
  ConditionNode,
  ConstantNode,
  ExpressionConditionNode,
  InListNode,
  InSubqueryNode,
  IsNullNode,
  JunctionNode,
  NotNode,
} from "./ast/condition-node.js";
export type { CteBody, CteNode } from "./ast/cte-node.js";
export type {
  DatetimeDiffNode,
  DatetimeField,
  DatetimeFieldNode,
  DatetimeNode,
  DatetimeShiftNode,
  DatetimeTruncNode,
  IntervalUnit,
  TruncUnit,
} from "./ast/datetime-node.js";
export type { Expression } from "./ast/expression.js";
export { isExpression } from "./ast/expression.js";
export type {
  AggregateOfNode,
  ArithmeticNode,
  ArithmeticOperator,
  CaseBranch,
  CaseNode,
  CastNode,
  ComparisonNode,
  ComparisonOperator,
  FunctionCallNode,
  NegateNode,
  ScalarFunction,
  StringFunction,
  TypedExpressionNode,
  ValueType,
} from "./ast/expression-node.js";
export type {
  JoinKind,
  JoinNode,
  NestedGroup,
  QueryParts,
  RowNesting,
  SelectionNode,
  SourceMeta,
} from "./ast/query-node.js";
export type { RelationCount, RelationLoad, RelationPlan, RelationSelectNode } from "./ast/relation-node.js";
export type {
  AddCheckChange,
  AddColumnChange,
  AddForeignKeyChange,
  AlterColumnChange,
  CreateIndexChange,
  CreateTableChange,
  DropCheckChange,
  DropColumnChange,
  DropForeignKeyChange,
  DropIndexChange,
  DropTableChange,
  RebuildTableChange,
  RenameColumnChange,
  RenameTableChange,
  SchemaChange,
  SchemaChangeKind,
  SchemaStep,
  SchemaStepFlags,
  ValidateConstraintChange,
} from "./ast/schema-change-node.js";
export { isSchemaStep } from "./ast/schema-change-node.js";
export type {
  AddColumnNode,
  Assignment,
  ConflictClause,
  CreateIndexNode,
  CreateTableNode,
  DeleteNode,
  DescribeTableNode,
  DropTableNode,
  IgnoreDuplicatesClause,
  InsertNode,
  LockClause,
  OnConflictClause,
  OnDuplicateKeyClause,
  OrderByItem,
  RawStatementNode,
  SelectNode,
  StatementNode,
  SubqueryNode,
  UpdateNode,
} from "./ast/statement-node.js";
export type {
  AggregateFunction,
  AggregateNode,
  ColumnRefNode,
  ExcludedNode,
  ExistsNode,
  ExpressionNode,
  NowNode,
  OutputColumnNode,
  ParamNode,
  PlaceholderNode,
  RawNode,
  ScalarSubqueryNode,
  SourceColumnNode,
  TemplateNode,
  ValueNode,
} from "./ast/value-node.js";
export type {
  FrameBoundKind,
  FrameBoundNode,
  FrameUnit,
  OffsetFunctionNode,
  RankingFunctionNode,
  WindowFrameNode,
  WindowFunctionNode,
  WindowKeyNode,
  WindowNode,
  WindowSpecNode,
} from "./ast/window-node.js";
export type { SetPart } from "./builder/compound-builder.js";
export { CompoundBuilder } from "./builder/compound-builder.js";
export type { Condition } from "./builder/condition.js";
export { and, not, or } from "./builder/condition.js";
export type { CteOptions, RecursiveCteOptions } from "./builder/cte.js";
export { cte, cteRecursive } from "./builder/cte.js";
export type { TableDescriptionRow } from "./builder/ddl.js";
export { addColumn, createIndexes, createTable, describeTable, dropTable } from "./builder/ddl.js";
export { DeleteBuilder, deleteFrom } from "./builder/delete-builder.js";
export type { Executable } from "./builder/executable.js";
export type { OnConflictDoNothingOptions, OnConflictDoUpdateOptions } from "./builder/insert-builder.js";
export { InsertBuilder, insert } from "./builder/insert-builder.js";
export type { ForUpdateOptions, LockTarget } from "./builder/lock-options.js";
export type { LiteralLikeOptions, Operator, OperatorName } from "./builder/op.js";
export { escapeLike, isOperator, op } from "./builder/op.js";
export type { QueryHelpers } from "./builder/query-helpers.js";
export { count, exists, notExists, ref, scalar } from "./builder/query-helpers.js";
export type { RelatedFilter } from "./builder/related.js";
export { related } from "./builder/related.js";
export { applySchemaChange, applySchemaSteps, runSchemaStep, schemaStepStatement, schemaSteps } from "./builder/schema-steps.js";
export { select } from "./builder/select.js";
export { SelectBuilder } from "./builder/select-builder.js";
export type { OrderByOptions, OrderKey, SelectWhere } from "./builder/select-types.js";
export type { Subquery } from "./builder/subquery.js";
export type { DeclaredKind, DeclaredRow, KindTypes } from "./builder/typed-raw.js";
export { UpdateBuilder, update } from "./builder/update-builder.js";
export type { ValueCodec } from "./codec/value-codec.js";
export { passThroughCodec } from "./codec/value-codec.js";
export type { ColumnDefinition } from "./compiler/column-definition.js";
export { isKeyed } from "./compiler/column-definition.js";
export type { CompileContext, CompiledQuery, PlaceholderSlot } from "./compiler/compiled-query.js";
export type { SqlPart } from "./compiler/datetime-compiler.js";
export type { AddedColumn } from "./compiler/ddl-compiler.js";
export { formatLiteral } from "./compiler/format-literal.js";
export { jsonArrayText, LONG_LIST } from "./compiler/json-list.js";
export type { BeginOptions } from "./compiler/sql-compiler.js";
export { exhaustive, SqlCompiler } from "./compiler/sql-compiler.js";
export type { CanonicalSqlOptions, SqlNode } from "./dialect/canonical-sql.js";
export { canonicalSql, parseSql, printSql } from "./dialect/canonical-sql.js";
export type { DialectCapabilities } from "./dialect/capabilities.js";
export { defineCapabilities, safeCapabilities } from "./dialect/capabilities.js";
export type { ClassifiedError, Dialect } from "./dialect/dialect.js";
export { DIALECT_CONTRACT_MIN_VERSION, DIALECT_CONTRACT_VERSION } from "./dialect/dialect.js";
export type {
  Driver,
  DriverConfig,
  DriverConnection,
  DriverQuery,
  DriverResult,
  DriverRowStream,
  DriverStreamOptions,
} from "./dialect/driver.js";
export type {
  CatalogReader,
  IntrospectOptions,
  Introspector,
  ModelColumnDdl,
  ModelForeignKeyDdl,
  ModelIndexDdl,
  ModelTableDdl,
} from "./dialect/introspector.js";
export { INTROSPECTOR_VERSION } from "./dialect/introspector.js";
export type { MigrationLockSupport, MigrationSupport, SessionSettings } from "./dialect/migration-support.js";
export { MIGRATION_SUPPORT_VERSION } from "./dialect/migration-support.js";
export { redactUrl, registerDialect } from "./dialect/registry.js";
export type { SqlLexOptions, SqlToken } from "./dialect/sql-tokens.js";
export { closingParen, isPunct, isWord, SQL_KEYWORDS, SqlLexError, splitTopLevel, sqlTokens } from "./dialect/sql-tokens.js";
export type { EngineOptions } from "./engine/engine.js";
export { createEngine, Engine } from "./engine/engine.js";
export type { Executor, TransactionHandle, TransactionOptions } from "./engine/executor.js";
export { introspect } from "./engine/introspect.js";
export { migrationSupportOf } from "./engine/migration-support-of.js";
export { modelsSnapshot } from "./engine/models-snapshot.js";
export { PreparedStatement, prepare } from "./engine/prepared-statement.js";
export type { QueryEvent } from "./engine/query-event.js";
export type { ExecutedQuery } from "./engine/query-result.js";
export { QueryResult } from "./engine/query-result.js";
export type { OperatorsMode } from "./engine/refuse-plain-operators.js";
export { ReservedSession } from "./engine/reserved-session.js";
export type { StreamOptions } from "./engine/row-stream.js";
export { RowStream } from "./engine/row-stream.js";
export { Session } from "./engine/session.js";
export { isTransaction, Transaction } from "./engine/transaction.js";
export * from "./errors.js";
export type { ExpressionAggregateOptions, ExpressionFunctions, SumOfKind } from "./expression/fn.js";
export { col, fn } from "./expression/fn.js";
export type { PlaceholderKind, PlaceholderSpec, Placeholders, PlaceholderValues, PlaceholderValueTypes } from "./expression/placeholder.js";
export { sql } from "./expression/sql.js";
export type { JsonValue } from "./schema/column.js";
export { Column, column } from "./schema/column.js";
export type { ColumnDefault, ColumnKind, ColumnMeta, ColumnSpec } from "./schema/column-meta.js";
export { Index, index, uniqueIndex } from "./schema/index.js";
export type { IndexDeclaration, IndexMeta } from "./schema/index-meta.js";
export type { ModelClass } from "./schema/model.js";
export { Model } from "./schema/model.js";
export { toSnakeCase } from "./schema/naming.js";
export type { RelationKind } from "./schema/relation.js";
export { Relation, relation } from "./schema/relation.js";
export type { RelationMeta, RelationThrough } from "./schema/relation-meta.js";
export { relationsOf } from "./schema/relation-meta.js";
export type {
  ColumnDefaultSnapshot,
  ColumnSnapshot,
  ForeignKeyAction,
  ForeignKeySnapshot,
  IndexSnapshot,
  SchemaSnapshot,
  TableSnapshot,
} from "./schema/schema-snapshot.js";
export { SCHEMA_SNAPSHOT_VERSION } from "./schema/schema-snapshot.js";
export type { ColumnTypeReading } from "./schema/snapshot-column.js";
export { snapshotColumn } from "./schema/snapshot-column.js";
export { sortSnapshot } from "./schema/sort-snapshot.js";
export type { TableMeta } from "./schema/table-meta.js";
export { tableMeta } from "./schema/table-meta.js";
export type {
  AnyOperand,
  Arithmetic,
  ArithmeticCheck,
  ArithmeticKind,
  CaseExpression,
  CastKind,
  CoalesceOf,
  DatetimeOf,
  DatetimeOperand,
  DatetimeRefOf,
  ExtremeOf,
  FamilyOf,
  FieldKind,
  IntegerOperand,
  IntegerRefOf,
  JsOf,
  KindOf,
  NullOf,
  NumberKind,
  NumberOperand,
  NumberRefOf,
  RefExpression,
  RefKind,
  Resolved,
  SameFamily,
  TextKind,
  TextOf,
  TextOperand,
  TextRefOf,
  ValueOf,
} from "./types/expression-types.js";
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
export type {
  QueryDatetime,
  QueryExpressionHelpers,
  QueryInteger,
  QueryNumber,
  QueryOperand,
  QueryText,
} from "./types/query-expression-types.js";
export type {
  AllNullable,
  JoinedRow,
  NoSources,
  NumberRef,
  QualifiedRef,
  QueryWhereArg,
  QueryWhereInput,
  RefOf,
  RefValue,
  SelectionRow,
  SelectionSpec,
  Source,
  Sources,
  SumOf,
  WithSource,
} from "./types/query-types.js";
export type {
  CountResult,
  CountSpec,
  LoadedRelation,
  ManyRelationFieldOf,
  PathTarget,
  RelatedOf,
  RelatedSelect,
  RelationFieldOf,
  RelationPath,
  WithResult,
  WithSpec,
  WithValue,
} from "./types/relation-types.js";
export type { CompoundRow, CteModel, CteSource, MatchingColumns, SameColumns } from "./types/set-types.js";
export type {
  AggregateWindow,
  DistinctAggregateOptions,
  FrameBound,
  OffsetOptions,
  OrderedWindow,
  Windowable,
  WindowableAggregate,
  WindowableAggregateOptions,
  WindowExpression,
  WindowFrame,
  WindowFunction,
  WindowKey,
  WindowOrderItem,
} from "./types/window-types.js";
