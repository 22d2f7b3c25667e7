import type {
  CatalogReader,
  ColumnSnapshot,
  ForeignKeyAction,
  ForeignKeySnapshot,
  IndexSnapshot,
  IntrospectOptions,
  Introspector,
  ModelTableDdl,
  SchemaSnapshot,
  TableSnapshot,
} from "tempest-db-js/dialect";
import { INTROSPECTOR_VERSION, SCHEMA_SNAPSHOT_VERSION, snapshotColumn } from "tempest-db-js/dialect";
import { canonicalMysqlSql, mysqlColumnType, mysqlDefault, parseMysqlSql } from "./mysql-schema-text.js";

/**
 * MySQL's and MariaDB's introspector: the current database (`DATABASE()`) from information_schema
 * (COLUMNS, STATISTICS, CHECK_CONSTRAINTS, KEY_COLUMN_USAGE with REFERENTIAL_CONSTRAINTS). See
 * mysql-schema-text.ts for how types and defaults are read.
 *
 * - partial indexes do not exist here: every `where` is null (the compiler drops the predicates it
 *   may drop, and refuses the others);
 * - a single-column unique index named after its column is the column's UNIQUE constraint
 *   (ColumnSnapshot.unique), as `UNIQUE (col)` names it; any other unique index is an IndexSnapshot;
 * - the index InnoDB adds by itself for a foreign key (named after the constraint or its first column,
 *   on exactly its columns) is not in `indexes`: no model declares it, and dropping the key drops it.
 *   It is in `foreignKeyIndexes`, which core keeps only when asked (the planner needs its name);
 * - foreign keys are named `<table>_ibfk_<n>` in declaration order, as the server names them. NO
 *   ACTION and RESTRICT are one action in InnoDB (both check at once) and the servers report an
 *   omitted ON DELETE differently (MariaDB RESTRICT, MySQL 8 NO ACTION), so both read "restrict":
 *   a snapshot then does not depend on which server the models were snapshotted for;
 * - a text column with a `json_valid(col)` CHECK is json (MariaDB's JSON), one with a CHECK
 *   `col IN ('a', ...)` an enum.
 */
export const mysqlIntrospector: Introspector = {
  version: INTROSPECTOR_VERSION,
  introspect,
  modelTable,
};

type Row = Record<string, unknown>;

async function introspect(reader: CatalogReader, options: IntrospectOptions): Promise<SchemaSnapshot> {
  const tables = options.tables;
  if (tables !== undefined && tables.length === 0) return { version: SCHEMA_SNAPSHOT_VERSION, dialect: "MySQL", tables: [] };
  const filter = (column: string) => (tables === undefined ? "" : ` AND ${column} IN (${tables.map(() => "?").join(", ")})`);
  const params = tables === undefined ? [] : [...tables];
  const version = String((await reader.query("SELECT VERSION() AS version", []))[0]?.version ?? "");
  const mariadb = /mariadb/i.test(version);
  const tableRows = await reader.query(
    `SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE'${filter("TABLE_NAME")} ORDER BY TABLE_NAME`,
    params,
  );
  const columnRows = await reader.query(
    "SELECT TABLE_NAME AS table_name, COLUMN_NAME AS name, COLUMN_TYPE AS type, IS_NULLABLE AS nullable, COLUMN_DEFAULT AS default_sql, " +
      `EXTRA AS extra, GENERATION_EXPRESSION AS generation FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()${filter("TABLE_NAME")} ORDER BY TABLE_NAME, ORDINAL_POSITION`,
    params,
  );
  const indexRows = await reader.query(
    "SELECT TABLE_NAME AS table_name, INDEX_NAME AS name, NON_UNIQUE AS non_unique, COLUMN_NAME AS column_name FROM information_schema.STATISTICS " +
      `WHERE TABLE_SCHEMA = DATABASE()${filter("TABLE_NAME")} ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`,
    params,
  );
  const checkRows = await reader.query(
    `SELECT TABLE_NAME AS table_name, CHECK_CLAUSE AS clause FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE()${filter("TABLE_NAME")}`,
    params,
  );
  const fkRows = await reader.query(
    "SELECT k.TABLE_NAME AS table_name, k.CONSTRAINT_NAME AS name, k.COLUMN_NAME AS column_name, k.REFERENCED_TABLE_NAME AS referenced_table, " +
      "k.REFERENCED_COLUMN_NAME AS referenced_column, r.DELETE_RULE AS on_delete FROM information_schema.KEY_COLUMN_USAGE k " +
      "JOIN information_schema.REFERENTIAL_CONSTRAINTS r ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME AND r.TABLE_NAME = k.TABLE_NAME " +
      `WHERE k.TABLE_SCHEMA = DATABASE() AND k.REFERENCED_TABLE_NAME IS NOT NULL${filter("k.TABLE_NAME")} ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`,
    params,
  );
  const group = (rows: readonly Row[]) => {
    const map = new Map<string, Row[]>();
    for (const row of rows) map.set(String(row.table_name), [...(map.get(String(row.table_name)) ?? []), row]);
    return map;
  };
  const [columns, indexes, checks, fks] = [group(columnRows), group(indexRows), group(checkRows), group(fkRows)];
  return {
    version: SCHEMA_SNAPSHOT_VERSION,
    dialect: "MySQL",
    tables: tableRows.map((t) => {
      const name = String(t.name);
      return readTable(name, columns.get(name) ?? [], indexes.get(name) ?? [], checks.get(name) ?? [], fks.get(name) ?? [], mariadb);
    }),
  };
}

function readTable(name: string, columnRows: Row[], indexRows: Row[], checkRows: Row[], fkRows: Row[], mariadb: boolean): TableSnapshot {
  const json = new Set<string>();
  const enums = new Map<string, string[]>();
  for (const row of checkRows) {
    const node = parseMysqlSql(String(row.clause));
    if (node?.t === "call" && node.name === "json_valid" && node.args.length === 1 && node.args[0]?.t === "name") {
      json.add(node.args[0].parts[node.args[0].parts.length - 1] as string);
    } else if (node?.t === "in" && !node.negated && node.operand.t === "name" && node.items.every((i) => i.t === "string")) {
      enums.set(
        node.operand.parts[node.operand.parts.length - 1] as string,
        node.items.map((i) => (i.t === "string" ? i.value : "")),
      );
    }
  }
  const foreignKeys = readForeignKeys(fkRows);
  const byIndex = new Map<string, { unique: boolean; columns: string[] }>();
  for (const row of indexRows) {
    const key = String(row.name);
    const entry = byIndex.get(key) ?? { unique: Number(row.non_unique) === 0, columns: [] };
    entry.columns.push(row.column_name === null ? "(expression)" : String(row.column_name));
    byIndex.set(key, entry);
  }
  let primaryKey: string[] = [];
  const unique = new Set<string>();
  const indexes: IndexSnapshot[] = [];
  const foreignKeyIndexes: IndexSnapshot[] = [];
  for (const [indexName, index] of byIndex) {
    if (indexName === "PRIMARY") {
      primaryKey = index.columns;
      continue;
    }
    if (index.unique && index.columns.length === 1 && isColumnName(indexName, index.columns[0] as string)) {
      unique.add(index.columns[0] as string);
      continue;
    }
    const forKey = foreignKeys.some((fk) => sameList(fk.columns, index.columns) && (fk.name === indexName || fk.columns[0] === indexName));
    if (!index.unique && forKey) {
      foreignKeyIndexes.push({ name: indexName, columns: index.columns, unique: false, where: null });
      continue;
    }
    indexes.push({ name: indexName, columns: index.columns, unique: index.unique, where: null });
  }
  const columns = columnRows.map((row): ColumnSnapshot => {
    const columnName = String(row.name);
    const extra = String(row.extra ?? "").toUpperCase();
    let type = mysqlColumnType(String(row.type));
    if (json.has(columnName) && type.kind === "text") type = { ...type, kind: "json" };
    const values = enums.get(columnName);
    if (values && (type.kind === "text" || type.kind === "varchar"))
      type = { kind: "enum", enumValues: values, length: null, precision: null, scale: null };
    const isGenerated = /\b(VIRTUAL|STORED|PERSISTENT) GENERATED\b/.test(extra) || /^(VIRTUAL|STORED|PERSISTENT)$/.test(extra);
    const generated = isGenerated
      ? { sql: canonicalMysqlSql(String(row.generation ?? "")), stored: /STORED|PERSISTENT/.test(extra) }
      : null;
    const raw = row.default_sql === null || row.default_sql === undefined ? null : String(row.default_sql);
    const fallback =
      generated || raw === null || (mariadb && raw === "NULL")
        ? null
        : mysqlDefault(raw, type.kind, { expression: extra.includes("DEFAULT_GENERATED"), quotedLiterals: mariadb });
    return snapshotColumn(columnName, type, row.nullable === "NO", unique.has(columnName), fallback, generated);
  });
  return { name, columns, primaryKey, indexes, foreignKeys, foreignKeyIndexes };
}

/** `UNIQUE (col)` names its index `col`, or `col_2`, `col_3` when that name is taken. */
function isColumnName(indexName: string, column: string): boolean {
  return indexName === column || new RegExp(`^${column.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}_\\d+$`).test(indexName);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function readForeignKeys(rows: readonly Row[]): ForeignKeySnapshot[] {
  const byName = new Map<string, { columns: string[]; referencedTable: string; referencedColumns: string[]; onDelete: ForeignKeyAction }>();
  for (const row of rows) {
    const name = String(row.name);
    const entry = byName.get(name) ?? {
      columns: [],
      referencedTable: String(row.referenced_table),
      referencedColumns: [],
      onDelete: action(String(row.on_delete)),
    };
    entry.columns.push(String(row.column_name));
    entry.referencedColumns.push(String(row.referenced_column));
    byName.set(name, entry);
  }
  return [...byName].map(([name, fk]) => ({ name, ...fk }));
}

function action(rule: string): ForeignKeyAction {
  const lower = rule.toLowerCase();
  return lower === "cascade" || lower === "set null" ? lower : "restrict";
}

function modelTable(ddl: ModelTableDdl): TableSnapshot {
  return {
    name: ddl.name,
    columns: ddl.columns.map((c) => {
      const type = mysqlColumnType(c.type);
      const fallback = c.defaultSql === null ? null : mysqlDefault(c.defaultSql, type.kind, { expression: false, quotedLiterals: true });
      return snapshotColumn(c.name, type, c.notNull, c.unique, fallback, null);
    }),
    primaryKey: [...ddl.primaryKey],
    indexes: ddl.indexes.map((index) => ({
      name: index.name,
      columns: [...index.columns],
      unique: index.unique,
      where: index.where === null ? null : canonicalMysqlSql(index.where),
    })),
    foreignKeys: ddl.foreignKeys.map((fk, i) => ({
      name: `${ddl.name}_ibfk_${i + 1}`,
      columns: [...fk.columns],
      referencedTable: fk.referencedTable,
      referencedColumns: [...fk.referencedColumns],
      onDelete: action(fk.onDelete ?? "restrict"),
    })),
  };
}
