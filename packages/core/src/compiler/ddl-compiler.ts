import type { ConditionNode } from "../ast/condition-node.js";
import type { AddColumnNode, CreateIndexNode, CreateTableNode, DropTableNode } from "../ast/statement-node.js";
import { modelIndexes } from "../builder/model-indexes.js";
import type { ModelColumnDdl, ModelTableDdl } from "../dialect/introspector.js";
import { ValidationError } from "../errors.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { IndexMeta } from "../schema/index-meta.js";
import type { ModelClass } from "../schema/model.js";
import type { ColumnDefaultSnapshot, ColumnSnapshot, ForeignKeySnapshot, IndexSnapshot, TableSnapshot } from "../schema/schema-snapshot.js";
import type { TableMeta } from "../schema/table-meta.js";
import { tableMeta } from "../schema/table-meta.js";
import type { ColumnDefinition } from "./column-definition.js";
import { codecColumn, columnDefinition, isKeyed, revivedValue, snapshotValue } from "./column-definition.js";
import type { CompileContext } from "./compiled-query.js";
import { newContext } from "./compiled-query.js";
import { ConditionCompiler } from "./condition-compiler.js";

/** What ADD COLUMN adds besides the column itself: its foreign key, and whether a key covers it. */
export interface AddedColumn {
  readonly column: ColumnSnapshot;
  readonly foreignKey: ForeignKeySnapshot | null | undefined;
  readonly keyed: boolean;
}

/**
 * The third layer of the compiler: CREATE TABLE, CREATE INDEX, DROP TABLE, ADD COLUMN, the catalog
 * query. Every statement is written from a table snapshot (a model's table is turned into one
 * first: `tableSnapshot`), so a model's DDL and a migration's are one implementation. The hook
 * defaults are standard SQL.
 */
export abstract class DdlCompiler extends ConditionCompiler {
  /** The column type in CREATE TABLE, ADD COLUMN and ALTER COLUMN. */
  protected abstract columnType(column: ColumnDefinition): string;

  /** SQL generating a random uuid as a column default, or undefined when the database has none (the builder fills it in). */
  protected randomUuidSql(): string | undefined {
    return undefined;
  }

  /** A CHECK that keeps an enum column to its values, or undefined where the column type itself does. */
  protected enumCheckSql(column: ColumnDefinition, quoted: string): string | undefined {
    return `CHECK (${quoted} IN (${column.enumValues?.map((v) => this.literal(v, undefined)).join(", ")}))`;
  }

  /** Whether `CREATE INDEX IF NOT EXISTS` exists. */
  protected indexIfNotExists(): boolean {
    return true;
  }

  // ---- a model's table as a snapshot ------------------------------------------------------
  /**
   * The table a model creates, as this dialect writes it: defaults and index predicates as this
   * dialect's SQL text, foreign keys resolved to table and column names. CREATE TABLE of a model is
   * CREATE TABLE of this snapshot. Not normalised as an introspector reads a live schema.
   */
  protected tableSnapshot(meta: TableMeta): TableSnapshot {
    return this.modelSnapshot(meta, true);
  }

  /**
   * `tableSnapshot`; with `indexes` false an index this dialect cannot create is left out rather than
   * refused (CREATE TABLE of a model succeeds, and that index's own CREATE INDEX is refused).
   */
  protected modelSnapshot(meta: TableMeta, indexes: boolean): TableSnapshot {
    const ctx = newContext(true, meta);
    const columns = meta.columns.map((column) => this.columnSnapshot(column, ctx));
    const foreignKeys = meta.columns.flatMap((column) => (column.references ? [this.foreignKeyOf(column)] : []));
    return Object.freeze({
      name: meta.name,
      columns: Object.freeze(columns),
      primaryKey: Object.freeze(meta.primaryKey.map((c) => c.name)),
      indexes: Object.freeze(
        modelIndexes(meta)
          .filter((index) => indexes || this.canCreate(index))
          .map((index) => this.indexSnapshot(index, ctx)),
      ),
      foreignKeys: Object.freeze(foreignKeys),
    });
  }

  /**
   * The model's table as CREATE TABLE and CREATE INDEX write it, text by text, for `modelsSnapshot`
   * (which hands it to the dialect's introspector to normalise). Throws what compiling them throws.
   */
  modelTableDdl(meta: TableMeta): ModelTableDdl {
    const table = this.modelSnapshot(meta, true);
    const columns = table.columns.map((column, i): ModelColumnDdl => {
      const definition = this.definitionOf(table, column);
      return {
        name: column.name,
        modelKind: column.kind,
        type: this.columnType(definition),
        notNull: column.notNull,
        unique: column.unique,
        defaultSql: this.defaultSql(column, definition) ?? null,
        defaultRandom: meta.columns[i]?.default?.kind === "random",
        enumValues: column.kind === "enum" ? [...(column.enumValues ?? [])] : null,
      };
    });
    const foreignKeys = table.foreignKeys.map((fk) => {
      const declared = meta.columns.find((c) => c.name === fk.columns[0])?.references?.onDelete;
      return { columns: fk.columns, referencedTable: fk.referencedTable, referencedColumns: fk.referencedColumns, onDelete: declared };
    });
    const indexes = table.indexes.map((index) => ({ name: index.name, columns: index.columns, unique: index.unique, where: index.where }));
    return { name: table.name, columns, primaryKey: table.primaryKey, indexes, foreignKeys };
  }

  protected columnSnapshot(column: ColumnMeta, ctx: CompileContext): ColumnSnapshot {
    const fallback = column.default;
    let snapshotDefault: ColumnDefaultSnapshot | null = null;
    if (fallback?.kind === "value") snapshotDefault = { kind: "value", value: snapshotValue(fallback.value) };
    if (fallback?.kind === "expression") snapshotDefault = { kind: "sql", sql: this.value(fallback.node, ctx) };
    if (fallback?.kind === "random") snapshotDefault = { kind: "random" };
    return Object.freeze({
      name: column.name,
      kind: column.kind,
      notNull: column.notNull,
      unique: column.unique,
      default: snapshotDefault,
      enumValues: column.enumValues ? Object.freeze([...column.enumValues]) : null,
      length: column.length ?? null,
      precision: column.precision ?? null,
      scale: column.scale ?? null,
      generated: null,
    });
  }

  protected foreignKeyOf(column: ColumnMeta): ForeignKeySnapshot {
    const ref = column.references;
    if (!ref) throw new ValidationError(`${column.table}.${column.field} references nothing`);
    const target = tableMeta(ref.model() as ModelClass);
    const targetColumn = ref.field ? target.byField.get(ref.field) : target.primaryKey[0];
    if (!targetColumn) throw new ValidationError(`${column.table}.${column.field} references a field ${target.name} does not have`);
    const fk: ForeignKeySnapshot = Object.freeze({
      name: null,
      columns: Object.freeze([column.name]),
      referencedTable: target.name,
      referencedColumns: Object.freeze([targetColumn.name]),
      onDelete: ref.onDelete ?? "no action",
    });
    if (ref.onDelete === undefined) undeclaredAction.add(fk);
    return fk;
  }

  protected canCreate(index: IndexMeta): boolean {
    return !index.where || this.capabilities.partialIndexes || !index.unique || onlyNotNullOf(index.where, index.columns);
  }

  /**
   * An index with its predicate written out. Without partial indexes the predicate is dropped where
   * that keeps the rule (a non-unique index only changes speed; a unique one whose predicate only
   * excludes NULLs enforces the same rule, NULLs never colliding) and refused where it would not.
   */
  protected indexSnapshot(index: IndexMeta, ctx: CompileContext): IndexSnapshot {
    let where: string | null = null;
    if (index.where) {
      if (this.capabilities.partialIndexes) {
        where = this.condition(index.where, ctx, true);
      } else if (index.unique && !onlyNotNullOf(index.where, index.columns)) {
        this.unsupported(
          `the partial unique index ${index.name}`,
          "A full unique index would enforce a different rule. Only a predicate of IS NOT NULL on the index's own columns can be dropped (NULLs never collide); restate the rule that way or enforce it in a transaction.",
        );
      }
    }
    return Object.freeze({ name: index.name, columns: Object.freeze(index.columns.map((c) => c.name)), unique: index.unique, where });
  }

  // ---- statements from snapshots ----------------------------------------------------------
  /** The column as the type hooks see it. */
  protected definitionOf(table: TableSnapshot, column: ColumnSnapshot): ColumnDefinition {
    return columnDefinition(table.name, column, table.primaryKey.includes(column.name), isKeyed(table, column.name));
  }

  /** CREATE TABLE for a snapshot (its indexes are separate statements); `name` replaces the table's own (a rebuild's new table). */
  protected createTableSql(table: TableSnapshot, ifNotExists: boolean, name = table.name): string {
    const q = (n: string) => this.quoteIdentifier(n);
    const definitions = table.columns.map((column) => this.definitionOf(table, column));
    const parts = definitions.map((definition, i) => this.columnSql(table.columns[i] as ColumnSnapshot, definition));
    if (table.primaryKey.length > 0) parts.push(`PRIMARY KEY (${table.primaryKey.map(q).join(", ")})`);
    const single = new Set<ForeignKeySnapshot>();
    definitions.forEach((definition) => {
      if (definition.unique) parts.push(`UNIQUE (${q(definition.name)})`);
      const check = this.columnCheckSql(definition);
      if (check) parts.push(check);
      for (const fk of table.foreignKeys) {
        if (fk.columns.length === 1 && fk.columns[0] === definition.name && !single.has(fk)) {
          single.add(fk);
          parts.push(this.foreignKeySql(fk));
        }
      }
    });
    for (const fk of table.foreignKeys) if (!single.has(fk)) parts.push(this.foreignKeySql(fk));
    return `CREATE TABLE ${ifNotExists ? "IF NOT EXISTS " : ""}${q(name)} (${parts.join(", ")})${this.tableOptionsSql()}`;
  }

  /** What follows CREATE TABLE's column list (MySQL: the storage engine and collation). */
  protected tableOptionsSql(): string {
    return "";
  }

  /** `name type [NOT NULL] [DEFAULT ...]`, or a generated column's `GENERATED ALWAYS AS (...)`. */
  protected columnSql(column: ColumnSnapshot, definition: ColumnDefinition): string {
    let sql = `${this.quoteIdentifier(column.name)} ${this.columnType(definition)}`;
    if (column.generated) {
      if (!column.generated.stored && !this.capabilities.virtualGeneratedColumns) {
        this.unsupported(
          `a virtual generated column (${definition.table}.${column.name})`,
          "Make it a stored generated column, or compute the value in the query.",
        );
      }
      sql += ` GENERATED ALWAYS AS (${column.generated.sql}) ${column.generated.stored ? "STORED" : "VIRTUAL"}`;
      return column.notNull ? `${sql} NOT NULL` : sql;
    }
    if (column.notNull) sql += " NOT NULL";
    const fallback = this.defaultSql(column, definition);
    return fallback === undefined ? sql : `${sql} DEFAULT ${fallback}`;
  }

  /** The DEFAULT clause's expression, or undefined for none (a random uuid where the database cannot make one). */
  protected defaultSql(column: ColumnSnapshot, definition: ColumnDefinition): string | undefined {
    const fallback = column.default;
    if (fallback === null) return undefined;
    switch (fallback.kind) {
      case "value":
        return this.literal(revivedValue(fallback.value, column.kind), codecColumn(definition));
      case "sql":
        return `(${fallback.sql})`;
      case "random": {
        const random = this.randomUuidSql();
        return random ? `(${random})` : undefined;
      }
    }
  }

  /** The CHECK that keeps an enum column to its values (undefined for other kinds, and where the type does). */
  protected columnCheckSql(definition: ColumnDefinition): string | undefined {
    return definition.kind === "enum" ? this.enumCheckSql(definition, this.quoteIdentifier(definition.name)) : undefined;
  }

  protected foreignKeySql(fk: ForeignKeySnapshot): string {
    const q = (n: string) => this.quoteIdentifier(n);
    const name = fk.name === null ? "" : `CONSTRAINT ${q(fk.name)} `;
    return `${name}FOREIGN KEY (${fk.columns.map(q).join(", ")}) REFERENCES ${q(fk.referencedTable)} (${fk.referencedColumns.map(q).join(", ")})${this.onDeleteSql(fk)}`;
  }

  /**
   * ` ON DELETE ...`, also for NO ACTION (MariaDB's default is RESTRICT); none where a model declared
   * no action, so its table is what it always was.
   */
  protected onDeleteSql(fk: ForeignKeySnapshot): string {
    return undeclaredAction.has(fk) ? "" : ` ON DELETE ${fk.onDelete.toUpperCase()}`;
  }

  protected createIndexSql(table: string, index: IndexSnapshot, options: { ifNotExists: boolean; concurrently: boolean }): string {
    const ifNotExists = options.ifNotExists && this.indexIfNotExists() ? "IF NOT EXISTS " : "";
    const concurrently = options.concurrently ? "CONCURRENTLY " : "";
    const columns = index.columns.map((c) => this.quoteIdentifier(c)).join(", ");
    let sql = `CREATE ${index.unique ? "UNIQUE " : ""}INDEX ${concurrently}${ifNotExists}${this.quoteIdentifier(index.name)} ON ${this.quoteIdentifier(table)} (${columns})`;
    if (index.where !== null) {
      if (!this.capabilities.partialIndexes) {
        this.unsupported(
          `the partial index ${index.name} (WHERE ${index.where})`,
          "Drop the predicate where the rule allows it (a non-unique index, or a unique one whose predicate only excludes NULLs), or enforce the rule in a transaction.",
        );
      }
      sql += ` WHERE ${index.where}`;
    }
    return sql;
  }

  /**
   * ALTER TABLE ... ADD COLUMN with the column defined as in CREATE TABLE: its enum CHECK inline, its
   * UNIQUE and foreign key as further actions of the same statement.
   */
  protected addColumnSql(table: string, added: AddedColumn): string {
    const definition = this.addedDefinition(table, added);
    let sql = `ALTER TABLE ${this.quoteIdentifier(table)} ADD COLUMN ${this.columnSql(added.column, definition)}`;
    const check = this.columnCheckSql(definition);
    if (check) sql += ` ${check}`;
    if (definition.unique) sql += `, ADD UNIQUE (${this.quoteIdentifier(definition.name)})`;
    if (added.foreignKey) sql += `, ADD ${this.foreignKeySql(added.foreignKey)}`;
    return sql;
  }

  protected addedDefinition(table: string, added: AddedColumn): ColumnDefinition {
    const { column, foreignKey } = added;
    if (foreignKey && (foreignKey.columns.length !== 1 || foreignKey.columns[0] !== column.name)) {
      throw new ValidationError(`addColumn ${table}.${column.name}: its foreignKey must be on exactly that column`);
    }
    return columnDefinition(table, column, false, added.keyed || !!foreignKey);
  }

  // ---- statements from models -------------------------------------------------------------
  protected createTable(node: CreateTableNode, _ctx: CompileContext): string {
    return this.createTableSql(this.modelSnapshot(node.table, false), node.ifNotExists);
  }

  protected createIndex(node: CreateIndexNode, ctx: CompileContext): string {
    const ifNotExists = node.ifNotExists;
    return this.createIndexSql(node.table.name, this.indexSnapshot(node.index, ctx), { ifNotExists, concurrently: false });
  }

  protected dropTable(node: DropTableNode): string {
    return `DROP TABLE ${node.ifExists ? "IF EXISTS " : ""}${this.quoteIdentifier(node.table.name)}`;
  }

  /** ALTER TABLE ... ADD COLUMN for a model's column: the statement a migration's addColumn of it compiles to. */
  protected addColumn(node: AddColumnNode, _ctx: CompileContext): string {
    const table = this.modelSnapshot(node.table, false);
    const column = table.columns.find((c) => c.name === node.column.name) as ColumnSnapshot;
    const foreignKey = table.foreignKeys.find((fk) => fk.columns.length === 1 && fk.columns[0] === column.name);
    return this.addColumnSql(table.name, { column, foreignKey, keyed: isKeyed(table, column.name) });
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

/** Foreign keys of models that declare no ON DELETE (the snapshot says "no action"). */
const undeclaredAction = new WeakSet<ForeignKeySnapshot>();

function onlyNotNullOf(where: ConditionNode, columns: readonly ColumnMeta[]): boolean {
  if (where.kind === "isNull") return where.negated && columns.includes(where.column);
  if (where.kind === "and") return where.items.every((item) => onlyNotNullOf(item, columns));
  return false;
}
