import type {
  CatalogReader,
  ColumnDefaultSnapshot,
  ColumnKind,
  ColumnSnapshot,
  ColumnTypeReading,
  ForeignKeyAction,
  ForeignKeySnapshot,
  IndexSnapshot,
  IntrospectOptions,
  Introspector,
  ModelTableDdl,
  SchemaSnapshot,
  SqlToken,
  TableSnapshot,
} from "tempest-db-js/dialect";
import {
  canonicalSql,
  closingParen,
  INTROSPECTOR_VERSION,
  isPunct,
  isWord,
  SCHEMA_SNAPSHOT_VERSION,
  snapshotColumn,
  splitTopLevel,
  sqlTokens,
} from "tempest-db-js/dialect";

/**
 * SQLite's introspector: `sqlite_master` and the pragma table functions (table_xinfo, index_list,
 * index_info, foreign_key_list), and the CREATE statements sqlite_master keeps verbatim for what no
 * pragma tells (partial index predicates, enum CHECKs, generated expressions).
 *
 * Normalisation (applied alike to the catalog and to the compiler's texts in `modelTable`):
 * - kind from the declared type by SQLite's own affinity rules, refined by common names
 *   (BOOLEAN, BIGINT, UUID, DATETIME, JSON, VARCHAR(n), DECIMAL(p,s), ...). The library declares
 *   INTEGER / TEXT / REAL / BLOB only, so a model's uuid, datetime, date, json, numeric and varchar
 *   read back as "text", and its boolean and bigint as "integer": those models create the same table.
 * - an enum is a text column with a CHECK of the form `col IN ('a', ...)`: kind "enum", values in order.
 * - defaults: NULL is no default; a literal becomes its value (see `defaultOf`); anything else is
 *   {kind: "sql"} in canonicalSql's spelling. `defaultRandom()` has no database default on SQLite
 *   (the builder fills it in), so it reads back as none.
 * - foreign keys have no stable name (null); an omitted ON DELETE is "no action".
 * - single-column UNIQUE constraints are ColumnSnapshot.unique; the primary key's index is not listed.
 */
export const sqliteIntrospector: Introspector = {
  version: INTROSPECTOR_VERSION,
  introspect,
  modelTable,
};

const LEX = { identifierQuotes: '"`[' } as const;
const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const canonical = (text: string): string => canonicalSql(text, { ...LEX, quote });

async function introspect(reader: CatalogReader, options: IntrospectOptions): Promise<SchemaSnapshot> {
  const filter = options.tables === undefined ? "" : " AND name IN (SELECT value FROM json_each(?))";
  const params = options.tables === undefined ? [] : [JSON.stringify(options.tables)];
  const tableRows = await reader.query(
    `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'${filter} ORDER BY name`,
    params,
  );
  const tables: TableSnapshot[] = [];
  for (const row of tableRows) tables.push(await readTable(reader, String(row.name), String(row.sql ?? "")));
  return { version: SCHEMA_SNAPSHOT_VERSION, dialect: "SQLite", tables };
}

async function readTable(reader: CatalogReader, name: string, createSql: string): Promise<TableSnapshot> {
  const columnRows = await reader.query(
    'SELECT name, type, "notnull" AS not_null, dflt_value, pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid',
    [name],
  );
  const indexRows = await reader.query(
    "SELECT il.name AS name, il.\"unique\" AS is_unique, il.origin AS origin, il.partial AS partial, m.sql AS sql FROM pragma_index_list(?) il LEFT JOIN sqlite_master m ON m.type = 'index' AND m.name = il.name ORDER BY il.name",
    [name],
  );
  const indexColumns = new Map<string, string[]>();
  for (const index of indexRows) {
    const rows = await reader.query("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [String(index.name)]);
    indexColumns.set(
      String(index.name),
      rows.map((r) => (r.name === null ? "(expression)" : String(r.name))),
    );
  }
  const fkRows = await reader.query(
    'SELECT id, seq, "table" AS ref_table, "from" AS from_column, "to" AS to_column, on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq',
    [name],
  );

  const definitions = columnDefinitions(createSql);
  const enums = enumChecks(createSql);
  const uniqueColumns = new Set<string>();
  const indexes: IndexSnapshot[] = [];
  for (const index of indexRows) {
    const columns = indexColumns.get(String(index.name)) ?? [];
    if (index.origin === "pk") continue;
    if (index.origin === "u" && columns.length === 1) {
      uniqueColumns.add(columns[0] as string);
      continue;
    }
    const where = Number(index.partial) === 1 ? indexPredicate(String(index.sql ?? "")) : null;
    indexes.push({ name: String(index.name), columns, unique: Number(index.is_unique) === 1, where });
  }
  const primaryKey = columnRows
    .filter((c) => Number(c.pk) > 0)
    .sort((a, b) => Number(a.pk) - Number(b.pk))
    .map((c) => String(c.name));
  const columns = columnRows
    .filter((c) => Number(c.hidden) !== 1)
    .map((c): ColumnSnapshot => {
      const columnName = String(c.name);
      const hidden = Number(c.hidden);
      const generated = hidden === 2 || hidden === 3 ? { sql: definitions.get(columnName)?.generated ?? "", stored: hidden === 3 } : null;
      const type = typeOf(String(c.type ?? ""), enums.get(columnName) ?? null);
      return snapshotColumn(
        columnName,
        type,
        Number(c.not_null) === 1 || isRowid(columnName, String(c.type ?? ""), primaryKey),
        uniqueColumns.has(columnName),
        generated || c.dflt_value === null || c.dflt_value === undefined ? null : defaultOf(String(c.dflt_value), type.kind),
        generated,
      );
    });
  const byId = new Map<
    number,
    { columns: string[]; referencedTable: string; referencedColumns: (string | null)[]; onDelete: ForeignKeyAction }
  >();
  for (const fk of fkRows) {
    const id = Number(fk.id);
    let entry = byId.get(id);
    if (!entry) {
      entry = { columns: [], referencedTable: String(fk.ref_table), referencedColumns: [], onDelete: action(String(fk.on_delete)) };
      byId.set(id, entry);
    }
    entry.columns.push(String(fk.from_column));
    entry.referencedColumns.push(fk.to_column === null ? null : String(fk.to_column));
  }
  const foreignKeys: ForeignKeySnapshot[] = [];
  for (const fk of byId.values()) {
    // REFERENCES t without columns means t's primary key.
    let referenced = fk.referencedColumns as string[];
    if (fk.referencedColumns.some((c) => c === null)) {
      const target = await reader.query("SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", [fk.referencedTable]);
      referenced = target.map((r) => String(r.name));
    }
    foreignKeys.push({
      name: null,
      columns: fk.columns,
      referencedTable: fk.referencedTable,
      referencedColumns: referenced,
      onDelete: fk.onDelete,
    });
  }
  return { name, columns, primaryKey, indexes, foreignKeys };
}

/**
 * An INTEGER PRIMARY KEY is the rowid: never NULL, though table_info reports notnull 0 for it. (Any
 * other primary key column does take NULL on SQLite unless declared NOT NULL, as models declare it.)
 */
function isRowid(column: string, type: string, primaryKey: readonly string[]): boolean {
  return primaryKey.length === 1 && primaryKey[0] === column && type.trim().toUpperCase() === "INTEGER";
}

function modelTable(ddl: ModelTableDdl): TableSnapshot {
  const columns = ddl.columns.map((column): ColumnSnapshot => {
    const type = typeOf(column.type, column.enumValues);
    return snapshotColumn(
      column.name,
      type,
      column.notNull,
      column.unique,
      column.defaultSql === null ? null : defaultOf(column.defaultSql, type.kind),
      null,
    );
  });
  return {
    name: ddl.name,
    columns,
    primaryKey: [...ddl.primaryKey],
    indexes: ddl.indexes.map((index) => ({
      name: index.name,
      columns: [...index.columns],
      unique: index.unique,
      where: index.where === null ? null : canonical(index.where),
    })),
    foreignKeys: ddl.foreignKeys.map((fk) => ({
      name: null,
      columns: [...fk.columns],
      referencedTable: fk.referencedTable,
      referencedColumns: [...fk.referencedColumns],
      onDelete: fk.onDelete ?? "no action",
    })),
  };
}

type ColumnType = ColumnTypeReading;

/** The kind a declared type reads back as: SQLite's affinity rules, refined by the common type names. */
export function typeOf(declared: string, enumValues: readonly string[] | null): ColumnType {
  const type = declared.trim().toUpperCase();
  const match = /^([A-Z0-9_ ]*?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?$/.exec(type);
  const base = (match?.[1] ?? type).trim();
  const first = match?.[2] === undefined ? null : Number(match[2]);
  const second = match?.[3] === undefined ? null : Number(match[3]);
  const make = (
    kind: ColumnKind,
    length: number | null = null,
    precision: number | null = null,
    scale: number | null = null,
  ): ColumnType => ({
    kind,
    enumValues: null,
    length,
    precision,
    scale,
  });
  let result: ColumnType;
  if (/^(BOOL|BOOLEAN)$/.test(base)) result = make("boolean");
  else if (/^(BIGINT|INT8|UNSIGNED BIG INT)$/.test(base)) result = make("bigint");
  else if (base.includes("INT")) result = make("integer");
  else if (/^(UUID|GUID)$/.test(base)) result = make("uuid");
  else if (/^(JSON|JSONB)$/.test(base)) result = make("json");
  else if (/^(DATETIME|TIMESTAMP|TIMESTAMPTZ)/.test(base)) result = make("datetime");
  else if (base === "DATE") result = make("date");
  else if (/CHAR|CLOB|TEXT/.test(base)) result = first !== null && /CHAR/.test(base) ? make("varchar", first) : make("text");
  else if (base === "" || base.includes("BLOB")) result = make("bytes");
  else if (/REAL|FLOA|DOUB/.test(base)) result = make("real");
  else result = make("numeric", null, first, first === null ? null : (second ?? 0));
  if (enumValues && (result.kind === "text" || result.kind === "varchar")) return { ...make("enum"), enumValues: [...enumValues] };
  return result;
}

/** A DEFAULT as written: NULL is none, a literal its value as the column reads it, else the canonical SQL. */
export function defaultOf(text: string, kind: ColumnKind): ColumnDefaultSnapshot | null {
  let tokens: SqlToken[];
  try {
    tokens = sqlTokens(text, LEX);
  } catch {
    return { kind: "sql", sql: text.trim() };
  }
  while (tokens.length >= 2 && isPunct(tokens[0], "(") && closingParen(tokens, 0) === tokens.length) tokens = tokens.slice(1, -1);
  const [first, second] = tokens;
  if (tokens.length === 1 && isWord(first, "null")) return null;
  if (tokens.length === 1 && (isWord(first, "true") || isWord(first, "false"))) {
    const on = isWord(first, "true");
    return { kind: "value", value: kind === "boolean" ? on : on ? 1 : 0 };
  }
  if (tokens.length === 1 && first?.kind === "string") {
    if (first.prefix.toUpperCase() === "X") return { kind: "value", value: first.value.toLowerCase() };
    return { kind: "value", value: first.value };
  }
  const negative = tokens.length === 2 && isPunct(first, "-") && second?.kind === "number";
  if ((tokens.length === 1 && first?.kind === "number") || negative) {
    const digits = `${negative ? "-" : ""}${(negative ? second : first)?.value}`;
    return { kind: "value", value: numberValue(digits, kind) };
  }
  return { kind: "sql", sql: canonical(text) };
}

/** A numeric literal as the column's kind reads it: exact kinds as text, integers as numbers while they are exact. */
function numberValue(digits: string, kind: ColumnKind): unknown {
  switch (kind) {
    case "boolean":
      return Number(digits) !== 0;
    case "bigint":
    case "numeric":
    case "text":
    case "varchar":
    case "enum":
    case "uuid":
      return digits;
    default: {
      const n = Number(digits);
      return Number.isSafeInteger(n) || !/^-?\d+$/.test(digits) ? n : digits;
    }
  }
}

function action(text: string): ForeignKeyAction {
  const lower = text.toLowerCase();
  return lower === "cascade" || lower === "restrict" || lower === "set null" ? lower : "no action";
}

/** The predicate after the top-level WHERE of a CREATE INDEX, canonical. */
function indexPredicate(createSql: string): string | null {
  const tokens = sqlTokens(createSql, LEX);
  let depth = 0;
  for (const [i, token] of tokens.entries()) {
    if (isPunct(token, "(")) depth++;
    else if (isPunct(token, ")")) depth--;
    else if (depth === 0 && isWord(token, "where")) return canonical(joinTokens(tokens.slice(i + 1)));
  }
  return null;
}

/** Tokens back to text that lexes to the same tokens. */
function joinTokens(tokens: readonly SqlToken[]): string {
  return tokens
    .map((t) => (t.kind === "string" ? `${t.prefix}'${t.value.replaceAll("'", "''")}'` : t.kind === "quoted" ? quote(t.value) : t.value))
    .join(" ");
}

/** The body of CREATE TABLE split into its definitions. */
function tableParts(createSql: string): SqlToken[][] {
  let tokens: SqlToken[];
  try {
    tokens = sqlTokens(createSql, LEX);
  } catch {
    return [];
  }
  const open = tokens.findIndex((t) => isPunct(t, "("));
  if (open < 0) return [];
  return splitTopLevel(tokens.slice(open + 1, closingParen(tokens, open) - 1));
}

/** Per column, what only its definition tells: the generated expression. */
function columnDefinitions(createSql: string): Map<string, { generated: string | undefined }> {
  const out = new Map<string, { generated: string | undefined }>();
  for (const part of tableParts(createSql)) {
    const head = part[0];
    if (!head || (head.kind !== "word" && head.kind !== "quoted")) continue;
    if (head.kind === "word" && ["constraint", "primary", "unique", "check", "foreign"].includes(head.value.toLowerCase())) continue;
    const as = part.findIndex((t, i) => isWord(t, "as") && isPunct(part[i + 1], "("));
    const generated = as < 0 ? undefined : canonical(joinTokens(part.slice(as + 2, closingParen(part, as + 1) - 1)));
    out.set(head.value, { generated });
  }
  return out;
}

/** Columns kept to a list of strings by a CHECK (`col IN ('a', 'b')`), table or column constraint. */
function enumChecks(createSql: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of tableParts(createSql)) {
    for (let i = 0; i < part.length; i++) {
      if (!isWord(part[i], "check") || !isPunct(part[i + 1], "(")) continue;
      const inner = part.slice(i + 2, closingParen(part, i + 1) - 1);
      const [column, keyword, open] = inner;
      if (!column || (column.kind !== "word" && column.kind !== "quoted") || !isWord(keyword, "in") || !isPunct(open, "(")) continue;
      if (!isPunct(inner[inner.length - 1], ")")) continue;
      const list = splitTopLevel(inner.slice(3, -1));
      if (list.every((item) => item.length === 1 && item[0]?.kind === "string")) {
        out.set(
          column.value,
          list.map((item) => (item[0] as SqlToken).value),
        );
      }
    }
  }
  return out;
}
