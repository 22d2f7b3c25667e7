import type {
  AlterColumnChange,
  ColumnDefinition,
  ColumnMeta,
  CompileContext,
  DialectCapabilities,
  DropForeignKeyChange,
  DropIndexChange,
  SchemaChange,
  SchemaStep,
  SchemaStepFlags,
} from "tempest-db-js/dialect";
import { formatLiteral, SqlCompiler, UnsupportedFeatureError, ValidationError } from "tempest-db-js/dialect";
import type { AlterAlgorithm } from "./mysql-alter-algorithm.js";
import { algorithmClause, changeAlgorithm, modifyAlgorithm, worst } from "./mysql-alter-algorithm.js";
import type { MysqlCapabilities } from "./mysql-capabilities.js";
import { asMysqlCapabilities } from "./mysql-capabilities.js";
import { mysqlCodec } from "./mysql-codec.js";
import { mysqlColumnType } from "./mysql-column-type.js";
import { foreignKeyIndexAdds, foreignKeyIndexDrops } from "./mysql-foreign-key-index.js";
import { describeServer } from "./mysql-server-version.js";

/** Column types stored off-page that cannot be a default literal or a key without an expression / prefix. */
const LOB_KINDS = new Set(["text", "json", "bytes"]);

/**
 * The MySQL/MariaDB compiler's schema half: identifiers and literals, column types, CREATE TABLE /
 * INDEX, and the schema changes of migrations (each ALTER with the best algorithm the server has, a
 * foreign key's own index dropped or made with it). MysqlCompiler adds the queries on top; the
 * capability table (`mysql`) is the one place where MySQL 8 and MariaDB differ.
 */
export abstract class MysqlSchemaCompiler extends SqlCompiler {
  protected readonly mysql: MysqlCapabilities;

  constructor(capabilities: DialectCapabilities) {
    const mysql = asMysqlCapabilities(capabilities);
    super("MySQL", mysql, mysqlCodec);
    this.mysql = mysql;
  }

  /**
   * `dialect` stays "MySQL", the dialect that refuses (one dialect serves both servers); the message
   * names the server the capability table describes, since MySQL 8 and MariaDB lack different things.
   */
  override unsupported(feature: string, hint: string): never {
    throw new UnsupportedFeatureError(this.dialectName, feature, hint, { subject: describeServer(this.mysql.server) });
  }

  protected override quoteIdentifier(name: string): string {
    if (name.includes("\0")) throw new ValidationError(`Identifier ${JSON.stringify(name)} contains NUL`);
    return `\`${name.replaceAll("`", "``")}\``;
  }

  /** The table in the current database, from information_schema (STATISTICS lists each index's columns in order). */
  protected override describeTableSql(name: string, ctx: CompileContext): string {
    return (
      `SELECT 'column' AS kind, COLUMN_NAME AS name, COLUMN_NAME AS column_name, 0 AS is_unique, ORDINAL_POSITION AS position ` +
      `FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${this.bind(name, undefined, ctx)} ` +
      `UNION ALL SELECT 'index', INDEX_NAME, COLUMN_NAME, CASE WHEN NON_UNIQUE = 0 THEN 1 ELSE 0 END, SEQ_IN_INDEX ` +
      `FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${this.bind(name, undefined, ctx)} ORDER BY 1, 2, 5`
    );
  }

  /**
   * MySQL reads backslashes in string literals as escapes. TEXT, JSON and BLOB columns take a
   * default only as an expression on MySQL 8, hence the parentheses (MariaDB accepts both).
   */
  protected override literal(value: unknown, column: ColumnMeta | undefined): string {
    const sql = formatLiteral(this.encodeParam(value, column), true);
    return column && LOB_KINDS.has(column.kind) && sql !== "NULL" ? `(${sql})` : sql;
  }

  // ---- DDL --------------------------------------------------------------------------------
  /** InnoDB explicitly: another engine would accept FOR UPDATE and transactions and silently ignore both. */
  protected override tableOptionsSql(): string {
    return ` ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=${this.mysql.tableCollation}`;
  }

  protected columnType(column: ColumnDefinition): string {
    const keyed = column.keyed ?? false;
    switch (column.kind) {
      // A key cannot cover a whole TEXT/BLOB; a bounded type keeps uniqueness over the full value.
      // longtext: `text` holds only 65,535 bytes, and the other dialects take any length.
      case "text":
        return keyed ? "varchar(255)" : "longtext";
      case "bytes":
        return keyed ? "varbinary(255)" : "longblob";
      case "enum":
        return this.enumType(column);
      case "boolean":
        return "tinyint(1)";
      case "json":
        return "json";
      default:
        return mysqlColumnType(column.kind, column);
    }
  }

  /**
   * The server strips trailing spaces from ENUM members and then stores "a " as "a" without an error,
   * so such a member cannot be kept as written.
   */
  protected enumType(column: ColumnDefinition): string {
    const values = column.enumValues ?? [];
    const padded = values.find((v) => v.endsWith(" "));
    if (padded !== undefined) {
      this.unsupported(
        "ENUM values ending in a space",
        `${column.table}.${column.field} has ${JSON.stringify(padded)}, and the server strips trailing spaces from ENUM members. Choose values without them.`,
      );
    }
    return `enum(${values.map((v) => formatLiteral(v, true)).join(", ")})`;
  }

  protected override randomUuidSql(): string {
    return "uuid()";
  }

  /** The enum type itself refuses other values (strict mode, which the driver keeps on). */
  protected override enumCheckSql(): undefined {
    return undefined;
  }

  protected override indexIfNotExists(): boolean {
    return this.mysql.indexIfNotExists;
  }

  // ---- schema changes ---------------------------------------------------------------------
  /**
   * Every ALTER asks for the best algorithm the server has for it (INSTANT, else INPLACE with
   * LOCK=NONE), so that the server fails the statement rather than quietly copy the table and block
   * writes; an ALTER that can only copy has no clause and is marked `copiesTable` for the lint.
   */
  protected override ddlStep(change: SchemaChange, sql: string, flags: SchemaStepFlags & { transactional?: boolean } = {}): SchemaStep {
    const algorithm = changeAlgorithm(change, this.mysql, (side) =>
      this.columnType(this.alterDefinition(change as AlterColumnChange, side)),
    );
    return this.algorithmStep(change, sql, algorithm, flags);
  }

  protected algorithmStep(
    change: SchemaChange,
    sql: string,
    algorithm: AlterAlgorithm | undefined,
    flags: SchemaStepFlags & { transactional?: boolean },
  ): SchemaStep {
    if (algorithm === undefined) return super.ddlStep(change, sql, flags);
    const index = /^CREATE (UNIQUE )?INDEX /.test(sql);
    return super.ddlStep(change, sql + algorithmClause(algorithm, index), { ...flags, copiesTable: algorithm === "copy" });
  }

  /**
   * One ALTER: MODIFY COLUMN with the whole new definition (MySQL has no separate type and
   * nullability changes), or ALTER COLUMN ... SET/DROP DEFAULT when only the default changes (instant);
   * UNIQUE added or dropped beside it (its index is named after the column, as CREATE TABLE makes it).
   */
  protected override alterColumnSteps(change: AlterColumnChange): SchemaStep[] {
    const { from, to, table } = change;
    if (JSON.stringify(from.generated) !== JSON.stringify(to.generated)) {
      this.unsupported(`changing a generated column (${table}.${to.name})`, "Drop the column and add it again.");
    }
    const q = (name: string) => this.quoteIdentifier(name);
    const before = this.alterDefinition(change, "from");
    const after = this.alterDefinition(change, "to");
    const typeOf = (side: "from" | "to") => this.columnType(side === "from" ? before : after);
    const actions: string[] = [];
    const algorithms: AlterAlgorithm[] = [];
    const reshaped = this.columnType(before) !== this.columnType(after) || from.notNull !== to.notNull;
    if (reshaped) {
      actions.push(`MODIFY COLUMN ${this.columnSql(to, after)}`);
      algorithms.push(modifyAlgorithm(from, to, typeOf));
    } else if (JSON.stringify(from.default) !== JSON.stringify(to.default)) {
      const fallback = this.defaultSql(to, after);
      actions.push(`ALTER COLUMN ${q(to.name)} ${fallback === undefined ? "DROP DEFAULT" : `SET DEFAULT ${fallback}`}`);
      algorithms.push("instant");
    }
    if (from.unique !== to.unique) {
      actions.push(to.unique ? `ADD UNIQUE (${q(to.name)})` : `DROP INDEX ${q(to.name)}`);
      algorithms.push("inplace");
    }
    if (actions.length === 0) return [];
    return [this.algorithmStep(change, `ALTER TABLE ${q(table)} ${actions.join(", ")}`, worst(algorithms), {})];
  }

  /** The index, after an index of their own for the keys it alone serves (see foreignKeyIndexAdds): one statement. */
  protected override dropIndexSql(change: DropIndexChange): string {
    const q = (name: string) => this.quoteIdentifier(name);
    const ifNotExists = this.mysql.indexIfNotExists ? "IF NOT EXISTS " : "";
    const adds = foreignKeyIndexAdds(change).map(
      (fk) => `ADD INDEX ${ifNotExists}${q(fk.name ?? (fk.columns[0] as string))} (${fk.columns.map(q).join(", ")}), `,
    );
    return `ALTER TABLE ${q(change.table)} ${adds.join("")}DROP INDEX ${q(change.index.name)}`;
  }

  /** The key, and the index InnoDB made for it by itself (see foreignKeyIndexDrops). */
  protected override dropForeignKeySql(change: DropForeignKeyChange): string {
    const q = (name: string) => this.quoteIdentifier(name);
    const indexes = foreignKeyIndexDrops(change, this.mysql.indexIfNotExists).map(
      (drop) => `, DROP INDEX ${drop.ifExists ? "IF EXISTS " : ""}${q(drop.name)}`,
    );
    return `ALTER TABLE ${q(change.table)} DROP FOREIGN KEY ${q(change.foreignKey.name)}${indexes.join("")}`;
  }
}
