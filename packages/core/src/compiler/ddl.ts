import type { ConditionNode } from "../ast/condition-node.js";
import type { CreateIndexNode, CreateTableNode } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { ModelClass } from "../schema/model.js";
import type { TableMeta } from "../schema/table-meta.js";
import { tableMeta } from "../schema/table-meta.js";
import type { CompileContext } from "./compiled-query.js";
import type { SqlCompiler } from "./sql-compiler.js";

/** The DDL hooks a dialect may override; the defaults are standard SQL. */
export interface DdlHooks {
  /** SQL generating a random uuid as a column default, or undefined when the database has none. */
  randomUuidSql?(): string | undefined;
  /** A CHECK that keeps an enum column to its values, or undefined where the type itself does. */
  enumCheckSql?(column: ColumnMeta, quoted: string): string | undefined;
  /** Whether `CREATE INDEX IF NOT EXISTS` exists. */
  indexIfNotExists?(): boolean;
}

export function compileCreateTable(compiler: SqlCompiler & DdlHooks, node: CreateTableNode, ctx: CompileContext): string {
  const q = (name: string) => compiler.quoteIdentifier(name);
  const parts = node.table.columns.map((column) => columnDefinition(compiler, column, node.table, ctx));
  if (node.table.primaryKey.length > 0) parts.push(`PRIMARY KEY (${compiler.columnList(node.table.primaryKey)})`);
  for (const column of node.table.columns) {
    if (column.unique) parts.push(`UNIQUE (${q(column.name)})`);
    if (column.kind === "enum") {
      const check = compiler.enumCheckSql
        ? compiler.enumCheckSql(column, q(column.name))
        : `CHECK (${q(column.name)} IN (${column.enumValues?.map((v) => compiler.literal(v, undefined)).join(", ")}))`;
      if (check) parts.push(check);
    }
    if (column.references) parts.push(foreignKey(compiler, column));
  }
  return `CREATE TABLE ${node.ifNotExists ? "IF NOT EXISTS " : ""}${q(node.table.name)} (${parts.join(", ")})`;
}

function columnDefinition(compiler: SqlCompiler & DdlHooks, column: ColumnMeta, table: TableMeta, ctx: CompileContext): string {
  let sql = `${compiler.quoteIdentifier(column.name)} ${compiler.columnType(column, table)}`;
  if (column.notNull) sql += " NOT NULL";
  const fallback = column.default;
  if (fallback?.kind === "value") sql += ` DEFAULT ${compiler.literal(fallback.value, column)}`;
  if (fallback?.kind === "expression") sql += ` DEFAULT (${compiler.value(fallback.node, ctx)})`;
  if (fallback?.kind === "random") {
    const random = compiler.randomUuidSql?.();
    if (random) sql += ` DEFAULT (${random})`;
  }
  return sql;
}

function foreignKey(compiler: SqlCompiler, column: ColumnMeta): string {
  const ref = column.references;
  if (!ref) return "";
  const target = tableMeta(ref.model() as ModelClass);
  const targetColumn = ref.field ? target.byField.get(ref.field) : target.primaryKey[0];
  if (!targetColumn) throw new ValidationError(`${column.table}.${column.field} references a field ${target.name} does not have`);
  const onDelete = ref.onDelete ? ` ON DELETE ${ref.onDelete.toUpperCase()}` : "";
  return `FOREIGN KEY (${compiler.quoteIdentifier(column.name)}) REFERENCES ${compiler.quoteIdentifier(target.name)} (${compiler.quoteIdentifier(targetColumn.name)})${onDelete}`;
}

export function compileCreateIndex(compiler: SqlCompiler & DdlHooks, node: CreateIndexNode, ctx: CompileContext): string {
  const { index } = node;
  const ifNotExists = node.ifNotExists && (compiler.indexIfNotExists?.() ?? true) ? "IF NOT EXISTS " : "";
  let sql = `CREATE ${index.unique ? "UNIQUE " : ""}INDEX ${ifNotExists}${compiler.quoteIdentifier(index.name)} ON ${compiler.quoteIdentifier(node.table.name)} (${compiler.columnList(index.columns)})`;
  if (index.where) {
    if (compiler.capabilities.partialIndexes) {
      sql += ` WHERE ${compiler.condition(index.where, ctx, true)}`;
    } else if (index.unique && !onlyNotNullOf(index.where, index.columns)) {
      compiler.unsupported(
        `the partial unique index ${index.name}`,
        "A full unique index would enforce a different rule. Only a predicate of IS NOT NULL on the index's own columns can be dropped (NULLs never collide); restate the rule that way or enforce it in a transaction.",
      );
    }
    // Otherwise the predicate is dropped on purpose: a non-unique index only changes speed, and
    // a unique index whose predicate only excludes NULLs enforces the same rule without it.
  }
  return sql;
}

function onlyNotNullOf(where: ConditionNode, columns: readonly ColumnMeta[]): boolean {
  if (where.kind === "isNull") return where.negated && columns.includes(where.column);
  if (where.kind === "and") return where.items.every((item) => onlyNotNullOf(item, columns));
  return false;
}
