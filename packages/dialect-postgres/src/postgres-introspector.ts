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
import { canonicalPgSql, parsePgSql, pgColumnType, pgDefault } from "./postgres-schema-text.js";

/**
 * PostgreSQL's introspector: the tables of `current_schema()` from pg_catalog (pg_attribute with
 * format_type and pg_get_expr for types, defaults and generated expressions; pg_index with
 * pg_get_expr for partial predicates; pg_constraint for keys, foreign keys and CHECKs; pg_enum for
 * named enum types). PostgreSQL 12 to 18 (18's virtual generated columns and NOT NULL constraints
 * in pg_constraint included). See postgres-schema-text.ts for how texts are normalised.
 *
 * - an enum is a named enum type, or a text column with a CHECK `col IN ('a', ...)` (how the
 *   library creates one): kind "enum", values in order;
 * - a single-column UNIQUE constraint is ColumnSnapshot.unique; other UNIQUE constraints and
 *   unique indexes are IndexSnapshots; the primary key's index is not listed;
 * - foreign keys keep their constraint names; a model's foreign key is named as PostgreSQL names it
 *   (`<table>_<column>_fkey`, cut to 63 bytes the way PostgreSQL cuts it);
 * - identity columns and sequences (`serial`) read as their default (`nextval('t_id_seq'::regclass)`).
 */
export const postgresIntrospector: Introspector = {
  version: INTROSPECTOR_VERSION,
  introspect,
  modelTable,
};

const IN_SCHEMA = "n.nspname = current_schema()";

async function introspect(reader: CatalogReader, options: IntrospectOptions): Promise<SchemaSnapshot> {
  const filter = options.tables === undefined ? "" : " AND c.relname = ANY($1::text[])";
  const params = options.tables === undefined ? [] : [[...options.tables]];
  const from = `FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace`;
  const tables = await reader.query(
    `SELECT c.relname::text AS name ${from} WHERE ${IN_SCHEMA} AND c.relkind IN ('r', 'p')${filter} ORDER BY 1`,
    params,
  );
  const columns = await reader.query(
    `SELECT c.relname::text AS table_name, a.attname::text AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null, ` +
      `pg_get_expr(d.adbin, d.adrelid) AS default_sql, a.attgenerated::text AS generated, a.attidentity::text AS identity, ` +
      `CASE WHEN t.typtype = 'e' THEN ARRAY(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder) END AS enum_values ` +
      `${from} JOIN pg_attribute a ON a.attrelid = c.oid JOIN pg_type t ON t.oid = a.atttypid ` +
      `LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum ` +
      `WHERE ${IN_SCHEMA} AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped${filter} ORDER BY c.relname, a.attnum`,
    params,
  );
  const indexes = await reader.query(
    `SELECT c.relname::text AS table_name, i.relname::text AS name, x.indisunique AS is_unique, x.indisprimary AS is_primary, ` +
      `(SELECT con.contype::text FROM pg_constraint con WHERE con.conindid = x.indexrelid AND con.conrelid = x.indrelid AND con.contype IN ('p', 'u') LIMIT 1) AS constraint_type, ` +
      `ARRAY(SELECT COALESCE(a.attname::text, pg_get_indexdef(x.indexrelid, k.n::int, true)) FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, n) ` +
      `LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum WHERE k.n <= x.indnkeyatts ORDER BY k.n) AS columns, ` +
      `pg_get_expr(x.indpred, x.indrelid) AS predicate ` +
      `${from} JOIN pg_index x ON x.indrelid = c.oid JOIN pg_class i ON i.oid = x.indexrelid WHERE ${IN_SCHEMA}${filter} ORDER BY 1, 2`,
    params,
  );
  const constraints = await reader.query(
    `SELECT c.relname::text AS table_name, con.conname::text AS name, con.contype::text AS type, rc.relname::text AS referenced_table, ` +
      `con.confdeltype::text AS on_delete, pg_get_constraintdef(con.oid) AS definition, ` +
      `ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, n) JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns, ` +
      `ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, n) JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.n) AS referenced_columns ` +
      `${from} JOIN pg_constraint con ON con.conrelid = c.oid LEFT JOIN pg_class rc ON rc.oid = con.confrelid ` +
      `WHERE ${IN_SCHEMA} AND con.contype IN ('f', 'c')${filter} ORDER BY 1, 2`,
    params,
  );
  const byTable = <T extends Record<string, unknown>>(rows: readonly T[]) => {
    const map = new Map<string, T[]>();
    for (const row of rows) {
      const key = String(row.table_name);
      map.set(key, [...(map.get(key) ?? []), row]);
    }
    return map;
  };
  const columnsOf = byTable(columns);
  const indexesOf = byTable(indexes);
  const constraintsOf = byTable(constraints);
  return {
    version: SCHEMA_SNAPSHOT_VERSION,
    dialect: "PostgreSQL",
    tables: tables.map((t) => {
      const name = String(t.name);
      return readTable(name, columnsOf.get(name) ?? [], indexesOf.get(name) ?? [], constraintsOf.get(name) ?? []);
    }),
  };
}

type Row = Record<string, unknown>;
const texts = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

function readTable(name: string, columnRows: readonly Row[], indexRows: readonly Row[], constraintRows: readonly Row[]): TableSnapshot {
  const enums = new Map<string, string[]>();
  for (const row of constraintRows) {
    if (row.type !== "c") continue;
    const found = enumCheck(String(row.definition));
    if (found) enums.set(found.column, found.values);
  }
  let primaryKey: string[] = [];
  const unique = new Set<string>();
  const indexes: IndexSnapshot[] = [];
  for (const row of indexRows) {
    const columns = texts(row.columns);
    if (row.is_primary === true) {
      primaryKey = columns;
      continue;
    }
    if (row.constraint_type === "u" && columns.length === 1 && row.predicate === null) {
      unique.add(columns[0] as string);
      continue;
    }
    const predicate = row.predicate === null || row.predicate === undefined ? null : canonicalPgSql(String(row.predicate));
    indexes.push({ name: String(row.name), columns, unique: row.is_unique === true, where: predicate });
  }
  const columns = columnRows.map((row): ColumnSnapshot => {
    const columnName = String(row.name);
    const isText = /^(text|character varying)/.test(String(row.type));
    const type = pgColumnType(String(row.type), row.enum_values ? texts(row.enum_values) : isText ? (enums.get(columnName) ?? null) : null);
    const generatedKind = String(row.generated ?? "");
    const expression = row.default_sql === null || row.default_sql === undefined ? null : String(row.default_sql);
    const generated =
      generatedKind === "s" || generatedKind === "v" ? { sql: canonicalPgSql(expression ?? ""), stored: generatedKind === "s" } : null;
    return snapshotColumn(
      columnName,
      type,
      row.not_null === true,
      unique.has(columnName),
      generated || expression === null ? null : pgDefault(expression, type.kind),
      generated,
    );
  });
  const foreignKeys = constraintRows
    .filter((row) => row.type === "f")
    .map(
      (row): ForeignKeySnapshot => ({
        name: String(row.name),
        columns: texts(row.columns),
        referencedTable: String(row.referenced_table),
        referencedColumns: texts(row.referenced_columns),
        onDelete: ACTIONS[String(row.on_delete)] ?? "no action",
      }),
    );
  return { name, columns, primaryKey, indexes, foreignKeys };
}

/** confdeltype; `d` (SET DEFAULT) has no model spelling and reads as "no action". */
const ACTIONS: Readonly<Record<string, ForeignKeyAction>> = { a: "no action", r: "restrict", c: "cascade", n: "set null" };

/** `CHECK ((status = ANY (ARRAY['a'::text, 'b'::text])))`, or `CHECK (status IN ('a', 'b'))`: the column and its values. */
function enumCheck(definition: string): { column: string; values: string[] } | undefined {
  const body = /^CHECK\s*\((.*)\)(\s+NOT VALID)?$/is.exec(definition.trim())?.[1];
  if (body === undefined) return undefined;
  const parsed = parsePgSql(body);
  // PostgreSQL keeps an IN of one value as `=`.
  const node =
    parsed?.t === "binary" && parsed.op === "=" && parsed.right.t === "string"
      ? ({ t: "in", operand: parsed.left, negated: false, items: [parsed.right] } as const)
      : parsed;
  if (node?.t !== "in" || node.negated || node.operand.t !== "name" || node.operand.parts.length !== 1) return undefined;
  if (!node.items.every((item) => item.t === "string")) return undefined;
  return { column: node.operand.parts[0] as string, values: node.items.map((item) => (item.t === "string" ? item.value : "")) };
}

function modelTable(ddl: ModelTableDdl): TableSnapshot {
  const taken = new Set<string>();
  return {
    name: ddl.name,
    columns: ddl.columns.map((c) => {
      const type = pgColumnType(c.type, c.enumValues);
      return snapshotColumn(c.name, type, c.notNull, c.unique, c.defaultSql === null ? null : pgDefault(c.defaultSql, type.kind), null);
    }),
    primaryKey: [...ddl.primaryKey],
    indexes: ddl.indexes.map((index) => ({
      name: index.name,
      columns: [...index.columns],
      unique: index.unique,
      where: index.where === null ? null : canonicalPgSql(index.where),
    })),
    foreignKeys: ddl.foreignKeys.map((fk) => ({
      name: constraintName(ddl.name, fk.columns, "fkey", taken),
      columns: [...fk.columns],
      referencedTable: fk.referencedTable,
      referencedColumns: [...fk.referencedColumns],
      onDelete: fk.onDelete ?? "no action",
    })),
  };
}

const NAME_BYTES = 63;
const bytes = (text: string): number => Buffer.byteLength(text, "utf8");

/**
 * PostgreSQL's ChooseConstraintName: `<table>_<columns>_<label>`, the longer of the table and the
 * column part cut (by whole characters) until the name fits in 63 bytes, then a number appended
 * while the name is taken. Only names this table's own constraints take are known here, as when
 * CREATE TABLE names them.
 */
export function constraintName(table: string, columns: readonly string[], label: string, taken: Set<string>): string {
  for (let pass = 0; ; pass++) {
    const suffix = pass === 0 ? label : `${label}${pass}`;
    let name1 = table;
    let name2 = columns.join("_");
    while (bytes(name1) + bytes(name2) + bytes(suffix) + 2 > NAME_BYTES) {
      if (bytes(name1) > bytes(name2)) name1 = [...name1].slice(0, -1).join("");
      else name2 = [...name2].slice(0, -1).join("");
    }
    const name = `${name1}_${name2}_${suffix}`;
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}
