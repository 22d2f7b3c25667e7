import type { ConditionNode } from "../ast/condition-node.js";
import type { AddColumnNode, CreateIndexNode, CreateTableNode, DropTableNode } from "../ast/statement-node.js";
import type { ModelColumnDdl, ModelForeignKeyDdl, ModelIndexDdl, ModelTableDdl } from "../dialect/introspector.js";
import { ValidationError } from "../errors.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { IndexMeta } from "../schema/index-meta.js";
import type { ModelClass } from "../schema/model.js";
import type { TableMeta } from "../schema/table-meta.js";
import { tableMeta } from "../schema/table-meta.js";
import type { CompileContext } from "./compiled-query.js";
import { newContext } from "./compiled-query.js";
import { ConditionCompiler } from "./condition-compiler.js";

/** The third layer of the compiler: CREATE TABLE, CREATE INDEX, DROP TABLE, ADD COLUMN, the catalog query. The hook defaults are standard SQL. */
export abstract class DdlCompiler extends ConditionCompiler {
  /** The column type in CREATE TABLE. `table` tells, e.g., whether the column is part of an index. */
  protected abstract columnType(column: ColumnMeta, table: TableMeta): string;

  /** SQL generating a random uuid as a column default, or undefined when the database has none (the builder fills it in). */
  protected randomUuidSql(): string | undefined {
    return undefined;
  }

  /** A CHECK that keeps an enum column to its values, or undefined where the column type itself does. */
  protected enumCheckSql(column: ColumnMeta, quoted: string): string | undefined {
    return `CHECK (${quoted} IN (${column.enumValues?.map((v) => this.literal(v, undefined)).join(", ")}))`;
  }

  /** Whether `CREATE INDEX IF NOT EXISTS` exists. */
  protected indexIfNotExists(): boolean {
    return true;
  }

  protected createTable(node: CreateTableNode, ctx: CompileContext): string {
    const q = (name: string) => this.quoteIdentifier(name);
    const parts = node.table.columns.map((column) => this.columnDefinition(column, node.table, ctx));
    if (node.table.primaryKey.length > 0) parts.push(`PRIMARY KEY (${node.table.primaryKey.map((c) => q(c.name)).join(", ")})`);
    for (const column of node.table.columns) {
      if (column.unique) parts.push(`UNIQUE (${q(column.name)})`);
      if (column.kind === "enum") {
        const check = this.enumCheckSql(column, q(column.name));
        if (check) parts.push(check);
      }
      if (column.references) parts.push(this.foreignKey(column));
    }
    return `CREATE TABLE ${node.ifNotExists ? "IF NOT EXISTS " : ""}${q(node.table.name)} (${parts.join(", ")})`;
  }

  protected columnDefinition(column: ColumnMeta, table: TableMeta, ctx: CompileContext): string {
    let sql = `${this.quoteIdentifier(column.name)} ${this.columnType(column, table)}`;
    if (column.notNull) sql += " NOT NULL";
    const fallback = this.defaultSql(column, ctx);
    if (fallback !== undefined) sql += ` DEFAULT ${fallback}`;
    return sql;
  }

  /** The SQL after DEFAULT: a literal, or a parenthesised expression; undefined without a default the database applies. */
  protected defaultSql(column: ColumnMeta, ctx: CompileContext): string | undefined {
    const fallback = column.default;
    if (fallback?.kind === "value") return this.literal(fallback.value, column);
    if (fallback?.kind === "expression") return `(${this.value(fallback.node, ctx)})`;
    if (fallback?.kind === "random") {
      const random = this.randomUuidSql();
      return random ? `(${random})` : undefined;
    }
    return undefined;
  }

  protected foreignKey(column: ColumnMeta): string {
    const target = this.referenceTarget(column);
    if (!target) return "";
    const onDelete = column.references?.onDelete ? ` ON DELETE ${column.references.onDelete.toUpperCase()}` : "";
    return `FOREIGN KEY (${this.quoteIdentifier(column.name)}) REFERENCES ${this.quoteIdentifier(target.table.name)} (${this.quoteIdentifier(target.column.name)})${onDelete}`;
  }

  protected createIndex(node: CreateIndexNode, ctx: CompileContext): string {
    const { index } = node;
    const ifNotExists = node.ifNotExists && this.indexIfNotExists() ? "IF NOT EXISTS " : "";
    const columns = index.columns.map((c) => this.quoteIdentifier(c.name)).join(", ");
    const sql = `CREATE ${index.unique ? "UNIQUE " : ""}INDEX ${ifNotExists}${this.quoteIdentifier(index.name)} ON ${this.quoteIdentifier(node.table.name)} (${columns})`;
    const where = this.indexPredicateSql(index, ctx);
    return where === undefined ? sql : `${sql} WHERE ${where}`;
  }

  /** A partial index's predicate as CREATE INDEX writes it, or undefined for a full index (or a predicate this dialect drops). */
  protected indexPredicateSql(index: IndexMeta, ctx: CompileContext): string | undefined {
    if (!index.where) return undefined;
    if (this.capabilities.partialIndexes) return this.condition(index.where, ctx, true);
    if (index.unique && !onlyNotNullOf(index.where, index.columns)) {
      this.unsupported(
        `the partial unique index ${index.name}`,
        "A full unique index would enforce a different rule. Only a predicate of IS NOT NULL on the index's own columns can be dropped (NULLs never collide); restate the rule that way or enforce it in a transaction.",
      );
    }
    // Otherwise the predicate is dropped on purpose: a non-unique index only changes speed, and
    // a unique index whose predicate only excludes NULLs enforces the same rule without it.
    return undefined;
  }

  /**
   * The model's table as CREATE TABLE and CREATE INDEX write it, text by text, for `modelsSnapshot`
   * (which hands it to the dialect's introspector to normalise). Throws what compiling them throws.
   */
  modelTableDdl(table: TableMeta): ModelTableDdl {
    const ctx = newContext(true, table);
    const columns = table.columns.map(
      (column): ModelColumnDdl => ({
        name: column.name,
        modelKind: column.kind,
        type: this.columnType(column, table),
        notNull: column.notNull,
        unique: column.unique,
        defaultSql: this.defaultSql(column, ctx) ?? null,
        defaultRandom: column.default?.kind === "random",
        enumValues: column.kind === "enum" ? [...(column.enumValues ?? [])] : null,
      }),
    );
    const indexes = table.indexes.map(
      (index): ModelIndexDdl => ({
        name: index.name,
        columns: index.columns.map((c) => c.name),
        unique: index.unique,
        where: this.indexPredicateSql(index, newContext(true, table)) ?? null,
      }),
    );
    const foreignKeys = table.columns.flatMap((column): ModelForeignKeyDdl[] => {
      const target = this.referenceTarget(column);
      if (!target) return [];
      return [
        {
          columns: [column.name],
          referencedTable: target.table.name,
          referencedColumns: [target.column.name],
          onDelete: column.references?.onDelete,
        },
      ];
    });
    return { name: table.name, columns, primaryKey: table.primaryKey.map((c) => c.name), indexes, foreignKeys };
  }

  /** The table and column a column's `references()` points at. */
  protected referenceTarget(column: ColumnMeta): { table: TableMeta; column: ColumnMeta } | undefined {
    const ref = column.references;
    if (!ref) return undefined;
    const target = tableMeta(ref.model() as ModelClass);
    const targetColumn = ref.field ? target.byField.get(ref.field) : target.primaryKey[0];
    if (!targetColumn) throw new ValidationError(`${column.table}.${column.field} references a field ${target.name} does not have`);
    return { table: target, column: targetColumn };
  }

  protected dropTable(node: DropTableNode): string {
    return `DROP TABLE ${node.ifExists ? "IF EXISTS " : ""}${this.quoteIdentifier(node.table.name)}`;
  }

  /** ALTER TABLE ... ADD COLUMN, the column defined as in CREATE TABLE (with its enum CHECK). */
  protected addColumn(node: AddColumnNode, ctx: CompileContext): string {
    const { column } = node;
    let sql = `ALTER TABLE ${this.quoteIdentifier(node.table.name)} ADD COLUMN ${this.columnDefinition(column, node.table, ctx)}`;
    if (column.kind === "enum") {
      const check = this.enumCheckSql(column, this.quoteIdentifier(column.name));
      if (check) sql += ` ${check}`;
    }
    return sql;
  }

  /**
   * The catalog query of `describeTable`: rows of `kind` ('column' | 'index'), `name`, `column_name`,
   * `is_unique` (0/1) and `position`, for the table `name` (bound with `bind`, never spliced). There
   * is no catalog every database has, so the default refuses.
   */
  protected describeTableSql(_name: string, _ctx: CompileContext): string {
    return this.unsupported(
      "describing a table (describeTable)",
      "Read the table's columns and indexes from the database's catalog yourself.",
    );
  }
}

function onlyNotNullOf(where: ConditionNode, columns: readonly ColumnMeta[]): boolean {
  if (where.kind === "isNull") return where.negated && columns.includes(where.column);
  if (where.kind === "and") return where.items.every((item) => onlyNotNullOf(item, columns));
  return false;
}
