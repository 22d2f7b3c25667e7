import { randomUUID } from "node:crypto";
import type { ColumnMeta } from "../schema/column-meta.js";
import { isPlainRecord } from "./resolve-set.js";
import { acceptKind, inlineTest, valueAccepter } from "./value-accepter.js";

/**
 * Reads rows that all name `names` (in that order) into `cells`, row after row, one cell per column:
 * answers -1 when every row was read, else the index of the first row it could not take as it is
 * (another shape, a misfit, an object, a null for a NOT NULL column), for the general path to read
 * all rows again and word the error. It never throws for a row's content.
 */
export type RowReader = (rows: readonly unknown[], cells: unknown[]) => number;

/**
 * A reader written for one list of field names on one table. Generated code reads each field by its
 * name at a call site of its own, so the lookups stay monomorphic across the rows of a bulk insert and
 * each cell's test is written out for its column; a generic loop paid a megamorphic keyed load and a
 * dispatch on the column's kind per cell. Only trusted text goes into the source: JSON-quoted field
 * names and numbers; values are never part of it. Answers undefined where code cannot be generated
 * (a runtime that forbids `new Function`), and the general path reads every insert.
 */
export function rowReader(names: readonly string[], columns: readonly ColumnMeta[]): RowReader | undefined {
  const lines: string[] = [];
  const width = columns.length;
  columns.forEach((column, c) => {
    const at = `cells[at + ${c}]`;
    if (!names.includes(column.field)) {
      // Not named by the rows: only a column with a random default is among the insert's columns.
      lines.push(`${at} = randomUUID();`);
      return;
    }
    const v = `v${c}`;
    lines.push(`const ${v} = row[${JSON.stringify(column.field)}];`);
    const nullable = column.notNull ? "" : ` || ${v} === null`;
    // Objects (a Date, JSON, an expression) and the rest fail the test: the general path tells them apart.
    lines.push(`if (!((${inlineTest(acceptKind(column), v, `accepts[${c}]`)})${nullable})) return i;`);
    lines.push(`${at} = ${v};`);
  });
  const source = `"use strict";
return function readRows(rows, cells) {
  for (let i = 0, at = 0; i < rows.length; i++, at += ${width}) {
    const row = rows[i];
    if (!isPlainRecord(row)) return i;
    let k = 0;
    for (const key in row) if (key !== names[k++]) return i;
    // for-in sees enumerable string keys only: fewer, more, non-enumerable or symbol keys go the general way.
    if (k !== ${names.length} || Object.getOwnPropertyNames(row).length !== k || Object.getOwnPropertySymbols(row).length !== 0) return i;
    ${lines.join("\n    ")}
  }
  return -1;
};`;
  try {
    const make = new Function("names", "accepts", "isPlainRecord", "randomUUID", source);
    return make(Object.freeze([...names]), Object.freeze(columns.map(valueAccepter)), isPlainRecord, randomUUID) as RowReader;
  } catch {
    return undefined;
  }
}
