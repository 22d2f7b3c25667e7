/**
 * `tempest-db-js/dialect`: what a dialect package is written against. The contract (`Dialect`, its
 * capabilities, driver, codec and introspector), the base compiler with its hooks and helpers, and the
 * AST types those hooks receive. A dialect imports from here and from its driver only; the conformance
 * suite that proves it is in `tempest-db-js/testing`. Everything here is also exported by
 * `tempest-db-js` itself, so code written before this entry point keeps working.
 */

export type { CompoundNode, SetOperand, SetOperator } from "../ast/compound-node.js";
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
} from "../ast/condition-node.js";
export type { CteBody, CteNode } from "../ast/cte-node.js";
export type {
  DatetimeDiffNode,
  DatetimeField,
  DatetimeFieldNode,
  DatetimeNode,
  DatetimeShiftNode,
  DatetimeTruncNode,
  IntervalUnit,
  TruncUnit,
} from "../ast/datetime-node.js";
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
} from "../ast/expression-node.js";
export type {
  JoinKind,
  JoinNode,
  NestedGroup,
  QueryParts,
  RowNesting,
  SelectionNode,
  SourceMeta,
} from "../ast/query-node.js";
export type { RelationCount, RelationLoad, RelationPlan, RelationSelectNode } from "../ast/relation-node.js";
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
} from "../ast/schema-change-node.js";
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
} from "../ast/statement-node.js";
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
} from "../ast/value-node.js";
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
} from "../ast/window-node.js";
export type { ValueCodec } from "../codec/value-codec.js";
export { passThroughCodec } from "../codec/value-codec.js";
export type { ColumnDefinition } from "../compiler/column-definition.js";
export { isKeyed } from "../compiler/column-definition.js";
export type { CompileContext, CompiledQuery, PlaceholderSlot } from "../compiler/compiled-query.js";
export type { SqlPart } from "../compiler/datetime-compiler.js";
export type { AddedColumn } from "../compiler/ddl-compiler.js";
export { formatLiteral } from "../compiler/format-literal.js";
export { jsonArrayText, LONG_LIST } from "../compiler/json-list.js";
export type { BeginOptions } from "../compiler/sql-compiler.js";
export { exhaustive, SqlCompiler } from "../compiler/sql-compiler.js";
export * from "../errors.js";
export type { ColumnDefault, ColumnKind, ColumnMeta, ColumnSpec } from "../schema/column-meta.js";
export type { IndexDeclaration, IndexMeta } from "../schema/index-meta.js";
export type {
  ColumnDefaultSnapshot,
  ColumnSnapshot,
  ForeignKeyAction,
  ForeignKeySnapshot,
  IndexSnapshot,
  SchemaSnapshot,
  TableSnapshot,
} from "../schema/schema-snapshot.js";
export { SCHEMA_SNAPSHOT_VERSION } from "../schema/schema-snapshot.js";
export type { ColumnTypeReading } from "../schema/snapshot-column.js";
export { snapshotColumn } from "../schema/snapshot-column.js";
export { sortSnapshot } from "../schema/sort-snapshot.js";
export type { TableMeta } from "../schema/table-meta.js";
export type { CanonicalSqlOptions, SqlNode } from "./canonical-sql.js";
export { canonicalSql, parseSql, printSql } from "./canonical-sql.js";
export type { DialectCapabilities } from "./capabilities.js";
export { defineCapabilities, safeCapabilities } from "./capabilities.js";
export type { ClassifiedError, Dialect } from "./dialect.js";
export { DIALECT_CONTRACT_MIN_VERSION, DIALECT_CONTRACT_VERSION } from "./dialect.js";
export type {
  Driver,
  DriverConfig,
  DriverConnection,
  DriverQuery,
  DriverResult,
  DriverRowStream,
  DriverStreamOptions,
} from "./driver.js";
export type {
  CatalogReader,
  IntrospectOptions,
  Introspector,
  ModelColumnDdl,
  ModelForeignKeyDdl,
  ModelIndexDdl,
  ModelTableDdl,
} from "./introspector.js";
export { INTROSPECTOR_VERSION } from "./introspector.js";
export type { MigrationLockSupport, MigrationSupport, SessionSettings } from "./migration-support.js";
export { MIGRATION_SUPPORT_VERSION } from "./migration-support.js";
export { redactUrl, registerDialect } from "./registry.js";
export type { SqlLexOptions, SqlToken } from "./sql-tokens.js";
export { closingParen, isPunct, isWord, SQL_KEYWORDS, SqlLexError, splitTopLevel, sqlTokens } from "./sql-tokens.js";
