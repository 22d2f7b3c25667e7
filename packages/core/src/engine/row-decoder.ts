import type { SqlCompiler } from "../compiler/sql-compiler.js";
import type { ColumnMeta } from "../schema/column-meta.js";

export type RowDecoder = (row: readonly unknown[]) => Record<string, unknown>;

const decoders = new WeakMap<SqlCompiler, WeakMap<readonly ColumnMeta[], RowDecoder>>();

/**
 * The decoder for one row shape, built once per (dialect compiler, column list) and reused for every
 * row after: no per-row reflection. Columns whose driver value already is the JavaScript value skip
 * the dialect hook entirely.
 */
export function rowDecoder(compiler: SqlCompiler, columns: readonly ColumnMeta[]): RowDecoder {
  let byShape = decoders.get(compiler);
  if (!byShape) {
    byShape = new WeakMap();
    decoders.set(compiler, byShape);
  }
  const cached = byShape.get(columns);
  if (cached) return cached;
  const fields = columns.map((c) => c.field);
  const convert = columns.map((c) => (compiler.decodesAsIs(c) ? undefined : c));
  const decoder = generatedDecoder(compiler, fields, convert) ?? loopDecoder(compiler, fields, convert);
  byShape.set(columns, decoder);
  return decoder;
}

/**
 * A decoder written for the shape: one object literal with the fields in order, so every row gets
 * the same hidden class at once instead of growing one property at a time. Field names enter the
 * source only through JSON.stringify; where code generation is unavailable (or a field is named
 * __proto__, which a literal would treat as the prototype) the loop decoder is used.
 */
function generatedDecoder(
  compiler: SqlCompiler,
  fields: readonly string[],
  convert: readonly (ColumnMeta | undefined)[],
): RowDecoder | undefined {
  if (fields.includes("__proto__")) return undefined;
  const entries = fields.map((field, i) => {
    const value = `row[${i}]`;
    const read = convert[i]
      ? `(${value} === null || ${value} === undefined ? null : compiler.decodeValue(${value}, columns[${i}]))`
      : `(${value} ?? null)`;
    return `${JSON.stringify(field)}: ${read}`;
  });
  try {
    const make = new Function("compiler", "columns", `"use strict"; return function decodeRow(row) { return { ${entries.join(", ")} }; };`);
    return make(compiler, convert) as RowDecoder;
  } catch {
    return undefined;
  }
}

function loopDecoder(compiler: SqlCompiler, fields: readonly string[], convert: readonly (ColumnMeta | undefined)[]): RowDecoder {
  const count = fields.length;
  return (row) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < count; i++) {
      const value = row[i];
      const column = convert[i];
      out[fields[i] as string] = value === null || value === undefined ? null : column ? compiler.decodeValue(value, column) : value;
    }
    return out;
  };
}
