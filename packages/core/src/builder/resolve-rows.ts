import { randomUUID } from "node:crypto";
import { expressionNode } from "../ast/expression.js";
import type { ExpressionNode } from "../ast/value-node.js";
import { ValidationError } from "../errors.js";
import { describe } from "../expression/assert-bindable.js";
import { placeAt } from "../expression/placeholder.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { TableMeta } from "../schema/table-meta.js";
import { checkValue } from "./check-value.js";
import { fieldNames, isPlainRecord } from "./resolve-set.js";
import type { RowReader } from "./row-reader.js";
import { rowReader } from "./row-reader.js";
import { acceptKind, fits, valueAccepter } from "./value-accepter.js";
import { refuseWindowValue } from "./window-rules.js";

export interface ResolvedRows {
  readonly columns: readonly ColumnMeta[];
  readonly rowCount: number;
  /** The grid, row after row (see InsertNode.cells). */
  readonly cells: readonly unknown[];
  /** Positions (row * width + column) of the cells that are expressions, ascending. */
  readonly expressions: readonly number[];
}

const NO_EXPRESSIONS: readonly number[] = Object.freeze([]);

/**
 * The rows of an insert as a grid: the columns any row names (plus those with a random default),
 * and per row the value of each. Every row and cell is checked; a field a row leaves out takes the
 * column's default here, so that no dialect needs DEFAULT inside VALUES.
 */
export function resolveRows(table: TableMeta, input: unknown): ResolvedRows {
  const rows = Array.isArray(input) ? input : [input];
  if (rows.length === 0) throw new ValidationError(`insert(${table.model.name}).values: no rows`);
  return uniformRows(table, rows) ?? anyRows(table, rows);
}

/**
 * Rows that all name the first row's fields, in its order (a bulk insert from one object literal or
 * mapper), read by the reader generated for those fields. Anything else (a row of another shape, a
 * missing required field, a cell the reader does not take as it is) answers undefined, and anyRows
 * reads every row again, which also words any error.
 */
function uniformRows(table: TableMeta, rows: readonly unknown[]): ResolvedRows | undefined {
  const first = rows[0];
  if (!isPlainRecord(first)) return undefined;
  const shape = rowShape(table, Object.keys(first));
  if (shape === undefined) return undefined;
  const cells: unknown[] = new Array(rows.length * shape.columns.length);
  if (shape.read(rows, cells) !== -1) return undefined;
  return { columns: shape.columns, rowCount: rows.length, cells: Object.freeze(cells), expressions: NO_EXPRESSIONS };
}

/** What uniformRows needs for rows naming a list of fields, made once per table and list. */
interface RowShape {
  /** The insert's columns: the named ones and those with a random default, in table order. */
  readonly columns: readonly ColumnMeta[];
  readonly read: RowReader;
}

/** Shapes kept per table: a program inserts a handful of field lists. */
const MAX_SHAPES = 32;

/** A table's row shapes by field list, and the last list asked for (a loop inserts one shape again and again). */
interface TableShapes {
  readonly byNames: Map<string, RowShape | null>;
  lastNames: readonly string[];
  last: RowShape | null;
}

const shapes = new WeakMap<TableMeta, TableShapes>();

function rowShape(table: TableMeta, names: readonly string[]): RowShape | undefined {
  let known = shapes.get(table);
  if (known === undefined) {
    // No field is named NUL: the first list never matches this one.
    known = { byNames: new Map(), lastNames: ["\0"], last: null };
    shapes.set(table, known);
  } else if (sameNames(known.lastNames, names)) return known.last ?? undefined;
  // Two lists could share a key only through a name holding NUL, which no field has: such rows miss
  // the shape's names when the reader checks them, and take the general path.
  const key = names.join("\0");
  let shape = known.byNames.get(key);
  if (shape === undefined) {
    // Past the limit, rows of a new shape take the general path rather than generate code each time.
    if (known.byNames.size >= MAX_SHAPES) return undefined;
    shape = makeShape(table, names);
    known.byNames.set(key, shape);
  }
  known.lastNames = names;
  known.last = shape;
  return shape ?? undefined;
}

/** null when rows naming `names` need anyRows: an unknown field, a required one left out, or no code generation. */
function makeShape(table: TableMeta, names: readonly string[]): RowShape | null {
  const named = new Set(names);
  if (named.size !== names.length || names.some((name) => !table.byField.has(name))) return null;
  if (table.columns.some((c) => c.required && !named.has(c.field))) return null;
  const columns = Object.freeze(table.columns.filter((c) => named.has(c.field) || c.default?.kind === "random"));
  const read = rowReader(names, columns);
  return read ? Object.freeze({ columns, read }) : null;
}

/** Rows of any shapes: the fields they name are gathered first, then every row is read by column. */
function anyRows(table: TableMeta, rows: readonly unknown[]): ResolvedRows {
  const present = new Set<string>();
  let previous: readonly string[] | undefined;
  // Index loops, not forEach/map: a hole in a sparse array is a row that is not an object, refused.
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (!isPlainRecord(row)) throw new ValidationError(`insert(${table.model.name}).values: row ${i} is ${describe(row)}, not an object`);
    const names = rowFieldNames(row, table, i);
    // Rows of a bulk insert usually name the same fields in the same order: those were checked, and
    // a field such a row sets to undefined is caught when its cells are read below.
    if (previous === undefined || !sameNames(previous, names)) {
      for (const field of names) {
        if (!table.byField.has(field)) throw new ValidationError(`insert(${table.model.name}).values: row ${i}: no field "${field}"`);
        present.add(field);
        if (row[field] === undefined) throw undefinedField(table, i, field);
      }
    }
    previous = names;
  }
  for (const column of table.columns) {
    if (column.required && !present.has(column.field)) {
      throw new ValidationError(`insert(${table.model.name}).values: ${column.field} is required`);
    }
  }
  const columns = Object.freeze(table.columns.filter((c) => present.has(c.field) || c.default?.kind === "random"));
  const width = columns.length;
  const kinds = columns.map(acceptKind);
  const accepts = columns.map(valueAccepter);
  const cells: unknown[] = new Array(rows.length * width);
  let expressions: number[] | undefined;
  for (let i = 0, at = 0; i < rows.length; i++) {
    const row = rows[i] as Record<string, unknown>;
    for (let c = 0; c < width; c++, at++) {
      const column = columns[c] as ColumnMeta;
      const value = row[column.field];
      // The usual cell, a fitting string or number, is kept as it is; anything else (null, missing,
      // an object, a misfit) takes the full path below, which also words the error.
      if (fits(kinds[c] as number, accepts[c] as (v: unknown) => boolean, value)) {
        cells[at] = value;
        continue;
      }
      if (value === undefined && Object.hasOwn(row, column.field)) throw undefinedField(table, i, column.field);
      // Only objects can be expressions: strings and numbers skip the brand test.
      const found = typeof value === "object" && value !== null ? expressionNode(value) : undefined;
      if (found) refuseWindowValue(found, `insert(${table.model.name}).values row ${i}`);
      const node = found && placeAt(found, column, `insert(${table.model.name}).values row ${i}`, !column.notNull);
      const cell = node ?? cellFor(column, value, table, i);
      if (node !== undefined || (value === undefined && column.default?.kind === "expression")) {
        expressions ??= [];
        expressions.push(at);
      }
      cells[at] = cell;
    }
  }
  return {
    columns,
    rowCount: rows.length,
    cells: Object.freeze(cells),
    expressions: expressions ? Object.freeze(expressions) : NO_EXPRESSIONS,
  };
}

function undefinedField(table: TableMeta, i: number, field: string): ValidationError {
  return new ValidationError(`insert(${table.model.name}).values: row ${i}: ${field} is undefined; omit the field or pass null`);
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/*
 * A bulk insert checks every row and cell; the descriptions its errors start with are written only
 * when a check fails (the check runs again with the description, and throws the same error with it).
 */
function rowFieldNames(row: object, table: TableMeta, i: number): string[] {
  try {
    return fieldNames(row, "");
  } catch {
    return fieldNames(row, `insert(${table.model.name}).values: row ${i}`);
  }
}

function cellFor(column: ColumnMeta, value: unknown, table: TableMeta, i: number): unknown {
  try {
    return valueFor(column, value, "");
  } catch {
    return valueFor(column, value, `insert(${table.model.name}).values row ${i}`);
  }
}

/** The value bound for a cell: the row's own (checked), else the column's default. */
function valueFor(column: ColumnMeta, value: unknown, where: string): unknown | ExpressionNode {
  if (value !== undefined) {
    checkValue(column, value, where);
    return value;
  }
  const fallback = column.default;
  if (fallback?.kind === "random") return randomUUID();
  if (fallback?.kind === "value") return fallback.value;
  if (fallback?.kind === "expression") return fallback.node;
  if (column.notNull) throw new ValidationError(`${where}: ${column.field} is required`);
  return null;
}
