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
  const count = columns.length;
  const decoder: RowDecoder = (row) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < count; i++) {
      const value = row[i];
      const column = convert[i];
      out[fields[i] as string] = value === null || value === undefined ? null : column ? compiler.decodeValue(value, column) : value;
    }
    return out;
  };
  byShape.set(columns, decoder);
  return decoder;
}
